// A fast discrete Gaussian sampler by cumulative-distribution table (CDT), the method lattice
// cryptography uses, for bulk noise such as the 1.76 M cells of a 1680x1050 heatmap.
//
// The table holds P(|X| <= i) as 127-bit fixed-point integers. The weights exp(-i^2 / (2 sigma^2)) are
// computed in 64-bit-mantissa long double (relative error below 2^-56 for every entry, including the
// error of the argument), converted to integers and summed exactly, so each entry's probability keeps
// that relative accuracy; the table ends where a weight rounds to zero (12.5 to 13.3 sigma; the tail beyond
// has mass below 2^-120).
// Sampling draws a uniform integer below the exact table total (exact rejection), so the statistical
// distance of one draw from the true discrete Gaussian is at most kStatisticalDistance = 2^-55.
// A release of r such draws is therefore within v = r * 2^-55 of the exact mechanism in total variation,
// so an (epsilon, delta)-DP mechanism becomes (epsilon, delta + (1 + e^epsilon) v)-DP: the releasing
// function reserves that term in its delta (a 1680 x 1050 map at epsilon = 1: (1 + e) 1,764,000 2^-55 =
// 1.82e-10). rho-zCDP holds only for the exact sampler, so a zCDP budget charges v beside rho. Where that
// is not acceptable, use the exact sampler (discrete.hpp).
//
// Why it resists the floating-point attack: the output is an integer drawn by integer comparisons;
// floating point is used only to compute the table, whose error is accounted above.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/noise/random.hpp"

namespace gazepriv::core {

class GaussianTable {
public:
    static constexpr double kStatisticalDistance = 0x1.0p-55;
    static constexpr std::size_t kMaxEntries = std::size_t{1} << 20; // 16 MiB; about sigma <= 78,000

    // Entries needed for sigma (13.3 sigma + 2); callers compare with kMaxEntries before building.
    static std::size_t entries_for(double sigma);

    explicit GaussianTable(double sigma); // sigma finite and in [1, kMaxEntries / 13.4]
    double sigma() const { return sigma_; }
    std::size_t size() const { return hi_.size(); }

    std::int64_t sample(Rng& rng) const;

private:
    double sigma_;
    // Cumulative weights F(i) = hi_[i] * 2^64 + lo_[i], strictly increasing, F(last) = the total.
    std::vector<std::uint64_t> hi_;
    std::vector<std::uint64_t> lo_;
    // guide_[g] = first i with hi_[i] >= g << (63 - kGuideBits): narrows the search to a few entries.
    static constexpr int kGuideBits = 16;
    std::vector<std::uint32_t> guide_;
};

// A table for sigma, built on first use and kept in a small per-process cache (most recent four).
std::shared_ptr<const GaussianTable> cached_gaussian_table(double sigma);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
