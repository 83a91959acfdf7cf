// The exponential mechanism (McSherry & Talwar, FOCS 2007) over a finite list of candidates, sampled
// exactly: P(i) proportional to exp(epsilon u_i / (2 Delta)) for utilities u_i whose change between
// neighbouring inputs is at most Delta for every i. epsilon-DP.
//
// Why exact. Utilities are integers: a caller puts each participant's term (and any public term) on a
// power-of-two grid with to_units and sums the integers, so the sum is exact and neighbours' utilities
// differ by at most the units of one participant's largest term (utility_units_sensitivity). The draw
// is a rejection sampler on integers: propose i uniformly, accept with probability exp(-(max - u_i)
// epsilon / (2 Delta)), decided by the exact Bernoulli(exp(-x)) of Canonne, Kamath and Steinke
// (Algorithm 1) on a rational x (its scale rounded up, which only lowers the epsilon spent). No
// floating-point number is drawn. Candidates whose weight is below exp(-1100) are never accepted (a
// departure of less than candidates x 2^-1500 in total variation). The expected number of proposals is
// at most the number of candidates (the best is always accepted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

// The grid for utilities whose per-participant terms lie in [0, sensitivity] and whose total is at most
// `bound` in absolute value (both finite and > 0; InvalidArgument otherwise): the largest power of two
// at most sensitivity 2^-30, raised until bound / grid < 2^60 (so that sums fit in 64 bits).
double utility_grid(double sensitivity, double bound);
// value / grid rounded to the nearest integer (|value| <= bound of utility_grid).
std::int64_t to_units(double value, double grid);
// How far a term in [0, sensitivity] can move in units: ceil(sensitivity / grid).
std::int64_t utility_units_sensitivity(double sensitivity, double grid);

// The index of the chosen candidate, for integer utilities with the given sensitivity in units (>= 1);
// epsilon finite, >= kMinEpsilon (InvalidArgument otherwise).
std::size_t exponential_mechanism(const std::vector<std::int64_t>& utility, std::int64_t sensitivity,
                                  double epsilon, Rng& rng, const CancelCheck& cancel = CancelCheck());

// The probabilities the sampler draws from (for tests and documentation): softmax of epsilon u_i /
// (2 Delta) with the rounded-up scale.
std::vector<double> exponential_mechanism_probabilities(const std::vector<std::int64_t>& utility,
                                                        std::int64_t sensitivity, double epsilon);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
