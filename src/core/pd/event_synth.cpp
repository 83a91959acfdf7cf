#include "core/pd/event_synth.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/json.hpp"
#include "core/common/validate.hpp"
#include "core/pd/pd_fixations.hpp"
#include "core/pd/pd_privacy_check.hpp"
#include "core/pd/pd_synthesis.hpp"

namespace gazepriv::core::pd {

namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;

// The grid times j * period within [start, end]: j from first to first + count - 1.
struct GridSpan {
    double first = 0;
    std::size_t count = 0;
};

GridSpan grid_span(double start, double end, double period) {
    const double j0 = std::ceil(start / period), j1 = std::floor(end / period);
    return j1 >= j0 ? GridSpan{j0, static_cast<std::size_t>(j1 - j0 + 1)} : GridSpan{j0, 0};
}

std::string event_name(const SynthEventRows& in, std::size_t r) {
    return "event " + std::to_string(in.event_index[r]);
}

SaccadeShape shape_of(const SynthEventRows& in, std::size_t r) {
    return {in.amplitude[r], in.end_ms[r] - in.start_ms[r], in.profile_a[r], in.profile_b[r],
            in.profile_c[r]};
}

// The encoder's Normals of every saccade, ready for scoring: mu, 1 / sigma and the log normaliser.
struct EncodedSaccades {
    std::size_t latent = 0;
    std::vector<double> mu, inv_sigma, log_norm; // rows x latent, rows x latent, rows

    double log_prob(std::size_t i, const double* y) const {
        const double* m = &mu[i * latent];
        const double* s = &inv_sigma[i * latent];
        double q = 0;
        for (std::size_t j = 0; j < latent; ++j) {
            const double u = (y[j] - m[j]) * s[j];
            q += u * u;
        }
        return log_norm[i] - 0.5 * q;
    }
};

} // namespace

void validate(const EventSynthParams& p) {
    require_range("k", p.k, 1, 1000000000);
    if (!(std::isfinite(p.gamma) && p.gamma >= 1))
        throw InvalidArgument("gamma must be a finite number of at least 1 (1 means equal densities), got " +
                              format_number(p.gamma));
    require_range("max_attempts", p.max_attempts, 1, kMaxAttempts);
    if (!(std::isfinite(p.sampling_rate_hz) && p.sampling_rate_hz > 0 && p.sampling_rate_hz <= 1e6))
        throw InvalidArgument("sampling_rate_hz must be positive and at most 1000000, got " +
                              format_number(p.sampling_rate_hz));
}

void validate_rows(const SynthEventRows& in, const EventSynthParams& p, std::size_t participants) {
    if (static_cast<std::size_t>(p.k) > participants)
        throw InvalidArgument("k must be at most the number of participants (" +
                              std::to_string(participants) + "), got " + std::to_string(p.k));
    for (std::size_t r = 0; r < in.rows; ++r) {
        const std::string name = event_name(in, r);
        if (!(std::isfinite(in.start_ms[r]) && std::isfinite(in.end_ms[r])))
            throw InvalidArgument(name + ": start_ms and end_ms must be finite, got " +
                                  format_number(in.start_ms[r]) + " and " + format_number(in.end_ms[r]));
        if (!(in.end_ms[r] > in.start_ms[r]))
            throw InvalidArgument(name + ": duration must be positive, got " +
                                  format_number(in.end_ms[r] - in.start_ms[r]) + " ms");
        if (in.type[r] == SynthEventType::Saccade) {
            validate_saccade(shape_of(in, r), name.c_str());
            continue;
        }
        for (const double* v : {in.centroid_x, in.centroid_y})
            if (!std::isfinite(v[r]))
                throw InvalidArgument(name + ": centroid must be finite, got " + format_number(v[r]));
        for (const double* v : {in.sigma_x, in.sigma_y})
            if (!(std::isfinite(v[r]) && v[r] > 0))
                throw InvalidArgument(name + ": sigma must be positive and finite, got " +
                                      format_number(v[r]));
    }
}

ReleaseCost event_synth_cost(const EventSynthParams& p, const std::string& model) {
    validate(p);
    ReleaseCost cost;
    cost.guarantee = Guarantee::PlausibleDeniability;
    cost.mechanism = "event_synth_pd";
    JsonObject json;
    json.add("k", static_cast<std::int64_t>(p.k));
    json.add("gamma", p.gamma);
    json.add("max_attempts", static_cast<std::int64_t>(p.max_attempts));
    json.add("sampling_rate_hz", p.sampling_rate_hz);
    json.add("model", model);
    json.add("test", "identity (event)");
    cost.parameters_json = json.str();
    return cost;
}

std::size_t event_synth_capacity(const SynthEventRows& in, double rate, std::size_t limit,
                                 const char* limit_name) {
    const double period = 1000 / rate;
    std::size_t total = 0;
    for (std::size_t r = 0; r < in.rows; ++r) {
        const double j0 = std::ceil(in.start_ms[r] / period), j1 = std::floor(in.end_ms[r] / period);
        if (j1 - j0 + 1 > static_cast<double>(limit - total))
            throw LimitExceeded("the events span more than " + std::to_string(limit) + " sampling times (" +
                                limit_name + ")");
        const std::size_t count = grid_span(in.start_ms[r], in.end_ms[r], period).count;
        if (in.type[r] == SynthEventType::Fixation && count > static_cast<std::size_t>(kMaxFixationSamples))
            throw LimitExceeded(event_name(in, r) + ": a fixation may span at most " +
                                std::to_string(kMaxFixationSamples) + " sampling times, got " +
                                std::to_string(count));
        total += count;
    }
    return total;
}

double profile_progress(const double* profile, int bins, double duration, double tau) {
    double total = 0, covered = 0;
    const double width = duration / bins;
    for (int j = 0; j < bins; ++j) {
        const double v = std::max(profile[j], 0.0);
        total += v;
        const double inside = std::clamp(tau - j * width, 0.0, width) / width;
        covered += v * inside;
    }
    if (!(total > 0))
        return std::clamp(tau / duration, 0.0, 1.0);
    return std::clamp(covered / total, 0.0, 1.0);
}

void synthesize_events(const SynthEventRows& in, const SaccadeCvae& model, const EventSynthParams& params,
                       Rng& rng, const CancelCheck& cancel, EventSynthOutput& out) {
    validate(params);
    out.count = 0;
    const double period = 1000 / params.sampling_rate_hz;
    std::vector<GridSpan> span(in.rows);
    for (std::size_t r = 0; r < in.rows; ++r)
        span[r] = grid_span(in.start_ms[r], in.end_ms[r], period);

    // Fixations: pd_fixations over the fixations with at least one sampling time.
    std::vector<std::size_t> fix_rows;
    for (std::size_t r = 0; r < in.rows; ++r)
        if (in.type[r] == SynthEventType::Fixation && span[r].count > 0)
            fix_rows.push_back(r);
    const std::size_t nf = fix_rows.size();
    std::vector<std::int32_t> f_participant(nf), f_task(nf), f_samples(nf);
    std::vector<double> f_mx(nf), f_my(nf), f_sx(nf), f_sy(nf);
    std::size_t fix_total = 0;
    for (std::size_t i = 0; i < nf; ++i) {
        const std::size_t r = fix_rows[i];
        f_participant[i] = in.participant[r];
        f_task[i] = in.task[r];
        f_samples[i] = static_cast<std::int32_t>(span[r].count); // <= kMaxFixationSamples (capacity)
        f_mx[i] = in.centroid_x[r];
        f_my[i] = in.centroid_y[r];
        f_sx[i] = in.sigma_x[r];
        f_sy[i] = in.sigma_y[r];
        fix_total += static_cast<std::size_t>(f_samples[i]);
    }
    const FixationRows fixations{nf,          f_participant.data(), f_task.data(), f_mx.data(),
                                 f_my.data(), f_sx.data(),          f_sy.data(),   f_samples.data()};
    std::vector<std::size_t> fo_row(nf), fo_offset(nf);
    std::vector<std::int32_t> fo_attempts(nf);
    const std::unique_ptr<bool[]> fo_passed_store(new bool[nf + 1]);
    bool* fo_passed = fo_passed_store.get();
    std::vector<double> fx(fix_total), fy(fix_total);
    FixationParams fp;
    fp.k = params.k;
    fp.gamma = params.gamma;
    fp.max_attempts = params.max_attempts;
    fp.include_failed = true;
    FixationOutput fo{fo_row.data(), fo_attempts.data(), fo_passed, fo_offset.data(),
                      fx.data(),     fy.data(),          0};
    synthesize_fixations(fixations, fp, rng, cancel, fo);
    // Per input row: the fixation's result (index into fo), or none.
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> fix_result(in.rows, kNone);
    for (std::size_t o = 0; o < fo.count; ++o)
        fix_result[fix_rows[fo_row[o]]] = o;

    // Saccades: encode every one; group by task, participant.
    const auto latent = static_cast<std::size_t>(model.latent());
    const int bins = model.profile_length();
    std::vector<std::size_t> sac_rows;
    for (std::size_t r = 0; r < in.rows; ++r)
        if (in.type[r] == SynthEventType::Saccade)
            sac_rows.push_back(r);
    std::sort(sac_rows.begin(), sac_rows.end(), [&](std::size_t a, std::size_t b) {
        if (in.task[a] != in.task[b])
            return in.task[a] < in.task[b];
        if (in.participant[a] != in.participant[b])
            return in.participant[a] < in.participant[b];
        return a < b;
    });
    const std::size_t ns = sac_rows.size();
    EncodedSaccades enc;
    enc.latent = latent;
    enc.mu.resize(ns * latent);
    enc.inv_sigma.resize(ns * latent);
    enc.log_norm.resize(ns);
    std::vector<double> sigma(ns * latent);
    std::vector<std::size_t> sac_index(in.rows, kNone); // input row -> position in sac_rows
    for (std::size_t i = 0; i < ns; ++i) {
        cancel.poll(i);
        const std::size_t r = sac_rows[i];
        sac_index[r] = i;
        model.encode(shape_of(in, r), &enc.mu[i * latent], &sigma[i * latent]);
        double norm = -static_cast<double>(latent) * kHalfLog2Pi;
        for (std::size_t j = 0; j < latent; ++j) {
            enc.inv_sigma[i * latent + j] = 1 / sigma[i * latent + j];
            norm -= std::log(sigma[i * latent + j]);
        }
        enc.log_norm[i] = norm;
    }
    // Runs of one participant within a task, and the task's runs.
    std::vector<std::size_t> runs;
    std::vector<std::size_t> task_runs_begin, task_runs_end;
    std::vector<std::size_t> task_of_pos(ns);
    for (std::size_t i = 0; i < ns; ++i) {
        const std::size_t r = sac_rows[i];
        const bool new_task = i == 0 || in.task[r] != in.task[sac_rows[i - 1]];
        if (new_task) {
            if (!task_runs_begin.empty())
                task_runs_end.push_back(runs.size());
            task_runs_begin.push_back(runs.size());
        }
        if (new_task || in.participant[r] != in.participant[sac_rows[i - 1]])
            runs.push_back(i);
        task_of_pos[i] = task_runs_begin.size() - 1;
    }
    task_runs_end.push_back(runs.size());
    runs.push_back(ns);

    // Emission order: participant, task, start time, input order.
    std::vector<std::size_t> order(in.rows);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (in.participant[a] != in.participant[b])
            return in.participant[a] < in.participant[b];
        if (in.task[a] != in.task[b])
            return in.task[a] < in.task[b];
        if (in.start_ms[a] != in.start_ms[b])
            return in.start_ms[a] < in.start_ms[b];
        return a < b;
    });

    const double log_gamma = std::log(params.gamma);
    const std::size_t need = static_cast<std::size_t>(params.k - 1);
    std::vector<double> y(latent), profile(static_cast<std::size_t>(bins));
    std::size_t written = 0, work = 0;
    // The released fixations' sample means of the current (participant, task), by start time.
    struct Anchor {
        double start_ms, x, y;
    };
    std::vector<Anchor> anchors;
    for (std::size_t at = 0; at < order.size();) {
        std::size_t end = at;
        while (end < order.size() && in.participant[order[end]] == in.participant[order[at]] &&
               in.task[order[end]] == in.task[order[at]])
            ++end;
        anchors.clear();
        for (std::size_t i = at; i < end; ++i) {
            const std::size_t o = fix_result[order[i]];
            if (o == kNone || !fo_passed[o])
                continue;
            const std::size_t t = span[order[i]].count, off = fo_offset[o];
            double mx = 0, my = 0;
            for (std::size_t s = 0; s < t; ++s) {
                mx += fx[off + s];
                my += fy[off + s];
            }
            anchors.push_back(
                {in.start_ms[order[i]], mx / static_cast<double>(t), my / static_cast<double>(t)});
        }
        for (std::size_t i = at; i < end; ++i) {
            const std::size_t r = order[i];
            const GridSpan g = span[r];
            if (g.count == 0)
                continue;
            if (in.type[r] == SynthEventType::Fixation) {
                const std::size_t o = fix_result[r];
                if (!fo_passed[o] && !params.include_failed)
                    continue;
                const std::size_t e = out.count++;
                out.source_row[e] = r;
                out.attempts[e] = fo_attempts[o];
                out.passed[e] = fo_passed[o];
                out.first[e] = written;
                out.samples[e] = fo_passed[o] ? g.count : 0;
                for (std::size_t s = 0; s < out.samples[e]; ++s, ++written) {
                    out.t_ms[written] = (g.first + static_cast<double>(s)) * period;
                    out.x[written] = fx[fo_offset[o] + s];
                    out.y[written] = fy[fo_offset[o] + s];
                }
                continue;
            }
            const std::size_t seed = sac_index[r];
            const std::size_t task_index = task_of_pos[seed];
            const double* mu = &enc.mu[seed * latent];
            const double* sd = &sigma[seed * latent];
            int attempts = 0;
            bool passed = false;
            while (!passed && attempts < params.max_attempts) {
                ++attempts;
                cancel.poll(++work);
                for (std::size_t j = 0; j < latent; ++j)
                    y[j] = mu[j] + sd[j] * standard_normal(rng);
                const BandMatcher in_band(enc.log_prob(seed, y.data()), log_gamma);
                std::size_t found = 0;
                for (std::size_t run = task_runs_begin[task_index];
                     run < task_runs_end[task_index] && found < need; ++run) {
                    if (in.participant[sac_rows[runs[run]]] == in.participant[r])
                        continue;
                    for (std::size_t i2 = runs[run]; i2 < runs[run + 1]; ++i2)
                        if (in_band(enc.log_prob(i2, y.data()))) {
                            ++found; // this participant counts once
                            break;
                        }
                }
                passed = found >= need;
            }
            if (!passed && !params.include_failed)
                continue;
            // A saccade needs a released fixation on each side.
            const Anchor* before = nullptr;
            const Anchor* after = nullptr;
            for (const Anchor& a : anchors) {
                if (a.start_ms < in.start_ms[r])
                    before = &a;
                else if (after == nullptr)
                    after = &a;
            }
            const bool anchored = before != nullptr && after != nullptr;
            if (passed && !anchored && !params.include_failed)
                continue;
            const std::size_t e = out.count++;
            out.source_row[e] = r;
            out.attempts[e] = attempts;
            out.passed[e] = passed;
            out.first[e] = written;
            out.samples[e] = passed && anchored ? g.count : 0;
            if (out.samples[e] == 0)
                continue;
            model.decode(y.data(), shape_of(in, r), profile.data());
            const double duration = in.end_ms[r] - in.start_ms[r];
            for (std::size_t s = 0; s < g.count; ++s, ++written) {
                const double t = (g.first + static_cast<double>(s)) * period;
                const double f = profile_progress(profile.data(), bins, duration, t - in.start_ms[r]);
                out.t_ms[written] = t;
                out.x[written] = before->x + f * (after->x - before->x);
                out.y[written] = before->y + f * (after->y - before->y);
            }
        }
        at = end;
    }
}

} // namespace gazepriv::core::pd
