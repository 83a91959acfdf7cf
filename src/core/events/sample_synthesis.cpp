#include "core/events/sample_synthesis.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::core {

namespace {

std::string describe(const SynthEvent& e) {
    return "event " + std::to_string(e.event_index);
}

void require_finite(const SynthEvent& e, const char* name, double v) {
    if (!std::isfinite(v))
        throw InvalidArgument(describe(e) + ": " + name + " must be finite, got " + std::to_string(v));
}

bool has_profile(const SynthEvent& e) {
    return !(std::isnan(e.profile_a) && std::isnan(e.profile_b) && std::isnan(e.profile_c));
}

// Phi(z), the standard normal CDF, accurate in both tails.
double normal_cdf(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// The sampling times in [start, end]: [first, last) indices into the sorted times.
std::pair<std::size_t, std::size_t> times_in(const SynthEvent& e, const double* times, std::size_t m) {
    const double* first = std::lower_bound(times, times + m, e.start_ms);
    const double* last = std::upper_bound(first, times + m, e.end_ms);
    return {static_cast<std::size_t>(first - times), static_cast<std::size_t>(last - times)};
}

} // namespace

void validate_synth_event(const SynthEvent& e) {
    require_finite(e, "start_ms", e.start_ms);
    require_finite(e, "end_ms", e.end_ms);
    if (e.end_ms < e.start_ms)
        throw InvalidArgument(describe(e) + ": end_ms " + std::to_string(e.end_ms) + " is before start_ms " +
                              std::to_string(e.start_ms) + " (negative duration)");
    if (e.type == EventType::Fixation) {
        require_finite(e, "centroid_x", e.centroid_x);
        require_finite(e, "centroid_y", e.centroid_y);
        require_finite(e, "sigma_x", e.sigma_x);
        require_finite(e, "sigma_y", e.sigma_y);
        if (e.sigma_x < 0 || e.sigma_y < 0)
            throw InvalidArgument(describe(e) + ": sigma must not be negative, got " +
                                  std::to_string(std::min(e.sigma_x, e.sigma_y)));
        return;
    }
    require_finite(e, "start_x", e.start_x);
    require_finite(e, "start_y", e.start_y);
    require_finite(e, "end_x", e.end_x);
    require_finite(e, "end_y", e.end_y);
    if (!has_profile(e))
        return;
    require_finite(e, "profile_a", e.profile_a);
    require_finite(e, "profile_b", e.profile_b);
    require_finite(e, "profile_c", e.profile_c);
    if (e.profile_c <= 0)
        throw InvalidArgument(describe(e) + ": profile_c must be positive, got " +
                              std::to_string(e.profile_c));
}

std::size_t synth_sample_count(const SynthEvent* events, std::size_t n, const double* times, std::size_t m,
                               std::size_t limit, const char* limit_name) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto [first, last] = times_in(events[i], times, m);
        total += last - first; // at most n * m < 2^64: both are bounded by PostgreSQL's 1 GB values
        if (total > limit)
            throw LimitExceeded("the synthesised stream would have more than " + std::to_string(limit) +
                                " samples (" + limit_name + ")");
    }
    return total;
}

double saccade_progress(const SynthEvent& e, double tau) {
    const double duration = e.end_ms - e.start_ms;
    if (duration <= 0)
        return 1;
    const double linear = std::clamp(tau / duration, 0.0, 1.0);
    if (!has_profile(e))
        return linear;
    const double b = e.profile_b, c = e.profile_c;
    const double origin = normal_cdf(-b / c);
    const double mass = normal_cdf((duration - b) / c) - origin;
    if (!(mass > 0) || !std::isfinite(mass)) // the profile has no resolvable mass inside the saccade
        return linear;
    return std::clamp((normal_cdf((tau - b) / c) - origin) / mass, 0.0, 1.0);
}

void synthesize_samples(const SynthEvent* events, std::size_t n, const double* times, std::size_t m, Rng& rng,
                        const CancelCheck& cancel, SynthSample* out) {
    std::size_t next = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const SynthEvent& e = events[i];
        const auto [first, last] = times_in(e, times, m);
        const bool fixation = e.type == EventType::Fixation;
        const bool spread_x = fixation && e.sigma_x > 0, spread_y = fixation && e.sigma_y > 0;
        // Built only when used: with_sigma refuses 0.
        const GridGaussian gx = GridGaussian::with_sigma(spread_x ? e.sigma_x : 1);
        const GridGaussian gy = GridGaussian::with_sigma(spread_y ? e.sigma_y : 1);
        for (std::size_t s = first; s < last; ++s, ++next) {
            cancel.poll(next);
            SynthSample& o = out[next];
            o.t_ms = times[s];
            o.event_index = e.event_index;
            o.type = e.type;
            if (fixation) {
                o.x = spread_x ? gx.release(e.centroid_x, rng) : e.centroid_x;
                o.y = spread_y ? gy.release(e.centroid_y, rng) : e.centroid_y;
            } else {
                const double f = saccade_progress(e, times[s] - e.start_ms);
                o.x = e.start_x + f * (e.end_x - e.start_x);
                o.y = e.start_y + f * (e.end_y - e.start_y);
            }
        }
    }
}

} // namespace gazepriv::core
