// Private parameter selection on real data (issue 18, item 1): on the 33 Hoppe 2018 features as extracted
// (bench/series/series_utility.cpp's setting), the median |NMSE| of
//  - the non-private reference: the paper's Eq. 7 sensitivities and the NMSE-optimal (oracle) k per
//    recording and feature, chosen among candidates with kSweepRuns releases each;
//  - strict, public: public clip bounds (series_features.hpp) and the public k rule;
//  - strict, private: the same public bounds, with a share of every signal's epsilon spent on choosing
//    the clipping bounds (DP quantiles) and k (exponential mechanism; not for DCFPA) inside them
//    (series_selection.hpp);
// at epsilon 1, 2 and 5 per feature (per chunk for CFPA), against the original (unclipped) signals, and
// a shop-vs-walk classifier (nearest centroid, features scaled by the pooled within-class standard
// deviation of its training data) trained on each release of 4/5 of the participants and tested on the
// other participants' original windows (5 folds by participant): balanced accuracy.
// Usage: bench_series_selection [k_share bounds_share q_lo q_hi] (default: the shares the READMEs recommend,
// release_series's quantiles). The epsilon is per feature (per chunk for CFPA and DCFPA) as the paper
// reports it; at the participant level a chunked release costs chunks-per-signal times more.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/series/series.hpp"
#include "core/series/series_release.hpp"
#include "series/series_features.hpp"

using namespace gazepriv::core;
using namespace series_bench;

namespace {

constexpr int kRuns = 5;
constexpr int kSweepRuns = 2;
constexpr int kFolds = 5;
const double kEpsilons[] = {1, 2, 5};

// Every |NMSE| of released signals against the original ones (signals with a zero mean left out).
void collect_nmse(const SeriesDataset& original, const SeriesDataset& released, std::vector<double>& out) {
    for (std::size_t g = 0; g < original.groups.size(); ++g)
        for (std::size_t f = 0; f < original.features; ++f)
            for (std::size_t p = 0; p < original.groups[g].participants.size(); ++p) {
                const std::size_t n = original.groups[g].length;
                const double e = std::fabs(
                    nmse({original.groups[g].signal(f, p), n}, {released.groups[g].signal(f, p), n}));
                if (std::isfinite(e))
                    out.push_back(e);
            }
}

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// Windows of the table: features, label (1 shop, 0 walk), participant; and where each sits in a release.
struct Windows {
    std::size_t width = 0;
    std::vector<double> x;
    std::vector<int> label, participant;
    std::vector<std::size_t> group, position;
};

Windows windows_of(const FeatureRows& table, const SeriesDataset& layout) {
    Windows w;
    w.width = table.width;
    std::size_t position = 0;
    for (std::size_t i = 0; i < table.rows(); ++i) {
        position = i > 0 && table.participant[i] == table.participant[i - 1] &&
                           table.recording[i] == table.recording[i - 1]
                       ? position + 1
                       : 0;
        std::size_t g = 0;
        while (layout.groups[g].recording != static_cast<std::size_t>(table.recording[i]))
            ++g;
        w.x.insert(w.x.end(), table.values.begin() + i * table.width,
                   table.values.begin() + (i + 1) * table.width);
        w.label.push_back(table.recording[i] == 1);
        w.participant.push_back(table.participant[i]);
        w.group.push_back(g);
        w.position.push_back(position);
    }
    return w;
}

// The features of window i as released.
void released_window(const SeriesDataset& d, const Windows& w, std::size_t i, double* out) {
    const SignalGroup& g = d.groups[w.group[i]];
    const std::size_t p =
        std::find(g.participants.begin(), g.participants.end(), static_cast<std::size_t>(w.participant[i])) -
        g.participants.begin();
    for (std::size_t f = 0; f < w.width; ++f)
        out[f] = g.signal(f, p)[w.position[i]];
}

// Balanced accuracy of nearest-centroid classifiers trained on the released windows (nullptr: the
// original ones) of 4/5 of the participants, tested on the others' original windows.
double balanced_accuracy(const Windows& w, const SeriesDataset* released) {
    const std::size_t d = w.width, n = w.label.size();
    std::vector<double> row(d);
    double correct[2] = {0, 0}, total[2] = {0, 0};
    for (int fold = 0; fold < kFolds; ++fold) {
        std::vector<double> sum[2] = {std::vector<double>(d, 0), std::vector<double>(d, 0)};
        std::vector<double> squares[2] = {std::vector<double>(d, 0), std::vector<double>(d, 0)};
        double count[2] = {0, 0};
        for (std::size_t i = 0; i < n; ++i) {
            if (w.participant[i] % kFolds == fold)
                continue;
            if (released != nullptr)
                released_window(*released, w, i, row.data());
            else
                std::copy(w.x.begin() + i * d, w.x.begin() + (i + 1) * d, row.begin());
            const int c = w.label[i];
            count[c] += 1;
            for (std::size_t f = 0; f < d; ++f) {
                sum[c][f] += row[f];
                squares[c][f] += row[f] * row[f];
            }
        }
        std::vector<double> mean[2] = {std::vector<double>(d), std::vector<double>(d)}, scale(d);
        for (std::size_t f = 0; f < d; ++f) {
            double within = 0;
            for (int c = 0; c < 2; ++c) {
                mean[c][f] = sum[c][f] / count[c];
                within += squares[c][f] - count[c] * mean[c][f] * mean[c][f];
            }
            const double sd = std::sqrt(std::max(within / (count[0] + count[1] - 2), 0.0));
            scale[f] = sd > 0 ? 1 / sd : 0;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (w.participant[i] % kFolds != fold)
                continue;
            double distance[2] = {0, 0};
            for (int c = 0; c < 2; ++c)
                for (std::size_t f = 0; f < d; ++f) {
                    const double z = (w.x[i * d + f] - mean[c][f]) * scale[f];
                    distance[c] += z * z;
                }
            const int c = w.label[i];
            total[c] += 1;
            correct[c] += (distance[1] < distance[0]) == (c == 1);
        }
    }
    return (correct[0] / total[0] + correct[1] / total[1]) / 2;
}

struct Result {
    double median_nmse;
    double accuracy;
    std::size_t median_k;
    double above_one = 0; // the fraction of chosen k above 1
};

double fraction_above_one(const std::vector<std::size_t>& ks) {
    double n = 0;
    for (std::size_t k : ks)
        n += k > 1;
    return n / double(ks.size());
}

// The non-private reference: Eq. 7, the NMSE-optimal k per recording and feature.
Result reference(const SeriesRows& rows, const Variant& v, double epsilon, const PreparedSeries& truth,
                 const Windows& w, Rng& rng) {
    SeriesReleaseConfig config;
    config.method = v.method;
    config.epsilon = epsilon;
    config.chunk = v.chunk;
    config.sensitivity = SensitivityMode::Empirical;
    const PreparedSeries prepared = prepare_series_release(rows, config);
    std::vector<std::size_t> chosen;
    std::vector<std::vector<double>> sensitivities;
    std::vector<std::size_t> ks;
    for (std::size_t g = 0; g < prepared.data.groups.size(); ++g)
        for (std::size_t f = 0; f < prepared.data.features; ++f) {
            const SignalGroup& group = prepared.data.groups[g];
            const std::vector<double> s = series_sensitivities(config, prepared.plan, group, f);
            std::size_t best_k = 1;
            double best = INFINITY;
            for (std::size_t k : sweep_candidates(k_limit(v.method, group.length, config.chunk))) {
                std::vector<double> e;
                for (int r = 0; r < kSweepRuns; ++r) {
                    SignalGroup copy = group;
                    release_feature(copy, f, config, prepared.plan, k, s, rng);
                    for (std::size_t p = 0; p < group.participants.size(); ++p) {
                        const double x = std::fabs(
                            nmse({group.signal(f, p), group.length}, {copy.signal(f, p), group.length}));
                        if (std::isfinite(x))
                            e.push_back(x);
                    }
                }
                double mean = 0;
                for (double x : e)
                    mean += x / double(e.size());
                if (!e.empty() && mean < best) {
                    best = mean;
                    best_k = k;
                }
            }
            sensitivities.push_back(s);
            ks.push_back(best_k);
        }
    std::vector<double> all;
    double accuracy = 0;
    for (int r = 0; r < kRuns; ++r) {
        PreparedSeries copy = prepared;
        std::size_t i = 0;
        for (std::size_t g = 0; g < copy.data.groups.size(); ++g)
            for (std::size_t f = 0; f < copy.data.features; ++f, ++i)
                release_feature(copy.data.groups[g], f, config, copy.plan, ks[i], sensitivities[i], rng);
        collect_nmse(truth.data, copy.data, all);
        accuracy += balanced_accuracy(w, &copy.data) / kRuns;
    }
    std::sort(ks.begin(), ks.end());
    return {median(all), accuracy, ks[ks.size() / 2], fraction_above_one(ks)};
}

Result strict(const SeriesRows& rows, const Variant& v, double epsilon, double k_share, double bounds_share,
              double q_lo, double q_hi, const PreparedSeries& truth, const Windows& w, Rng& rng) {
    SeriesReleaseConfig config;
    config.method = v.method;
    config.epsilon = epsilon;
    config.chunk = v.chunk;
    config.bounds = public_bounds(kFeatureCount);
    config.k_share = v.method == SeriesMethod::Dcfpa ? 0 : k_share; // k_share is for fpa and cfpa
    config.bounds_share = bounds_share;
    config.bounds_quantiles[0] = q_lo;
    config.bounds_quantiles[1] = q_hi;
    const PreparedSeries prepared = prepare_series_release(rows, config);
    std::vector<double> all;
    std::vector<std::size_t> ks;
    double accuracy = 0;
    for (int r = 0; r < kRuns; ++r) {
        PreparedSeries copy = prepared;
        release_series(copy, config, rng);
        collect_nmse(truth.data, copy.data, all);
        accuracy += balanced_accuracy(w, &copy.data) / kRuns;
        ks.insert(ks.end(), copy.selection.k.begin(), copy.selection.k.end());
    }
    if (ks.empty())
        ks.push_back(prepared.plan.k[0]);
    std::sort(ks.begin(), ks.end());
    return {median(all), accuracy, ks[ks.size() / 2], fraction_above_one(ks)};
}

} // namespace

int main(int argc, char** argv) {
    // The shares the READMEs recommend, and release_series's quantiles.
    const SeriesReleaseConfig defaults;
    const double k_share = argc > 1 ? std::atof(argv[1]) : 0;
    const double bounds_share = argc > 2 ? std::atof(argv[2]) : 0.3;
    const double q_lo = argc > 3 ? std::atof(argv[3]) : defaults.bounds_quantiles[0];
    const double q_hi = argc > 4 ? std::atof(argv[4]) : defaults.bounds_quantiles[1];
    const auto start = std::chrono::steady_clock::now();
    const FeatureRows table =
        as_extracted(gazepriv::bench::hoppe_feature_windows(gazepriv::bench::load_hoppe_recordings()));
    const SeriesRows rows = rows_of(table);
    SeriesReleaseConfig raw;
    raw.epsilon = 1;
    raw.sensitivity = SensitivityMode::Empirical;
    const PreparedSeries truth = prepare_series_release(rows, raw);
    const Windows w = windows_of(table, truth.data);
    std::printf("Hoppe 2018: %zu windows, %zu participants, %zu features; %d releases per point; private "
                "selection: k_share %g, bounds_share %g, quantiles %g-%g\n",
                table.rows(), table.participant_names.size(), table.width, kRuns, k_share, bounds_share, q_lo,
                q_hi);
    std::printf("shop vs walk, nearest centroid trained on the original windows: balanced accuracy %.2f\n\n",
                balanced_accuracy(w, nullptr));
    std::printf("| method | eps | reference (Eq. 7, oracle k) | strict public | strict private | private / "
                "reference | k ref / public / private (median) | k > 1 ref / private | accuracy ref / public "
                "/ private |\n"
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const Variant variants[] = {{"FPA", SeriesMethod::Fpa, 64},
                                {"CFPA-32", SeriesMethod::Cfpa, 32},
                                {"CFPA-64", SeriesMethod::Cfpa, 64},
                                {"DCFPA-32", SeriesMethod::Dcfpa, 32}};
    Rng rng(Rng::KernelEntropy{});
    for (const Variant& v : variants)
        for (double e : kEpsilons) {
            const Result a = reference(rows, v, e, truth, w, rng);
            const Result b = strict(rows, v, e, 0, 0, q_lo, q_hi, truth, w, rng);
            const Result c = strict(rows, v, e, k_share, bounds_share, q_lo, q_hi, truth, w, rng);
            std::printf(
                "| %s | %g | %.3g | %.3g | %.3g | %.2f | %zu / %zu / %zu | %.0f %% / %.0f %% | %.2f / %.2f / "
                "%.2f |\n",
                v.name.c_str(), e, a.median_nmse, b.median_nmse, c.median_nmse, c.median_nmse / a.median_nmse,
                a.median_k, b.median_k, c.median_k, 100 * a.above_one, 100 * c.above_one, a.accuracy,
                b.accuracy, c.accuracy);
            std::fflush(stdout);
        }
    std::printf("\ntotal %.0f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
}
