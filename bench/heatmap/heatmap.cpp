// Heatmap core benchmarks, every figure against a baseline measured in the same run:
//  1. counting: the capped per-(participant, cell) state over the 30 Uniss-FGD images replicated to 10.3 M
//     points, against one pass summing count, x and y over the same points (what SELECT count(*), sum(x),
//     sum(y) computes); memory of the state against its distinct pairs;
//  2. the parallel path: serialising, reading back and merging two halves;
//  3. noise + blur of a 1680 x 1050 map (target: under 25 ms), against a naive double-precision pipeline
//     (std::normal_distribution noise and an FFTW double blur planned per call).
// `bench_heatmap noise` runs part 3 alone (no data needed).
// Times are the best of several runs in CPU time of this (single-threaded) process, so that other work on
// the shared machine does not inflate them; wall-clock time on an idle machine is the same.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_counts.hpp"
#include "core/heatmap/heatmap_release.hpp"
#include "datasets/uniss.hpp"

using namespace gazepriv;
using namespace gazepriv::core;

namespace {

volatile double sink;

double cpu_ms() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double best_ms(int runs, const std::function<void()>& body) {
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        const double t0 = cpu_ms();
        body();
        best = std::min(best, cpu_ms() - t0);
    }
    return best;
}

HeatmapSpec grid_spec(int width, int height, int cell_size, int cap) {
    HeatmapSpec spec;
    spec.parameters.grid = make_grid(width, height, cell_size, kMaxHeatmapCells);
    spec.parameters.cap = cap;
    return spec;
}

void count_all(HeatmapCounts& c, const std::vector<bench::GazePoint>& points, std::size_t from,
               std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
        c.add_point(c.participant(points[i].participant), points[i].x, points[i].y);
}

// The naive pipeline a researcher would write: double noise from std::normal_distribution, FFTW double blur
// with a plan made for each map, zero padding as in gaussian_blur.
void naive_noise_and_blur(std::vector<double>& v, int w, int h, double sigma_noise, double sigma_blur,
                          std::mt19937_64& mt) {
    std::normal_distribution<double> normal(0.0, sigma_noise);
    for (double& x : v)
        x += normal(mt);
    const int radius = static_cast<int>(std::ceil(4 * sigma_blur));
    const int nx = static_cast<int>(fast_fft_size(w + radius)),
              ny = static_cast<int>(fast_fft_size(h + radius));
    double* in = fftw_alloc_real(static_cast<std::size_t>(nx) * ny);
    fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(ny) * (nx / 2 + 1));
    fftw_plan f = fftw_plan_dft_r2c_2d(ny, nx, in, out, FFTW_ESTIMATE);
    fftw_plan b = fftw_plan_dft_c2r_2d(ny, nx, out, in, FFTW_ESTIMATE);
    std::fill(in, in + static_cast<std::size_t>(nx) * ny, 0.0);
    for (int y = 0; y < h; ++y)
        std::copy(v.begin() + static_cast<std::ptrdiff_t>(y) * w,
                  v.begin() + static_cast<std::ptrdiff_t>(y + 1) * w,
                  in + static_cast<std::ptrdiff_t>(y) * nx);
    fftw_execute(f);
    for (int fy = 0; fy < ny; ++fy) {
        const double ky = (fy <= ny / 2 ? fy : ny - fy) / static_cast<double>(ny);
        for (int fx = 0; fx <= nx / 2; ++fx) {
            const double kx = fx / static_cast<double>(nx);
            const double g = std::exp(-2 * M_PI * M_PI * sigma_blur * sigma_blur * (kx * kx + ky * ky)) /
                             (static_cast<double>(nx) * ny);
            out[static_cast<std::size_t>(fy) * (nx / 2 + 1) + fx][0] *= g;
            out[static_cast<std::size_t>(fy) * (nx / 2 + 1) + fx][1] *= g;
        }
    }
    fftw_execute(b);
    for (int y = 0; y < h; ++y)
        std::copy(in + static_cast<std::ptrdiff_t>(y) * nx, in + static_cast<std::ptrdiff_t>(y) * nx + w,
                  v.begin() + static_cast<std::ptrdiff_t>(y) * w);
    fftw_destroy_plan(f);
    fftw_destroy_plan(b);
    fftw_free(in);
    fftw_free(out);
}

} // namespace

void noise_and_blur();

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "noise") {
        noise_and_blur();
        return 0;
    }
    const std::vector<bench::GazePoint> points = bench::load_uniss(bench::uniss_images(), 19);
    std::printf("Uniss-FGD: 30 images x 20 participants, replicated 19 times: %zu points\n\n", points.size());

    // 1. Counting ---------------------------------------------------------------------------------------
    const double baseline = best_ms(3, [&] {
        double n = 0, sx = 0, sy = 0;
        for (const auto& p : points)
            if (!std::isnan(p.x)) {
                n += 1;
                sx += p.x;
                sy += p.y;
            }
        sink = n + sx + sy;
    });
    std::printf("%-44s %10s %8s %10s %11s %10s %9s\n", "counting 10.3 M points (1280 x 1024 screen)",
                "CPU ms", "ns/pt", "vs sum", "pairs", "state MB", "B/pair");
    std::printf("%-44s %10.1f %8.1f %10s\n", "baseline: count, sum x, sum y", baseline,
                baseline * 1e6 / points.size(), "1.00x");
    for (auto [cell, cap] : {std::pair{1, 1}, std::pair{8, 1}, std::pair{1, 2}, std::pair{32, 5}}) {
        const HeatmapSpec spec = grid_spec(1280, 1024, cell, cap);
        std::uint64_t pairs = 0;
        std::size_t bytes = 0;
        std::vector<std::int64_t> sums(static_cast<std::size_t>(spec.parameters.grid.cells()));
        const double ms = best_ms(3, [&] {
            HeatmapCounts c;
            c.init(HeatmapAggregate::ExactMap, ParticipantKeyKind::Integer, spec, MemoryArena::heap());
            count_all(c, points, 0, points.size());
            c.cell_sums(sums.data(), CancelCheck());
            bytes = c.memory_bytes();
            pairs = c.pairs(CancelCheck());
            c.release_memory();
        });
        char label[64];
        std::snprintf(label, sizeof label, "capped state, %d px cells, cap %d", cell, cap);
        std::printf("%-44s %10.1f %8.1f %9.2fx %11llu %10.1f %9.1f\n", label, ms, ms * 1e6 / points.size(),
                    ms / baseline, static_cast<unsigned long long>(pairs), bytes / 1e6,
                    static_cast<double>(bytes) / std::max<std::uint64_t>(pairs, 1));
    }

    // 2. The parallel path: two halves, serialised, read back and merged -----------------------------
    {
        const HeatmapSpec spec = grid_spec(1280, 1024, 1, 1);
        std::vector<std::uint8_t> blob[2];
        const std::size_t half = points.size() / 2;
        double count_ms = 0, serialize_ms = 0, merge_ms = 0;
        for (int k = 0; k < 2; ++k) {
            HeatmapCounts c;
            c.init(HeatmapAggregate::ExactMap, ParticipantKeyKind::Integer, spec, MemoryArena::heap());
            count_ms += best_ms(1, [&] { count_all(c, points, k * half, k == 0 ? half : points.size()); });
            serialize_ms += best_ms(1, [&] { blob[k] = c.serialize(CancelCheck()); });
            c.release_memory();
        }
        merge_ms = best_ms(3, [&] {
            HeatmapCounts a, b;
            a.deserialize(blob[0].data(), blob[0].size(), MemoryArena::heap(), CancelCheck());
            b.deserialize(blob[1].data(), blob[1].size(), MemoryArena::heap(), CancelCheck());
            a.merge(b, CancelCheck());
            a.release_memory();
            b.release_memory();
        });
        std::printf(
            "\nparallel path, 1 px cells: two halves counted %.1f ms, serialised %.1f ms (%.1f + %.1f MB), "
            "read back and merged %.1f ms\n",
            count_ms, serialize_ms, blob[0].size() / 1e6, blob[1].size() / 1e6, merge_ms);
    }

    noise_and_blur();
    return 0;
}

// 3. Noise + blur of a 1680 x 1050 map -----------------------------------------------------------------
void noise_and_blur() {
    std::printf("\n%-58s %10s %10s\n", "noise + blur, 1680 x 1050 map (1.76 M cells)", "CPU ms", "vs naive");
    const int w = 1680, h = 1050;
    std::vector<std::int64_t> sums(static_cast<std::size_t>(w) * h);
    for (std::size_t j = 0; j < sums.size(); ++j)
        sums[j] = static_cast<std::int64_t>((j * 2654435761u) % 7);
    std::vector<double> values(sums.size());
    Rng rng(Rng::KernelEntropy{});
    std::mt19937_64 mt(1);
    for (double blur : {0.0, 10.0, 30.0, 60.0}) {
        HeatmapSpec spec = make_heatmap_spec(w, h, 1, 1e-5, 1, "gaussian", "analytic", blur, 1, 50000,
                                             std::nullopt, kMaxHeatmapCells);
        const HeatmapReleasePlan plan = plan_heatmap_release(spec);
        release_heatmap(plan, sums.data(), 50000, rng, values.data(), CancelCheck()); // table and plans warm
        const double ours =
            best_ms(5, [&] { release_heatmap(plan, sums.data(), 50000, rng, values.data(), CancelCheck()); });
        std::vector<double> naive(sums.begin(), sums.end());
        const double theirs = best_ms(3, [&] {
            std::copy(sums.begin(), sums.end(), naive.begin());
            if (blur > 0)
                naive_noise_and_blur(naive, w, h, plan.gaussian.sigma, blur, mt);
            else
                for (double& x : naive)
                    x += std::normal_distribution<double>(0.0, plan.gaussian.sigma)(mt);
        });
        char label[96];
        std::snprintf(label, sizeof label, "discrete Gaussian (table) + FFTW float blur, sigma %g px", blur);
        std::printf("%-58s %10.1f %9.2fx   (naive double pipeline %.1f ms)\n", label, ours, ours / theirs,
                    theirs);
    }
    const double blur_only = best_ms(5, [&] { gaussian_blur(values.data(), w, h, 30, CancelCheck()); });
    std::printf("%-58s %10.1f\n", "blur alone, sigma 30 px", blur_only);
}
