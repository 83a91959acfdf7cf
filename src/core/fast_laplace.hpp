// Exact discrete Laplace noise drawn word-wise: the distribution of discrete_laplace (discrete.hpp),
// several times faster, for mechanisms that draw millions of values (LPA releases every sample).
//
// Method. A geometric variate with P(g) proportional to exp(-g s/t) is floor((t/s) E) for E ~ Exp(1).
// E is drawn exactly by von Neumann's comparison method (von Neumann 1951; Karney 2016, "Sampling
// exactly from the normal distribution", Algorithm V): E = K + x, where x is a uniform deviate accepted
// when the run x > U1 > U2 > ... of further uniforms has even length (probability exp(-x)) and K counts
// the rejections. Uniform deviates are compared by 16-bit heads (one random word gives x and U1..U3)
// and extended with further random words only on a tie or a longer run, so every comparison is exact.
// floor((t/s)(K + x)) is decided from x's first word unless a multiple of the grid falls inside x's 64-bit
// interval; then the remaining bits of x, which are still uniform, are compared exactly with the rational
// position of that boundary. No floating-point number is drawn and no probability is rounded.
//
// Departures from discrete_laplace: draws with K >= 1024 (probability e^-1024 < 2^-1477) are rejected
// to keep the arithmetic in 128 bits, and a tie of 16 consecutive 64-bit words after the heads
// (probability 2^-1024) raises InternalError. Scales this method cannot represent (s not a power of two, t >=
// 2^53; never produced by rational_scale_at_least) fall back to the CKS sampler, with the same distribution.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cancel.hpp"
#include "core/discrete.hpp"
#include "core/noise.hpp"
#include "core/random.hpp"

namespace gazepriv::core {

// Exactly P(x) proportional to exp(-x s/t) on x >= 0 (as discrete_geometric).
std::uint64_t discrete_geometric_fast(Rng& rng, RationalScale scale);

// Exactly P(x) proportional to exp(-|x| s/t) on the integers (as discrete_laplace), |x| <= 2^62.
std::int64_t discrete_laplace_fast(Rng& rng, RationalScale scale);

// mechanism.release(value, rng) with the fast sampler: value rounded to the mechanism's grid plus
// discrete Laplace noise in grid units. Same distribution, same errors.
double release_fast(const GridLaplace& mechanism, double value, Rng& rng);

// out[i] = release_fast(mechanism, in[i], rng) for i < n (in and out may be the same array).
void release_fast(const GridLaplace& mechanism, const double* in, double* out, std::size_t n, Rng& rng,
                  const CancelCheck& cancel = CancelCheck());

namespace detail {
// One attempt of the exponential sampler, exposed for tests: whether the decreasing run x > U1 > ...
// has even length when `heads` gives the 16-bit heads of x, U1, U2, U3 (high to low).
bool run_is_even_for_test(std::uint64_t heads, Rng& rng);
// The last step of discrete_geometric_fast, exposed for tests: floor((t/s)(k + x)) for a uniform x
// whose first 64 bits are first_word and whose further bits are drawn from rng.
std::uint64_t scaled_floor_for_test(RationalScale scale, std::uint64_t k, std::uint64_t first_word, Rng& rng);
} // namespace detail

} // namespace gazepriv::core

#include "core/no_postgres.hpp"
