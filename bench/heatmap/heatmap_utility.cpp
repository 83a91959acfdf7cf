// Utility of DP heatmaps on real gaze (Liu et al. 2019, Figure 3): CC and MSE between released and exact
// heatmaps across epsilon, for the Gaussian (analytic and the paper's liu2019 calibration) and the Laplace
// mechanism. As in the paper, the observers are replicated to n = 50,000 (here the 20 Uniss-FGD observers of
// image 2, 2,500 times each), cap m = 1, delta = n^-1.5, on the full 1280 x 1024 screen; heatmaps are blurred
// with a 30 px Gaussian. Prints a table, writes bench/out/heatmap_utility.csv and plots
// bench/out/heatmap_utility.png (matplotlib, /usr/bin/python3). The baseline is the exact heatmap itself.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_counts.hpp"
#include "core/heatmap/heatmap_metrics.hpp"
#include "core/heatmap/heatmap_release.hpp"
#include "datasets/uniss.hpp"

using namespace gazepriv;
using namespace gazepriv::core;

int main() {
    constexpr int kWidth = 1280, kHeight = 1024, kReplicas = 2500, kReleases = 10;
    constexpr double kBlur = 30;
    const std::vector<bench::GazePoint> points = bench::load_uniss({2}, 1);
    HeatmapSpec exact_spec;
    exact_spec.parameters.grid = make_grid(kWidth, kHeight, 1, kMaxHeatmapCells);
    exact_spec.parameters.cap = 1;
    HeatmapCounts counts;
    counts.init(HeatmapAggregate::ExactMap, ParticipantKeyKind::Integer, exact_spec, MemoryArena::heap());
    for (const auto& p : points)
        counts.add_point(counts.participant(p.participant), p.x, p.y);
    const std::size_t cells = static_cast<std::size_t>(exact_spec.parameters.grid.cells());
    std::vector<std::int64_t> sums(cells);
    counts.cell_sums(sums.data(), CancelCheck());
    const double n = static_cast<double>(counts.participants()) * kReplicas; // replicated observers
    for (auto& s : sums)
        s *= kReplicas;
    counts.release_memory();
    std::vector<double> exact(cells);
    for (std::size_t j = 0; j < cells; ++j)
        exact[j] = static_cast<double>(sums[j]) / n;
    gaussian_blur(exact.data(), kWidth, kHeight, kBlur, CancelCheck());
    const double delta = std::pow(n, -1.5);

    std::printf("Liu et al. Figure 3 on Uniss-FGD image 2: n = %.0f (20 observers x %d), r = %zu, m = 1, "
                "delta = n^-1.5 "
                "= %.2g, blur %g px, %d releases each\n\n",
                n, kReplicas, cells, delta, kBlur, kReleases);
    std::printf("%-22s %8s %12s %16s %20s\n", "mechanism", "epsilon", "noise sd", "CC mean (sd)",
                "MSE mean (sd)");
    const std::string csv_path = "bench/out/heatmap_utility.csv";
    FILE* csv = std::fopen(csv_path.c_str(), "w");
    if (csv != nullptr)
        std::fprintf(csv, "mechanism,epsilon,noise_sd,cc_mean,cc_sd,mse_mean,mse_sd\n");
    Rng rng(Rng::KernelEntropy{});
    std::vector<double> released(cells);
    struct Setting {
        const char *label, *mechanism, *calibration;
    };
    for (const Setting& s :
         {Setting{"gaussian analytic", "gaussian", "analytic"},
          Setting{"gaussian liu2019", "gaussian", "liu2019"}, Setting{"laplace", "laplace", "analytic"}}) {
        const char *label = s.label, *mechanism = s.mechanism, *calibration = s.calibration;
        for (double eps : {0.1, 0.5, 1.0, 2.0, 5.0}) {
            const HeatmapSpec spec =
                make_heatmap_spec(kWidth, kHeight, eps, delta, 1, mechanism, calibration, kBlur, 1,
                                  static_cast<std::int64_t>(n), std::nullopt, kMaxHeatmapCells);
            const HeatmapReleasePlan plan = plan_heatmap_release(spec);
            double cc_sum = 0, cc_sq = 0, mse_sum = 0, mse_sq = 0;
            for (int k = 0; k < kReleases; ++k) {
                release_heatmap(plan, sums.data(), n, rng, released.data(), CancelCheck());
                const double cc = heatmap_cc(released.data(), exact.data(), cells);
                const double mse = heatmap_mse(released.data(), exact.data(), cells);
                cc_sum += cc;
                cc_sq += cc * cc;
                mse_sum += mse;
                mse_sq += mse * mse;
            }
            const double cc_mean = cc_sum / kReleases, mse_mean = mse_sum / kReleases;
            const double cc_sd = std::sqrt(std::max(0.0, cc_sq / kReleases - cc_mean * cc_mean));
            const double mse_sd = std::sqrt(std::max(0.0, mse_sq / kReleases - mse_mean * mse_mean));
            std::printf("%-22s %8.1f %12.4g %9.3f (%.3f) %11.3g (%.2g)\n", label, eps, plan.noise_sd() / n,
                        cc_mean, cc_sd, mse_mean, mse_sd);
            if (csv != nullptr)
                std::fprintf(csv, "%s,%g,%g,%g,%g,%g,%g\n", label, eps, plan.noise_sd() / n, cc_mean, cc_sd,
                             mse_mean, mse_sd);
        }
    }
    if (csv != nullptr) {
        std::fclose(csv);
        const int status = std::system(
            "/usr/bin/python3 bench/heatmap/plot_heatmap_utility.py bench/out/heatmap_utility.csv "
            "bench/out/heatmap_utility.png");
        std::printf("\nplot: bench/out/heatmap_utility.png%s\n", status == 0 ? "" : " (matplotlib failed)");
    }
    return 0;
}
