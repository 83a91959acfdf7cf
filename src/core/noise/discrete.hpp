// Exact samplers on the integers, after Canonne, Kamath and Steinke, "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020), Algorithms 1-3.
//
// Why they resist the floating-point attack (Mironov 2012): no floating-point number is ever drawn.
// Every probability is a ratio of integers, every coin is decided by comparing random bits with the
// binary expansion of that ratio, and the output is an integer. Added to integer data (counts), or to
// data first rounded to a power-of-two grid (grid_noise.hpp), the released value has exactly the
// distribution of the proof, whose support does not depend on the data.
//
// Parameters are rationals. Conversions from a double always round the noise scale *up*, which can
// only strengthen the guarantee. 128-bit intermediates bound the representable cases; the only
// departures from the exact distributions are rejections of proposals so far in the tail that their
// combined probability is below 2^-1000 (documented at each sampler).
#pragma once

#include <cstdint>

#include "core/noise/random.hpp"

namespace gazepriv::core {

using u128 = unsigned __int128;

// Exactly Bernoulli(num/den). Requires 1 <= den <= 2^127. Uses 2 random bits on average.
bool bernoulli_ratio(Rng& rng, u128 num, u128 den);

// Exactly Bernoulli(exp(-num/den)) (CKS Algorithm 1). Requires 1 <= den <= 2^120.
bool bernoulli_exp_neg(Rng& rng, u128 num, u128 den);

// A noise scale as the rational t/s (both in [1, 2^62]).
struct RationalScale {
    std::uint64_t t;
    std::uint64_t s;
    double value() const { return static_cast<double>(t) / static_cast<double>(s); }
};
// The smallest convenient t/s >= scale; scale must be finite, > 0 and <= 2^52.
RationalScale rational_scale_at_least(double scale);

// Exactly P(x) proportional to exp(-|x| s/t) on the integers (CKS Algorithm 2): the discrete Laplace
// (two-sided geometric) distribution with scale t/s. Outputs beyond |x| > 2^62 (probability below
// exp(-2^62 s/t)) are rejected.
std::int64_t discrete_laplace(Rng& rng, RationalScale scale);

// Exactly P(x) proportional to exp(-x s/t) on x >= 0: the geometric distribution, i.e. an exponential
// with mean about t/s realised on the integers.
std::uint64_t discrete_geometric(Rng& rng, RationalScale scale);

// sigma^2 as the rational num/den, with den a power of two and t = floor(sigma) + 1 such that
// t^2 den <= 2^56 (which keeps CKS Algorithm 3's arithmetic inside 128 bits).
struct RationalVariance {
    u128 num;
    u128 den;
    std::uint64_t t; // the discrete Laplace proposal scale
    double sigma() const;
};
// The exact rational >= sigma^2; sigma must be finite, > 0 and < 2^27.
RationalVariance rational_variance_at_least(double sigma);

// Exactly P(x) proportional to exp(-x^2 / (2 sigma^2)) on the integers (CKS Algorithm 3). Proposals
// with |y| > 128 t are rejected: their acceptance probability is below exp(-8000).
std::int64_t discrete_gaussian(Rng& rng, const RationalVariance& variance);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
