// Time-series release throughput at the paper's scale: 60 recordings (20 Hoppe participants x 3 tasks)
// x 48 features x 3,600 windows, every variant (LPA, FPA, CFPA-32/64/128, DCFPA-32/64/128) through the
// same core path as release_series (rows -> padded signals -> plan and cost -> Eq. 7 or clipped
// sensitivities -> noise), against baselines measured in the same run:
//  - copy: one pass over the padded signals (the floor: touching the data once);
//  - straightforward: the same algorithm written the obvious way, with FFTW plans made and destroyed
//    for every transform and the CKS grid sampler (GridLaplace::release), sharing our Eq. 7 code.
// The features are the project's own (datasets/hoppe_features.hpp: the 33 features of
// test/demo/hoppe_features.psql through the core), brought to the paper's size as series/series_features.hpp
// describes (windows repeated to 3,600, features 34..48 repeating 1..15; 58 recordings have windows).
// With --public-bounds it prints the features' public clip bounds as a SQL array (bench/series/series.sh).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <fftw3.h>

#include "core/noise/fast_exact_noise.hpp"
#include "core/noise/noise.hpp"
#include "core/noise/random.hpp"
#include "core/series/series.hpp"
#include "core/series/series_release.hpp"
#include "series/series_features.hpp"

using namespace gazepriv::core;
using namespace series_bench;

namespace {

constexpr std::size_t kLength = kPaperLength;

double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Best of `runs`: wall-clock seconds and this process's CPU seconds (the machine is shared: CPU time is
// the less disturbed of the two).
struct Seconds {
    double wall = 1e300, cpu = 1e300;
};

Seconds seconds_of(const std::function<void()>& body, int runs) {
    Seconds best;
    for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = cpu_seconds();
        body();
        best.cpu = std::min(best.cpu, cpu_seconds() - cpu_start);
        best.wall = std::min(best.wall,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

std::size_t bench_k(const Variant& v) {
    // One eighth of the bins of a block: 451 for whole signals, 5 / 9 / 17 for chunks of 32 / 64 / 128.
    const std::size_t m = is_chunked(v.method) ? v.chunk : kLength;
    return v.method == SeriesMethod::Lpa ? 0 : m / 8 + 1;
}

SeriesReleaseConfig config_of(const Variant& v, SensitivityMode mode) {
    SeriesReleaseConfig c;
    c.method = v.method;
    c.epsilon = 1;
    c.k = bench_k(v);
    c.chunk = is_chunked(v.method) ? v.chunk : 64;
    c.sensitivity = mode;
    c.length = kLength;
    c.bounds = public_bounds(kPaperFeatures);
    return c;
}

// The obvious implementation: plans per transform, the CKS sampler, no plan or buffer reuse.
void straightforward_release(PreparedSeries& prepared, const SeriesReleaseConfig& config, Rng& rng) {
    for (std::size_t g = 0; g < prepared.data.groups.size(); ++g) {
        SignalGroup& group = prepared.data.groups[g];
        const std::size_t n = group.length;
        for (std::size_t f = 0; f < prepared.data.features; ++f) {
            const auto sens = series_sensitivities(config, prepared.plan, group, f);
            for (std::size_t p = 0; p < group.participants.size(); ++p) {
                double* x = group.signal(f, p);
                if (config.method == SeriesMethod::Lpa) {
                    if (sens[0] == 0)
                        continue;
                    const GridLaplace noise = GridLaplace::mechanism(sens[0], config.epsilon, n);
                    for (std::size_t t = 0; t < n; ++t)
                        x[t] = noise.release(x[t], rng);
                    continue;
                }
                const std::size_t chunk = is_chunked(config.method) ? config.chunk : n;
                for (std::size_t c = 0; c * chunk < n; ++c) {
                    const std::size_t m = std::min(chunk, n - c * chunk), k = chunk_k(prepared.plan.k[g], m);
                    double* in = fftw_alloc_real(m);
                    fftw_complex* spectrum = fftw_alloc_complex(m / 2 + 1);
                    fftw_plan forward = fftw_plan_dft_r2c_1d(int(m), in, spectrum, FFTW_ESTIMATE);
                    fftw_plan inverse = fftw_plan_dft_c2r_1d(int(m), spectrum, in, FFTW_ESTIMATE);
                    double* block = x + c * chunk;
                    if (config.method == SeriesMethod::Dcfpa)
                        chunk_differences(block, m, m, block);
                    std::copy(block, block + m, in);
                    fftw_execute(forward);
                    for (std::size_t j = k; j < m / 2 + 1; ++j)
                        spectrum[j][0] = spectrum[j][1] = 0;
                    if (sens[c] > 0) { // a zero empirical sensitivity gets no noise, as in the core
                        const GridLaplace noise = fpa_mechanism(m, k, sens[c], config.epsilon);
                        for (std::size_t j = 0; j < k; ++j) {
                            spectrum[j][0] = noise.release(spectrum[j][0], rng);
                            spectrum[j][1] = j == 0 || 2 * j == m ? 0 : noise.release(spectrum[j][1], rng);
                        }
                    }
                    fftw_execute(inverse);
                    for (std::size_t t = 0; t < m; ++t)
                        block[t] = in[t] / double(m) +
                                   (config.method == SeriesMethod::Dcfpa && t > 0 ? block[t - 1] : 0);
                    fftw_destroy_plan(forward);
                    fftw_destroy_plan(inverse);
                    fftw_free(in);
                    fftw_free(spectrum);
                }
            }
        }
    }
}

struct Timing {
    Seconds empirical, clipped, straightforward;
};

// Best of three full releases (rows -> signals -> plan -> sensitivities -> noise) per setting; the
// straightforward implementation once.
Timing time_variant(const SeriesRows& rows, const Variant& v, bool public_k, bool with_straightforward,
                    Rng& rng) {
    SeriesReleaseConfig empirical = config_of(v, SensitivityMode::Empirical);
    SeriesReleaseConfig clipped = config_of(v, SensitivityMode::Clipped);
    if (public_k)
        empirical.k = clipped.k = 0;
    Timing t;
    t.straightforward = {0, 0};
    t.empirical = seconds_of(
        [&] {
            PreparedSeries p = prepare_series_release(rows, empirical);
            release_series(p, empirical, rng);
        },
        3);
    t.clipped = seconds_of(
        [&] {
            PreparedSeries p = prepare_series_release(rows, clipped);
            release_series(p, clipped, rng);
        },
        3);
    if (with_straightforward)
        t.straightforward = seconds_of(
            [&] {
                PreparedSeries p = prepare_series_release(rows, empirical);
                straightforward_release(p, empirical, rng);
            },
            1);
    return t;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--public-bounds") { // for bench/series/series.sh
        const char* separator = "{";
        for (const FeatureBounds& b : public_bounds(kPaperFeatures)) {
            std::printf("%s{%.17g,%.17g}", separator, b.lo, b.hi);
            separator = ",";
        }
        std::printf("}\n");
        return 0;
    }
    const auto load_start = std::chrono::steady_clock::now();
    const auto windows = gazepriv::bench::hoppe_feature_windows(gazepriv::bench::load_hoppe_recordings());
    const FeatureRows table = at_paper_scale(windows);
    const double load_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
    const SeriesRows rows = rows_of(table);
    const std::size_t recordings = table.recordings_with_rows();
    std::printf(
        "Hoppe 2018: %zu participants x %zu tasks, %zu recordings with windows; the %zu features of "
        "hoppe_features.psql (30 s windows every 0.5 s) at the paper's scale: windows repeated to %zu per "
        "recording, features 34..%zu repeating 1..%zu (data read and features extracted in %.1f s)\n",
        table.participant_names.size(), kHoppeTasks, recordings, gazepriv::core::kFeatureCount, kLength,
        kPaperFeatures, kRepeatedFeatures, load_s);
    const double values = double(recordings * kLength * kPaperFeatures);
    const Variant variants[] = {
        {"LPA", SeriesMethod::Lpa, 0},         {"FPA", SeriesMethod::Fpa, 0},
        {"CFPA-32", SeriesMethod::Cfpa, 32},   {"CFPA-64", SeriesMethod::Cfpa, 64},
        {"CFPA-128", SeriesMethod::Cfpa, 128}, {"DCFPA-32", SeriesMethod::Dcfpa, 32},
        {"DCFPA-64", SeriesMethod::Dcfpa, 64}, {"DCFPA-128", SeriesMethod::Dcfpa, 128}};
    Rng rng(Rng::KernelEntropy{});
    // Baseline: one pass over the padded signals (copying every value once).
    const PreparedSeries padded =
        prepare_series_release(rows, config_of(variants[1], SensitivityMode::Clipped));
    std::vector<double> copy;
    const Seconds copy_s = seconds_of(
        [&] {
            copy.clear();
            for (const SignalGroup& g : padded.data.groups)
                for (const double* signal : g.signals)
                    copy.insert(copy.end(), signal, signal + g.length);
        },
        5);
    const Seconds assemble_s = seconds_of(
        [&] { prepare_series_release(rows, config_of(variants[1], SensitivityMode::Clipped)); }, 3);
    std::printf(
        "\n%.1f M values; baseline copy %.1f ms cpu (%.1f wall); rows -> padded signals + plan %.0f ms "
        "cpu (%.0f wall), part of every release below\n",
        values / 1e6, copy_s.cpu * 1e3, copy_s.wall * 1e3, assemble_s.cpu * 1e3, assemble_s.wall * 1e3);
    {
        // The noise sampler: GridLaplace::release (the CKS sampler) against fast_grid_laplace_release, same
        // distribution.
        const GridLaplace noise = GridLaplace::mechanism(3600, 1, 3600);
        std::vector<double> buffer(1000000, 0.37);
        const Seconds cks = seconds_of(
            [&] {
                for (double& v : buffer)
                    v = noise.release(0.37, rng);
            },
            3);
        const Seconds fast = seconds_of(
            [&] { fast_grid_laplace_release(noise, buffer.data(), buffer.data(), buffer.size(), rng); }, 3);
        std::printf(
            "Laplace noise on the grid, 1 M values (cpu): CKS sampler %.1f M/s, fast exact sampler %.1f "
            "M/s (%.1fx)\n",
            1 / cks.cpu, 1 / fast.cpu, cks.cpu / fast.cpu);
    }

    for (const bool public_k : {true, false}) {
        std::printf(
            "\n%s, epsilon = 1 per feature. empirical: the paper's Eq. 7 sensitivities; clipped: public "
            "bounds. straightforward: FFTW plans made per transform and the CKS sampler.\n",
            public_k ? "k from the public rule (1 at this epsilon: each block's noisy mean)"
                     : "k = one eighth of each block's bins (451 for whole signals, 5 / 9 / 17 for "
                       "chunks of 32 / 64 / 128)");
        std::printf("Seconds of CPU (wall in brackets); ratios of CPU times; per feature: CPU ms per feature "
                    "signal set (every recording x 3,600 windows), empirical / clipped.\n\n");
        std::printf("| variant | k | empirical | vs copy | clipped | vs copy | ms per feature |%s\n",
                    public_k ? " straightforward | speed-up |" : "");
        std::printf("|---|---:|---:|---:|---:|---:|---:|%s\n", public_k ? "---:|---:|" : "");
        Timing total;
        total.empirical = total.clipped = total.straightforward = {0, 0};
        auto add = [](Seconds& a, const Seconds& b) {
            a.wall += b.wall;
            a.cpu += b.cpu;
        };
        auto row = [&](const std::string& name, const std::string& k, const Timing& t) {
            std::printf("| %s | %s | %.3f (%.3f) | %.0fx | %.3f (%.3f) | %.0fx | %.1f / %.1f |", name.c_str(),
                        k.c_str(), t.empirical.cpu, t.empirical.wall, t.empirical.cpu / copy_s.cpu,
                        t.clipped.cpu, t.clipped.wall, t.clipped.cpu / copy_s.cpu,
                        t.empirical.cpu / kPaperFeatures * 1e3, t.clipped.cpu / kPaperFeatures * 1e3);
            if (public_k)
                std::printf(" %.2f (%.2f) | %.0fx |", t.straightforward.cpu, t.straightforward.wall,
                            t.straightforward.cpu / t.empirical.cpu);
            std::printf("\n");
            std::fflush(stdout);
        };
        for (const Variant& v : variants) {
            const Timing t = time_variant(rows, v, public_k, public_k, rng);
            add(total.empirical, t.empirical);
            add(total.clipped, t.clipped);
            add(total.straightforward, t.straightforward);
            const std::size_t k = v.method == SeriesMethod::Lpa ? 0 : public_k ? 1 : bench_k(v);
            row(v.name, k == 0 ? "-" : std::to_string(k), t);
        }
        row("all eight", "", total);
    }
    return 0;
}
