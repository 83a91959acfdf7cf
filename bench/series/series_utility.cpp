// Utility of the time-series releases on real data, in the paper's setting (Bozkir et al. 2021, Fig. 7):
// 1 / |NMSE| per method (LPA, FPA, CFPA-32/64/128, DCFPA-32/64/128) across the per-feature epsilon grid
// {0.01, 0.05, 0.1, 0.5, 1} (and 10), on the project's 33 windowed features (datasets/hoppe_features.hpp:
// those of test/demo/hoppe_features.psql, 30 s windows every 0.5 s) of the 20 Hoppe 2018 participants, three
// recordings each (the way to the shop, the shop, the way back), as extracted (no repetition).
//
// Two settings:
//  - paper: the paper's choices, both NON-PRIVATE: empirical sensitivities (Eq. 7) and the NMSE-optimal
//    k per recording and feature (chosen among candidates with kSweepRuns releases each);
//  - strict: public clip bounds per feature (from the units and the extraction's parameters,
//    series/series_features.hpp) and the public k rule.
// |NMSE| is averaged over signals (participant x recording) and kRuns fresh releases per feature, then
// over features (as the paper's result files); utility = 1 / that average. Signals whose mean is 0 have
// no NMSE and are left out (counted). The baseline measured in the same run is the Exponential-DP
// baseline the papers compare against (corrected Laplace variant, empirical ranges; epsilon per feature).
// Writes bench/out/series_utility.csv for the plot (bench/series/series.sh draws it).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/series/exponential_dp.hpp"
#include "core/series/series.hpp"
#include "core/series/series_release.hpp"
#include "series/series_features.hpp"

using namespace gazepriv::core;
using namespace series_bench;

namespace {

constexpr int kRuns = 5;
constexpr int kSweepRuns = 2;
// The paper's per-feature grid, and 10 to show where chunking starts to pay.
const double kEpsilons[] = {0.01, 0.05, 0.1, 0.5, 1, 10};

// Mean |NMSE| per feature (and how many signals were left out for a zero mean).
struct Score {
    std::vector<double> sum;
    std::vector<std::size_t> count;
    std::vector<double> all; // every |NMSE|, for the median
    std::size_t undefined = 0;
    explicit Score(std::size_t features) : sum(features, 0), count(features, 0) {}
    void add(std::size_t f, const double* original, const double* released, std::size_t n) {
        const double e = std::fabs(nmse({original, n}, {released, n}));
        if (!std::isfinite(e)) {
            ++undefined;
            return;
        }
        sum[f] += e;
        ++count[f];
        all.push_back(e);
    }
    double median() {
        std::nth_element(all.begin(), all.begin() + all.size() / 2, all.end());
        return all[all.size() / 2];
    }
    double mean_over_features() const {
        double total = 0;
        std::size_t features = 0;
        for (std::size_t f = 0; f < sum.size(); ++f)
            if (count[f] > 0) {
                total += sum[f] / double(count[f]);
                ++features;
            }
        return total / double(features);
    }
};

// Feature f of a group, released alone into scratch storage (the other features are untouched).
SignalGroup scratch_for(const SignalGroup& group, std::size_t f, std::size_t features,
                        std::vector<double>& storage) {
    SignalGroup g;
    g.recording = group.recording;
    g.participants = group.participants;
    g.length = group.length;
    const std::size_t p = group.participants.size();
    storage.resize(p * group.length);
    g.signals.assign(features * p, nullptr);
    for (std::size_t q = 0; q < p; ++q) {
        g.signals[f * p + q] = storage.data() + q * group.length;
        std::copy(group.signal(f, q), group.signal(f, q) + group.length, g.signals[f * p + q]);
    }
    return g;
}

// Mean |NMSE| of releasing feature f of a group with k, over `runs` releases.
double feature_nmse(const PreparedSeries& prepared, const SeriesReleaseConfig& config, std::size_t g,
                    std::size_t f, std::size_t k, const std::vector<double>& sensitivity, int runs,
                    Rng& rng) {
    const SignalGroup& group = prepared.data.groups[g];
    Score score(prepared.data.features);
    std::vector<double> storage;
    for (int r = 0; r < runs; ++r) {
        SignalGroup scratch = scratch_for(group, f, prepared.data.features, storage);
        release_feature(scratch, f, config, prepared.plan, k, sensitivity, rng);
        for (std::size_t p = 0; p < group.participants.size(); ++p)
            score.add(f, group.signal(f, p), scratch.signal(f, p), group.length);
    }
    return score.count[f] > 0 ? score.sum[f] / double(score.count[f]) : INFINITY;
}

struct Result {
    double utility;        // 1 / (|NMSE| averaged over signals and runs, then features): the paper's
    double median_utility; // 1 / median |NMSE|: robust to the near-zero means that dominate the average
    std::size_t median_k;
    std::size_t undefined;
};

Result evaluate(const SeriesRows& rows, const Variant& v, double epsilon, bool paper, Rng& rng) {
    SeriesReleaseConfig config;
    config.method = v.method;
    config.epsilon = epsilon;
    config.chunk = is_chunked(v.method) ? v.chunk : 64;
    config.sensitivity = paper ? SensitivityMode::Empirical : SensitivityMode::Clipped;
    if (!paper)
        config.bounds = public_bounds(gazepriv::core::kFeatureCount);
    const PreparedSeries prepared = prepare_series_release(rows, config);
    const std::size_t features = prepared.data.features;
    Score score(features);
    std::vector<std::size_t> chosen;
    std::vector<double> storage;
    for (std::size_t g = 0; g < prepared.data.groups.size(); ++g) {
        const SignalGroup& group = prepared.data.groups[g];
        for (std::size_t f = 0; f < features; ++f) {
            const std::vector<double> sensitivity = series_sensitivities(config, prepared.plan, group, f);
            std::size_t k = prepared.plan.k[g];
            if (paper && v.method != SeriesMethod::Lpa) { // the NMSE-optimal k (non-private)
                double best = INFINITY;
                for (std::size_t candidate :
                     sweep_candidates(k_limit(v.method, group.length, config.chunk))) {
                    const double e =
                        feature_nmse(prepared, config, g, f, candidate, sensitivity, kSweepRuns, rng);
                    if (e < best) {
                        best = e;
                        k = candidate;
                    }
                }
            }
            chosen.push_back(k);
            for (int r = 0; r < kRuns; ++r) {
                SignalGroup scratch = scratch_for(group, f, features, storage);
                release_feature(scratch, f, config, prepared.plan, k, sensitivity, rng);
                for (std::size_t p = 0; p < group.participants.size(); ++p)
                    score.add(f, group.signal(f, p), scratch.signal(f, p), group.length);
            }
        }
    }
    std::sort(chosen.begin(), chosen.end());
    return {1 / score.mean_over_features(), 1 / score.median(), chosen[chosen.size() / 2],
            score.undefined / kRuns};
}

std::pair<double, double> exponential_dp_utility(const SeriesRows& rows, double epsilon, Rng& rng) {
    ExponentialDpConfig config;
    config.epsilon = epsilon;
    config.sensitivity = SensitivityMode::Empirical;
    const PreparedExponentialDp original = prepare_exponential_dp(rows, config);
    Score score(original.data.features);
    for (int r = 0; r < kRuns; ++r) {
        PreparedExponentialDp released = original;
        release_exponential_dp(released, config, rng);
        for (std::size_t g = 0; g < original.data.groups.size(); ++g) {
            const SignalGroup& a = original.data.groups[g];
            const SignalGroup& b = released.data.groups[g];
            for (std::size_t f = 0; f < original.data.features; ++f)
                for (std::size_t p = 0; p < a.participants.size(); ++p)
                    score.add(f, a.signal(f, p), b.signal(f, p), a.length);
        }
    }
    return {1 / score.mean_over_features(), 1 / score.median()};
}

} // namespace

int main() {
    const auto start = std::chrono::steady_clock::now();
    const FeatureRows table =
        as_extracted(gazepriv::bench::hoppe_feature_windows(gazepriv::bench::load_hoppe_recordings()));
    const SeriesRows rows = rows_of(table);
    std::printf("Hoppe 2018, paper setting: %zu windows (30 s every 0.5 s) of %zu participants x 3 tasks "
                "(%zu recordings with windows), the %zu features of hoppe_features.psql; %d releases per "
                "point (%d per k candidate in the sweep)\n\n",
                table.rows(), table.participant_names.size(), table.recordings_with_rows(), table.width,
                kRuns, kSweepRuns);

    const Variant variants[] = {
        {"LPA", SeriesMethod::Lpa, 0},         {"FPA", SeriesMethod::Fpa, 0},
        {"CFPA-32", SeriesMethod::Cfpa, 32},   {"CFPA-64", SeriesMethod::Cfpa, 64},
        {"CFPA-128", SeriesMethod::Cfpa, 128}, {"DCFPA-32", SeriesMethod::Dcfpa, 32},
        {"DCFPA-64", SeriesMethod::Dcfpa, 64}, {"DCFPA-128", SeriesMethod::Dcfpa, 128}};
    Rng rng(Rng::KernelEntropy{});
    std::FILE* csv = std::fopen("bench/out/series_utility.csv", "w");
    if (csv != nullptr)
        std::fprintf(csv, "setting,method,epsilon,utility,median_utility,median_k\n");
    for (const bool paper : {true, false}) {
        std::printf("%s\n\n",
                    paper ? "paper setting (NON-PRIVATE: empirical Eq. 7 sensitivities, NMSE-optimal k)"
                          : "strict setting (public clip bounds, public k rule)");
        std::printf(
            "utility = 1 / |NMSE| averaged (paper) and, in brackets, 1 / median |NMSE|\n\n| method |");
        for (double e : kEpsilons)
            std::printf(" eps %g |", e);
        std::printf(" median k at eps 0.01 / 1 / 10 |\n|---|");
        for (std::size_t i = 0; i < std::size(kEpsilons); ++i)
            std::printf("---:|");
        std::printf("---:|\n");
        std::size_t undefined = 0;
        for (const Variant& v : variants) {
            std::printf("| %s |", v.name.c_str());
            std::vector<std::size_t> ks;
            for (double e : kEpsilons) {
                const Result r = evaluate(rows, v, e, paper, rng);
                std::printf(" %.2g (%.2g) |", r.utility, r.median_utility);
                if (csv != nullptr)
                    std::fprintf(csv, "%s,%s,%g,%.6g,%.6g,%zu\n", paper ? "paper" : "strict", v.name.c_str(),
                                 e, r.utility, r.median_utility, r.median_k);
                if (e == 0.01 || e == 1 || e == 10)
                    ks.push_back(r.median_k);
                undefined = r.undefined;
            }
            if (v.method == SeriesMethod::Lpa)
                std::printf(" - |\n");
            else
                std::printf(" %zu / %zu / %zu |\n", ks[0], ks[1], ks[2]);
            std::fflush(stdout);
        }
        std::printf("| baseline: Exponential-DP, Laplace, empirical ranges |");
        for (double e : kEpsilons) {
            const auto [u, m] = exponential_dp_utility(rows, e, rng);
            std::printf(" %.2g (%.2g) |", u, m);
            if (csv != nullptr)
                std::fprintf(csv, "%s,Exponential-DP,%g,%.6g,%.6g,0\n", paper ? "paper" : "strict", e, u, m);
        }
        std::printf(" - |\n\n(%zu signals per release have mean 0 and no NMSE)\n\n", undefined);
    }
    if (csv != nullptr)
        std::fclose(csv);
    std::printf("total %.0f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
}
