// The exponential mechanism (McSherry & Talwar, FOCS 2007) over a finite list of candidates, sampled
// exactly: P(i) proportional to exp(epsilon u_i / (2 Delta)) for utilities u_i whose change between
// neighbouring inputs is at most Delta for every i. epsilon-DP.
//
// Why exact. Utilities are rounded to a power-of-two grid gamma >= max(Delta 2^-30, bound 2^-40), where
// `bound` is a public bound on |u_i|: rounding, and the floating-point error of computing u_i (far below
// gamma for utilities that are sums of fewer than 2^20 terms), move a utility by less than 1.5 gamma, so
// the integer utilities of neighbours differ by at most Delta + 3 gamma, which is the sensitivity used.
// The draw is a rejection sampler on integers: propose i uniformly, accept with probability
// exp(-(max - u_i) epsilon / (2 Delta')), decided by the exact Bernoulli(exp(-x)) of Canonne, Kamath and
// Steinke (Algorithm 1) on a rational x (its scale rounded up, which only lowers the epsilon spent). No
// floating-point number is drawn. Candidates whose weight is below exp(-1100) are never accepted (a
// departure of less than candidates x 2^-1500 in total variation). The expected number of proposals is
// at most the number of candidates (the best is always accepted).
#pragma once

#include <cstddef>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

// The index of the chosen candidate. utility: finite, |u_i| <= bound; sensitivity, bound and epsilon
// finite and > 0, epsilon >= kMinEpsilon (InvalidArgument otherwise).
std::size_t exponential_mechanism(const std::vector<double>& utility, double sensitivity, double bound,
                                  double epsilon, Rng& rng, const CancelCheck& cancel = CancelCheck());

// The probabilities the sampler draws from (for tests and documentation): softmax of epsilon u_i /
// (2 Delta') over the rounded utilities.
std::vector<double> exponential_mechanism_probabilities(const std::vector<double>& utility,
                                                        double sensitivity, double bound, double epsilon);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
