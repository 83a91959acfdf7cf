#include "core/pd/pd_fixations.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/noise/noise.hpp"
#include "core/pd/pd_privacy_check.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core::pd {

namespace {

constexpr double kLog2Pi = 1.8378770664093454835606594728112;

// What the test needs of a fixation: precomputed so that scoring a candidate against it is O(1).
struct Scoring {
    double mu_x, mu_y;
    double log_norm;       // -t ln(2 pi) - t (ln sigma_x + ln sigma_y)
    double half_inv_var_x; // 1 / (2 sigma_x^2)
    double half_inv_var_y;
};

Scoring make_scoring(double mu_x, double mu_y, double sigma_x, double sigma_y, std::int32_t samples) {
    const double t = samples;
    return {mu_x, mu_y, -t * kLog2Pi - t * (std::log(sigma_x) + std::log(sigma_y)), 0.5 / (sigma_x * sigma_x),
            0.5 / (sigma_y * sigma_y)};
}

Scoring scoring_of(const FixationRows& in, std::size_t r) {
    return make_scoring(in.mu_x[r], in.mu_y[r], in.sigma_x[r], in.sigma_y[r], in.samples[r]);
}

double score(const SampleStats& s, const Scoring& f) {
    const double dx = s.mean_x - f.mu_x, dy = s.mean_y - f.mu_y;
    return f.log_norm - (s.ss_x + s.t * dx * dx) * f.half_inv_var_x -
           (s.ss_y + s.t * dy * dy) * f.half_inv_var_y;
}

} // namespace

void validate(const FixationParams& p) {
    require_range("k", p.k, 1, 1000000000);
    if (!(std::isfinite(p.gamma) && p.gamma >= 1))
        throw InvalidArgument("gamma must be a finite number of at least 1 (1 means equal densities), got " +
                              format_number(p.gamma));
    require_range("max_attempts", p.max_attempts, 1, 1000000);
}

ReleaseCost fixations_cost(const FixationParams& p) {
    validate(p);
    ReleaseCost cost;
    cost.guarantee = Guarantee::PlausibleDeniability;
    cost.mechanism = "pd_synthesize_fixations";
    cost.parameters_json = "{\"k\": " + std::to_string(p.k) + ", \"gamma\": " + format_number(p.gamma) +
                           ", \"max_attempts\": " + std::to_string(p.max_attempts) +
                           ", \"test\": \"identity (event)\"}";
    return cost;
}

std::size_t total_samples(const FixationRows& in, std::size_t limit) {
    std::size_t total = 0;
    for (std::size_t r = 0; r < in.rows; ++r) {
        if (in.samples[r] < 1 || in.samples[r] > kMaxFixationSamples)
            throw InvalidArgument("samples must be between 1 and " + std::to_string(kMaxFixationSamples) +
                                  ", got " + std::to_string(in.samples[r]));
        total += static_cast<std::size_t>(in.samples[r]);
    }
    if (total > limit)
        throw LimitExceeded("the fixations ask for " + std::to_string(total) + " samples in all, above " +
                            std::to_string(limit));
    return total;
}

SampleStats sample_stats(const double* x, const double* y, std::int32_t t) {
    SampleStats s;
    s.t = t;
    for (std::int32_t i = 0; i < t; ++i) {
        s.mean_x += x[i];
        s.mean_y += y[i];
    }
    s.mean_x /= t;
    s.mean_y /= t;
    for (std::int32_t i = 0; i < t; ++i) {
        s.ss_x += (x[i] - s.mean_x) * (x[i] - s.mean_x);
        s.ss_y += (y[i] - s.mean_y) * (y[i] - s.mean_y);
    }
    return s;
}

double fixation_log_density(const SampleStats& s, double mu_x, double mu_y, double sigma_x, double sigma_y) {
    return score(s, make_scoring(mu_x, mu_y, sigma_x, sigma_y, s.t));
}

void synthesize_fixations(const FixationRows& in, const FixationParams& params, Rng& rng,
                          const CancelCheck& cancel, FixationOutput& out) {
    validate(params);
    out.count = 0;
    // Candidates are compared only with fixations of the same task and the same t: sort by (task, t,
    // participant) and keep the boundaries of each (task, t) group and of each participant's run inside it.
    std::vector<std::size_t> order(in.rows);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (in.task[a] != in.task[b])
            return in.task[a] < in.task[b];
        if (in.samples[a] != in.samples[b])
            return in.samples[a] < in.samples[b];
        if (in.participant[a] != in.participant[b])
            return in.participant[a] < in.participant[b];
        return a < b;
    });
    std::vector<Scoring> scoring(in.rows);
    std::vector<std::size_t> group_of(in.rows); // index into groups of the row's (task, t) group
    std::vector<std::size_t> runs;              // starts of participant runs, in sorted order
    std::vector<std::size_t> groups;            // group g's runs are runs[groups[g] .. groups[g + 1])
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::size_t r = order[i];
        scoring[i] = scoring_of(in, r);
        const bool new_group =
            i == 0 || in.task[r] != in.task[order[i - 1]] || in.samples[r] != in.samples[order[i - 1]];
        if (new_group)
            groups.push_back(runs.size());
        if (new_group || in.participant[r] != in.participant[order[i - 1]])
            runs.push_back(i);
        group_of[r] = groups.size() - 1;
    }
    groups.push_back(runs.size());
    runs.push_back(order.size());

    const double log_gamma = std::log(params.gamma);
    const std::size_t need = static_cast<std::size_t>(params.k - 1);
    std::size_t offset = 0, work = 0;
    for (std::size_t r = 0; r < in.rows; ++r) {
        const std::int32_t t = in.samples[r];
        const GridGaussian gx = GridGaussian::with_sigma(in.sigma_x[r]);
        const GridGaussian gy = GridGaussian::with_sigma(in.sigma_y[r]);
        const Scoring own = scoring_of(in, r);
        double* xs = out.x + offset;
        double* ys = out.y + offset;
        int attempts = 0;
        bool passed = false;
        const std::size_t g = group_of[r];
        while (!passed && attempts < params.max_attempts) {
            ++attempts;
            cancel.poll(++work);
            for (std::int32_t s = 0; s < t; ++s) {
                xs[s] = gx.release(in.mu_x[r], rng);
                ys[s] = gy.release(in.mu_y[r], rng);
            }
            const SampleStats stats = sample_stats(xs, ys, t);
            const BandMatcher in_band(score(stats, own), log_gamma);
            std::size_t found = 0;
            for (std::size_t run = groups[g]; run < groups[g + 1] && found < need; ++run) {
                if (in.participant[order[runs[run]]] == in.participant[r])
                    continue;
                for (std::size_t i = runs[run]; i < runs[run + 1]; ++i)
                    if (in_band(score(stats, scoring[i]))) {
                        ++found; // this participant counts once
                        break;
                    }
            }
            passed = found >= need;
        }
        if (!passed && !params.include_failed)
            continue;
        const std::size_t o = out.count++;
        out.source_row[o] = r;
        out.attempts[o] = attempts;
        out.passed[o] = passed;
        out.offset[o] = offset;
        if (passed)
            offset += static_cast<std::size_t>(t);
    }
}

} // namespace gazepriv::core::pd
