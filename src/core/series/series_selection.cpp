#include "core/series/series_selection.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <memory>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"
#include "core/noise/exponential_mechanism.hpp"
#include "core/series/real_fft.hpp"

namespace gazepriv::core {

namespace {

// Per participant id: how many of their values fall in each cell (c_{j-1}, c_j], and in all.
struct ParticipantCdf {
    std::vector<double> cells;
    double values = 0;
};

// -|S(c_j) - target| for j in [first, last], in units (exact integer sums).
std::vector<std::int64_t> quantile_utility(const std::vector<std::int64_t>& sum_cdf, std::size_t first,
                                           std::size_t last, std::int64_t target) {
    std::vector<std::int64_t> u;
    for (std::size_t j = first; j <= last; ++j)
        u.push_back(-std::llabs(sum_cdf[j] - target));
    return u;
}

} // namespace

FeatureBounds private_bounds(const std::vector<SignalGroup>& groups, std::size_t feature,
                             const FeatureBounds& bounds, double q_lo, double q_hi, double epsilon, Rng& rng,
                             const CancelCheck& cancel) {
    if (!(q_lo >= 0 && q_lo < q_hi && q_hi <= 1))
        throw InvalidArgument("the bounds' quantiles must satisfy 0 <= lower < upper <= 1");
    if (!std::isfinite(bounds.width()))
        throw InvalidArgument("bounds_share: the public bounds' width must be finite, got " +
                              format_number(bounds.width()));
    const std::size_t grid = kBoundsGrid;
    const double step = bounds.width() / static_cast<double>(grid - 1);
    std::vector<ParticipantCdf> cdf;
    for (const SignalGroup& group : groups) {
        for (std::size_t p = 0; p < group.participants.size(); ++p) {
            cancel.poll(p);
            const std::size_t id = group.participants[p];
            if (cdf.size() <= id)
                cdf.resize(id + 1);
            ParticipantCdf& c = cdf[id];
            c.cells.resize(grid, 0.0);
            const double* x = group.signal(feature, p);
            for (std::size_t t = 0; t < group.length; ++t) {
                const double cell = std::ceil((x[t] - bounds.lo) / step); // the first c_j >= x[t]
                c.cells[static_cast<std::size_t>(std::clamp(cell, 0.0, double(grid - 1)))] += 1;
            }
            c.values += static_cast<double>(group.length);
        }
    }
    double participants = 0;
    for (const ParticipantCdf& c : cdf)
        participants += c.values > 0;
    // sum_p F_p(c_j) in units: each participant adds a fraction in [0, 1], rounded (at most `one` units).
    const double unit = utility_grid(1, std::max(participants, 1.0));
    const std::int64_t one = utility_units_sensitivity(1, unit);
    std::vector<std::int64_t> sum_cdf(grid, 0);
    for (const ParticipantCdf& c : cdf) {
        if (c.values == 0)
            continue;
        double below = 0;
        for (std::size_t j = 0; j < grid; ++j) {
            below += c.cells[j];
            sum_cdf[j] += to_units(std::min(below / c.values, 1.0), unit);
        }
    }
    const std::size_t lo =
        exponential_mechanism(quantile_utility(sum_cdf, 0, grid - 2, to_units(q_lo * participants, unit)),
                              one, epsilon / 2, rng, cancel);
    const std::size_t hi = lo + 1 +
                           exponential_mechanism(quantile_utility(sum_cdf, lo + 1, grid - 1,
                                                                  to_units(q_hi * participants, unit)),
                                                 one, epsilon / 2, rng, cancel);
    const auto candidate = [&](std::size_t j) {
        return j == grid - 1 ? bounds.hi : bounds.lo + static_cast<double>(j) * step;
    };
    return {candidate(lo), candidate(hi)};
}

KUtility k_utility(const SignalGroup& group, std::size_t feature, std::size_t chunk, std::size_t limit,
                   const FeatureBounds& bounds, double noise_epsilon, const CancelCheck& cancel) {
    const std::size_t n = group.length;
    chunk = std::min(chunk, n);
    if (limit < 1 || limit > fpa_max_k(chunk))
        throw InvalidArgument("the largest k must be between 1 and " + std::to_string(fpa_max_k(chunk)) +
                              ", got " + std::to_string(limit));
    const double w = bounds.width(), participants = static_cast<double>(group.participants.size());
    const double sensitivity = static_cast<double>(n) * w * w / 4; // one participant's largest term
    // The public term, P sum_blocks m sigma^2_m(k), for every k (largest at the limit).
    std::vector<double> noise(limit, 0.0);
    for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t m = std::min(chunk, n - first);
        const double md = static_cast<double>(m);
        for (std::size_t k = 1; k <= limit; ++k) {
            const std::size_t km = chunk_k(k, m);
            const double lambda = fpa_lambda(m, km, std::sqrt(md) * w, noise_epsilon);
            noise[k - 1] += participants * md * fpa_noise_variance(m, km, lambda);
        }
    }
    const double bound = participants * sensitivity + noise[limit - 1];
    if (!std::isfinite(bound) || !(sensitivity > 0))
        throw InvalidArgument(
            "k_share: the expected errors of k are not finite and positive for bounds of width " +
            format_number(w) + " at this epsilon and length");
    KUtility result{std::vector<std::int64_t>(limit, 0), 0, utility_grid(sensitivity, bound)};
    result.sensitivity = utility_units_sensitivity(sensitivity, result.grid);
    for (std::size_t k = 1; k <= limit; ++k)
        result.utility[k - 1] = -to_units(noise[k - 1], result.grid);
    // Each participant's term E_p(k), from their data alone, in [0, n w^2 / 4]: rounded, then summed exactly.
    std::vector<double> power, energy_outside(limit);
    std::shared_ptr<RealFft> fft;
    for (std::size_t p = 0; p < group.participants.size(); ++p) {
        cancel.poll(p);
        std::fill(energy_outside.begin(), energy_outside.end(), 0.0);
        for (std::size_t first = 0; first < n; first += chunk) {
            const std::size_t m = std::min(chunk, n - first);
            const double md = static_cast<double>(m);
            if (!fft || fft->size() != m)
                fft = real_fft(m);
            const double* x = group.signal(feature, p) + first;
            std::copy(x, x + m, fft->signal());
            fft->forward();
            // ||y||^2 = (1/m) sum over all m bins of |Y_j|^2; bins 1..ceil(m/2)-1 stand for two.
            power.assign(fft->bins(), 0.0);
            double energy = 0;
            for (std::size_t j = 0; j < fft->bins(); ++j) {
                const double twice = (j == 0 || 2 * j == m) ? 1 : 2;
                power[j] = twice * std::norm(fft->spectrum()[j]) / md;
                energy += power[j];
            }
            double kept = 0;
            std::size_t counted = 0;
            for (std::size_t k = 1; k <= limit; ++k) {
                for (const std::size_t km = chunk_k(k, m); counted < km; ++counted)
                    kept += power[counted];
                // In [0, m w^2 / 4] in exact arithmetic; clamped so that rounding cannot widen it.
                energy_outside[k - 1] += std::clamp(energy - kept, 0.0, md * w * w / 4);
            }
        }
        for (std::size_t k = 1; k <= limit; ++k)
            result.utility[k - 1] -= to_units(std::min(energy_outside[k - 1], sensitivity), result.grid);
    }
    return result;
}

std::size_t private_k(const SignalGroup& group, std::size_t feature, std::size_t chunk, std::size_t limit,
                      const FeatureBounds& bounds, double noise_epsilon, double epsilon, Rng& rng,
                      const CancelCheck& cancel) {
    const KUtility u = k_utility(group, feature, chunk, limit, bounds, noise_epsilon, cancel);
    return 1 + exponential_mechanism(u.utility, u.sensitivity, epsilon, rng, cancel);
}

} // namespace gazepriv::core
