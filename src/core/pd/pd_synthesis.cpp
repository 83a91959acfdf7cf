#include "core/pd/pd_synthesis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/common/errors.hpp"
#include "core/noise/noise.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core::pd {

void validate(const SynthesisParams& p) {
    require_range("k", p.k, 1, 1000000000);
    if (!(std::isfinite(p.gamma) && p.gamma >= 1))
        throw InvalidArgument(
            "gamma must be a finite number of at least 1 (1 means equal probabilities), got " +
            format_number(p.gamma));
    require_range("bins", p.bins, 2, kMaxBins);
    if (p.model == ModelKind::Marginals && p.omega)
        throw InvalidArgument(
            "omega applies to model => 'seed_based' only (the marginals model resamples every "
            "feature)");
    if (p.model == ModelKind::SeedBased && !p.omega)
        throw InvalidArgument("model => 'seed_based' needs omega, the number of features to resample");
    if (p.omega)
        require_range("omega", *p.omega, 1, static_cast<std::int64_t>(kMaxFeatures));
    require_non_negative("alpha", p.alpha);
    if (!(std::isfinite(p.split) && p.split >= 0 && p.split < 1))
        throw InvalidArgument("split must be at least 0 and below 1, got " + format_number(p.split));
    if (p.max_attempts)
        require_range("max_attempts", *p.max_attempts, 1, kMaxAttempts);
    if (p.records)
        require_range("records", *p.records, 1, std::int64_t{1} << 40);
    if (p.model_epsilon)
        require_positive("model_epsilon", *p.model_epsilon);
    if (p.bounds.size() % 2 != 0)
        throw InvalidArgument("bounds must hold a (lower, upper) pair per feature");
    for (std::size_t j = 0; j < p.bounds.size(); j += 2)
        if (!(std::isfinite(p.bounds[j]) && std::isfinite(p.bounds[j + 1]) && p.bounds[j] < p.bounds[j + 1]))
            throw InvalidArgument("bounds of feature " + std::to_string(j / 2 + 1) +
                                  " must be finite with lower < upper, got [" + format_number(p.bounds[j]) +
                                  ", " + format_number(p.bounds[j + 1]) + "]");
    if (!p.randomized()) {
        if (p.t || p.target_delta)
            throw InvalidArgument("t and target_delta belong to the randomized test: pass epsilon0 too");
        return;
    }
    require_positive("epsilon0", *p.epsilon0);
    if (p.k < 2)
        throw InvalidArgument("the randomized test needs k >= 2 (its theorem takes 1 <= t < k), got " +
                              std::to_string(p.k));
    if (p.test != TestKind::Record)
        throw InvalidArgument(
            "the randomized test is the record-level test (Bindschaedler et al.'s theorem); "
            "test => 'identity' is deterministic only");
    if (!p.t && !p.target_delta)
        throw InvalidArgument(
            "the randomized test needs t (1 <= t < k) or target_delta (the composed delta to meet)");
    if (p.t)
        require_range("t", *p.t, 1, p.k - 1);
    if (p.target_delta)
        require_open_unit("target_delta", *p.target_delta);
    if (!p.model_epsilon)
        throw InvalidArgument("the randomized test's DP guarantee needs a model that does not depend on the "
                              "seeds: pass model_epsilon (the marginals are then DP)");
}

void validate_for_features(const SynthesisParams& p, std::size_t features) {
    if (features == 0)
        throw InvalidArgument("features must not be empty");
    if (features > kMaxFeatures)
        throw LimitExceeded("at most " + std::to_string(kMaxFeatures) + " features are supported, got " +
                            std::to_string(features));
    if (p.omega && static_cast<std::size_t>(*p.omega) > features)
        throw InvalidArgument("omega must be between 1 and the number of features (" +
                              std::to_string(features) + "), got " + std::to_string(*p.omega));
    if (p.model == ModelKind::SeedBased && p.resample == Resample::Random && features > kMaxRandomFeatures)
        throw InvalidArgument("resample => 'random' supports at most " + std::to_string(kMaxRandomFeatures) +
                              " features, got " + std::to_string(features) + "; use resample => 'last'");
    if (!p.bounds.empty() && p.bounds.size() != 2 * features)
        throw InvalidArgument(
            "bounds must have one (lower, upper) pair per feature: " + std::to_string(features) +
            " features, got " + std::to_string(p.bounds.size() / 2));
}

std::size_t largest_task(const FeatureRows& input) {
    std::vector<std::size_t> per_task;
    for (std::size_t r = 0; r < input.rows; ++r) {
        const auto t = static_cast<std::size_t>(input.task[r]);
        if (t >= per_task.size())
            per_task.resize(t + 1, 0);
        ++per_task[t];
    }
    return per_task.empty() ? 0 : *std::max_element(per_task.begin(), per_task.end());
}

namespace {

// One task's synthesis: binning, model, seed index, slots.
class TaskSynthesis {
public:
    TaskSynthesis(const FeatureRows& input, const SynthesisParams& params, Rng& rng,
                  const CancelCheck& cancel, const Progress& progress, std::uint64_t total_slots)
        : in_(input), p_(params), rng_(rng), cancel_(cancel), progress_(progress), total_slots_(total_slots),
          m_(input.features), stride_(code_stride(m_)), log_gamma_(std::log(params.gamma)) {}

    // rows: the task's input rows, sorted by participant then input order.
    void run(const std::vector<std::size_t>& rows, SynthesisOutput& out) {
        bin(rows);
        std::vector<std::size_t> seeds = rows, learners;
        if (p_.split > 0) { // a uniformly random subset of floor(split n) records only learns the model
            for (std::size_t i = seeds.size(); i > 1; --i)
                std::swap(seeds[i - 1], seeds[rng_.uniform_below(i)]);
            const auto n_learn =
                static_cast<std::size_t>(std::floor(p_.split * static_cast<double>(rows.size())));
            learners.assign(seeds.begin(), seeds.begin() + static_cast<std::ptrdiff_t>(n_learn));
            seeds.erase(seeds.begin(), seeds.begin() + static_cast<std::ptrdiff_t>(n_learn));
            std::sort(seeds.begin(), seeds.end(), [&](std::size_t a, std::size_t b) {
                return in_.participant[a] != in_.participant[b] ? in_.participant[a] < in_.participant[b]
                                                                : a < b;
            });
        }
        if (seeds.empty())
            return;
        std::vector<std::uint8_t> seed_codes = encode(seeds);
        std::vector<std::int32_t> seed_people(seeds.size());
        for (std::size_t i = 0; i < seeds.size(); ++i)
            seed_people[i] = in_.participant[seeds[i]];

        Marginals marginals(bins_);
        if (p_.split > 0) {
            const std::vector<std::uint8_t> learner_codes = encode(learners);
            marginals.add_rows(learner_codes.data(), stride_, learners.size());
        } else {
            marginals.add_rows(seed_codes.data(), stride_, seeds.size());
        }
        if (p_.model_epsilon) // one record changes one count per feature: L1 sensitivity m
            marginals.add_noise(static_cast<double>(m_) / *p_.model_epsilon, rng_);
        marginals.finish(p_.alpha);
        const Model model(p_.model, p_.resample, static_cast<std::size_t>(p_.omega.value_or(0)), marginals);
        const SeedIndex index(model, seed_codes.data(), stride_, seed_people.data(), seeds.size());
        CandidateScorer scorer(model);

        std::vector<std::uint8_t> y(stride_, 0);
        const std::size_t need_deterministic = p_.test == TestKind::Record ? p_.k : p_.k - 1;
        const IntegerLaplace threshold_noise(p_.randomized() ? 1 / *p_.epsilon0 : 1);
        const int max_attempts = p_.attempts();
        const std::size_t slots =
            p_.records ? std::min(seeds.size(), static_cast<std::size_t>(*p_.records)) : seeds.size();
        for (std::size_t slot = 0; slot < slots; ++slot) {
            cancel_.poll(slot);
            progress_("synthesizing", slots_done_++, total_slots_);
            int attempts = 0;
            bool passed = false;
            while (!passed && attempts < max_attempts) {
                ++attempts;
                const std::size_t seed = p_.randomized() ? rng_.uniform_below(seeds.size()) : slot;
                model.generate(index.row(seed), y.data(), rng_);
                std::int64_t need = static_cast<std::int64_t>(need_deterministic);
                if (p_.randomized()) // pass iff k' >= k + Z, Z ~ discrete Laplace(1 / epsilon0), fresh per
                                     // candidate
                    need = static_cast<std::int64_t>(p_.k) + threshold_noise(rng_);
                passed = need <= 0 || index.count(scorer, y.data(), seed, p_.test, log_gamma_,
                                                  static_cast<std::size_t>(need),
                                                  cancel_) >= static_cast<std::size_t>(need);
                // Every candidate of this seed would get the same k' and the same fixed threshold.
                if (!passed && !p_.randomized() && index.count_fixed_per_seed())
                    break;
            }
            if (!passed && !p_.include_failed)
                continue;
            const std::size_t o = out.count++;
            out.source_row[o] = seeds[slot];
            out.attempts[o] = attempts;
            double* values = out.features + o * m_;
            for (std::size_t j = 0; j < m_; ++j)
                values[j] = passed ? bins_[j].value(y[j], rng_) : std::numeric_limits<double>::quiet_NaN();
        }
    }

private:
    void bin(const std::vector<std::size_t>& rows) {
        bins_.clear();
        for (std::size_t j = 0; j < m_; ++j) {
            double lo, hi;
            if (!p_.bounds.empty()) {
                lo = p_.bounds[2 * j];
                hi = p_.bounds[2 * j + 1];
            } else { // the task's data range (non-private)
                lo = std::numeric_limits<double>::infinity();
                hi = -lo;
                for (std::size_t r : rows) {
                    lo = std::min(lo, in_.values[r * m_ + j]);
                    hi = std::max(hi, in_.values[r * m_ + j]);
                }
            }
            bins_.push_back(bins_over(lo, hi, p_.bins));
        }
    }

    std::vector<std::uint8_t> encode(const std::vector<std::size_t>& rows) const {
        std::vector<std::uint8_t> codes(rows.size() * stride_, 0);
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (std::size_t j = 0; j < m_; ++j)
                codes[i * stride_ + j] = bins_[j].code(in_.values[rows[i] * m_ + j]);
        return codes;
    }

    const FeatureRows& in_;
    const SynthesisParams& p_;
    Rng& rng_;
    const CancelCheck& cancel_;
    const Progress& progress_;
    std::uint64_t total_slots_, slots_done_ = 0;
    std::size_t m_;
    std::size_t stride_;
    double log_gamma_;
    std::vector<FeatureBins> bins_;
};

} // namespace

// The slots of a task of n records: its seeds (the records not set aside to learn), at most `records`.
std::uint64_t task_slots(const SynthesisParams& p, std::size_t n) {
    const auto learners =
        p.split > 0 ? static_cast<std::size_t>(std::floor(p.split * static_cast<double>(n))) : 0;
    const std::size_t seeds = n - learners;
    return p.records ? std::min(seeds, static_cast<std::size_t>(*p.records)) : seeds;
}

void synthesize(const FeatureRows& input, const SynthesisParams& params, Rng& rng, const CancelCheck& cancel,
                SynthesisOutput& output, const Progress& progress) {
    validate(params);
    validate_for_features(params, input.features);
    output.count = 0;
    std::vector<std::size_t> order(input.rows);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (input.task[a] != input.task[b])
            return input.task[a] < input.task[b];
        return input.participant[a] < input.participant[b];
    });
    std::vector<std::pair<std::size_t, std::size_t>> tasks; // [begin, end) in order
    std::uint64_t total_slots = 0;
    for (std::size_t begin = 0; begin < order.size();) {
        std::size_t end = begin;
        while (end < order.size() && input.task[order[end]] == input.task[order[begin]])
            ++end;
        tasks.emplace_back(begin, end);
        total_slots += task_slots(params, end - begin);
        begin = end;
    }
    TaskSynthesis task(input, params, rng, cancel, progress, total_slots);
    std::vector<std::size_t> rows;
    for (const auto& [begin, end] : tasks) {
        rows.assign(order.begin() + static_cast<std::ptrdiff_t>(begin),
                    order.begin() + static_cast<std::ptrdiff_t>(end));
        task.run(rows, output);
    }
    progress("synthesizing", total_slots, total_slots);
}

} // namespace gazepriv::core::pd
