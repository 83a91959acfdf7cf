#include "core/noise/gaussian_table.hpp"

#include <algorithm>
#include <cmath>

#include "core/noise/discrete.hpp"
#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

std::size_t GaussianTable::entries_for(double sigma) {
    // Weights are scaled so the total is about 2^126; exp(-x^2/2s^2) * 2^126 / (2.51 s) < 1 beyond
    // x = s * sqrt(2 (126 ln 2)) ~ 13.22 s.
    return static_cast<std::size_t>(std::ceil(13.3 * sigma)) + 2;
}

GaussianTable::GaussianTable(double sigma) : sigma_(sigma) {
    require_positive("sigma", sigma);
    if (sigma < 1)
        throw InvalidArgument("the table sampler needs sigma >= 1, got " + format_number(sigma));
    const std::size_t n_max = entries_for(sigma);
    if (n_max > kMaxEntries)
        throw LimitExceeded("discrete Gaussian table for sigma " + format_number(sigma) + " exceeds " +
                            std::to_string(kMaxEntries) + " entries");

    // Weight of |X| = i: 1 for i = 0, 2 exp(-i^2 / 2 sigma^2) for i >= 1 (both signs).
    const long double two_s2 = 2.0L * static_cast<long double>(sigma) * static_cast<long double>(sigma);
    const long double total_estimate = std::sqrt(2.0L * 3.14159265358979323846264338327950288L) * sigma;
    // Scale so the total is just below 2^127: uniform 127-bit draws are then almost never rejected.
    const long double scale = std::ldexp(1.0L - std::ldexp(1.0L, -16), 127) / total_estimate;

    hi_.reserve(n_max);
    lo_.reserve(n_max);
    u128 cumulative = 0;
    for (std::size_t i = 0; i < n_max; ++i) {
        const long double x = static_cast<long double>(i);
        long double w = std::exp(-(x * x) / two_s2) * scale;
        if (i > 0)
            w *= 2;
        if (w < 1.0L)
            break; // the rest of the tail rounds to zero
        // w < 2^127: split exactly into two 64-bit halves (the low half drops only the fraction).
        const long double w_hi = std::floor(std::ldexp(w, -64));
        const long double w_lo = w - std::ldexp(w_hi, 64);
        cumulative +=
            (static_cast<u128>(static_cast<std::uint64_t>(w_hi)) << 64) + static_cast<std::uint64_t>(w_lo);
        hi_.push_back(static_cast<std::uint64_t>(cumulative >> 64));
        lo_.push_back(static_cast<std::uint64_t>(cumulative));
    }
    if (cumulative >> 127)
        throw InternalError("discrete Gaussian table total overflowed");

    guide_.resize((std::size_t{1} << kGuideBits) + 1);
    std::size_t i = 0;
    for (std::size_t g = 0; g < guide_.size(); ++g) {
        const std::uint64_t threshold = g >= (std::size_t{1} << kGuideBits)
                                            ? ~std::uint64_t{0}
                                            : static_cast<std::uint64_t>(g) << (63 - kGuideBits);
        while (i < hi_.size() && hi_[i] < threshold)
            ++i;
        guide_[g] = static_cast<std::uint32_t>(i);
    }
}

std::int64_t GaussianTable::sample(Rng& rng) const {
    const std::size_t n = hi_.size();
    for (;;) {
        // U = hi * 2^64 + lo is uniform on [0, 2^127); lo is drawn only when hi alone cannot decide.
        const std::uint64_t hi = rng.next_u64() >> 1;
        const std::size_t g = static_cast<std::size_t>(hi >> (63 - kGuideBits));
        const auto first = hi_.begin() + guide_[g];
        const auto last = hi_.begin() + guide_[g + 1];
        std::size_t i = static_cast<std::size_t>(std::lower_bound(first, last, hi) - hi_.begin());
        if (i < n && hi_[i] == hi) {
            const std::uint64_t lo = rng.next_u64();
            while (i < n && hi_[i] == hi && lo_[i] <= lo)
                ++i;
        }
        if (i == n)
            continue; // U >= total: reject (exact uniform below the total)
        if (i == 0)
            return 0;
        const std::int64_t magnitude = static_cast<std::int64_t>(i);
        return rng.next_bit() ? -magnitude : magnitude;
    }
}

std::shared_ptr<const GaussianTable> cached_gaussian_table(double sigma) {
    // Most recently used first. Backends are single-threaded, so a plain static is enough.
    static std::vector<std::shared_ptr<const GaussianTable>> cache;
    for (std::size_t i = 0; i < cache.size(); ++i) {
        if (cache[i]->sigma() == sigma) {
            std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                        cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            return cache.front();
        }
    }
    auto table = std::make_shared<const GaussianTable>(sigma);
    cache.insert(cache.begin(), table);
    if (cache.size() > 4)
        cache.pop_back();
    return table;
}

} // namespace gazepriv::core
