// heatmap_preview's predictions against real releases (doc/privacy/heatmap.md §9). On the 30 Uniss-FGD images
// (the 562 x 762 px stimulus area, cap m = 1, Gaussian analytic, delta 1e-5), for a grid of observers n,
// epsilon, cell size and blur: the measured mean CC between released and true maps (both blurred alike) over
// every image and `kReleases` releases each, against the preview's expected_cc with as prior
//   (a) oracle: the image's own true map (tests the formula),
//   (b) other images: the mean true map of the other 29 images with the same observers (an honest public
//   prior,
//       as a pilot study on other stimuli would give),
//   (c) centre bias: heatmap_preview(spec, centre_sd, points_per_observer) with centre_sd = 120 px and
//       points_per_observer the other images' mean capped count per observer (public in the same way).
// n above 20 replicates the 20 observers (the same map with more observers: less noise per observer).
// Prints a table and writes bench/out/heatmap_preview.csv.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_metrics.hpp"
#include "core/heatmap/heatmap_preview.hpp"
#include "core/heatmap/heatmap_release.hpp"
#include "datasets/uniss.hpp"

using namespace gazepriv;
using namespace gazepriv::core;

namespace {

constexpr int kWidth = 562, kHeight = 762, kLeft = 359, kTop = 131, kReleases = 10;
constexpr double kCentreSd = 120;

// The capped sums (m = 1) of the first `observers` participants (0..19) on each image, on `grid`.
std::vector<std::vector<std::int64_t>> capped_sums(const std::vector<bench::GazePoint>& points,
                                                   const GazeGrid& grid, int observers) {
    const std::vector<int>& images = bench::uniss_images();
    std::map<int, std::size_t> index;
    for (std::size_t i = 0; i < images.size(); ++i)
        index[images[i]] = i;
    const std::size_t cells = static_cast<std::size_t>(grid.cells());
    std::vector<std::vector<std::int64_t>> sums(images.size(), std::vector<std::int64_t>(cells, 0));
    // seen[image][participant * cells + cell]: the participant counted in the cell already (cap 1).
    std::vector<std::vector<char>> seen(images.size(), std::vector<char>(cells * observers, 0));
    for (const bench::GazePoint& g : points) {
        const int participant = static_cast<int>(g.participant / 100);
        if (participant >= observers)
            continue;
        const std::int64_t cell = grid.cell_of(g.x - kLeft, g.y - kTop);
        if (cell < 0)
            continue;
        const std::size_t i = index[g.image];
        char& s = seen[i][static_cast<std::size_t>(participant) * cells + static_cast<std::size_t>(cell)];
        if (!s) {
            s = 1;
            ++sums[i][static_cast<std::size_t>(cell)];
        }
    }
    return sums;
}

struct Row {
    int n;
    double epsilon;
    int cell_size;
    double blur;
    double map_sd, noise_sd, signal_sd;
    double oracle, others, centre, measured, measured_sd;
};

} // namespace

int main() {
    const std::vector<bench::GazePoint> points = bench::load_uniss(bench::uniss_images(), 1);
    const std::size_t images = bench::uniss_images().size();
    Rng rng(Rng::KernelEntropy{});
    std::vector<Row> rows;
    std::printf(
        "heatmap_preview against real releases: Uniss-FGD, 30 images, %d x %d px, m = 1, Gaussian analytic, "
        "delta 1e-5, %d releases per image\n\n",
        kWidth, kHeight, kReleases);
    std::printf("%6s %5s %5s %5s %10s %10s | %8s %8s %8s | %15s\n", "n", "eps", "cell", "blur", "map sd",
                "noise sd", "oracle", "others", "centre", "measured (sd)");
    for (int cell_size : {8, 32}) {
        const GazeGrid grid = make_grid(kWidth, kHeight, cell_size, kMaxHeatmapCells);
        const std::size_t cells = static_cast<std::size_t>(grid.cells());
        for (int n : {4, 20, 200, 2000}) {
            const int observers = std::min(n, 20), replicas = n / observers;
            std::vector<std::vector<std::int64_t>> sums = capped_sums(points, grid, observers);
            for (auto& image : sums)
                for (auto& s : image)
                    s *= replicas;
            // Every image's true map G (unblurred) and their sum, for the leave-one-out prior.
            std::vector<std::vector<double>> truth(images, std::vector<double>(cells));
            std::vector<double> total(cells, 0);
            for (std::size_t i = 0; i < images; ++i)
                for (std::size_t j = 0; j < cells; ++j) {
                    truth[i][j] = static_cast<double>(sums[i][j]) / n;
                    total[j] += truth[i][j];
                }
            for (double blur : {0.0, 24.0}) {
                for (double epsilon : {1.0, 4.0, 16.0}) {
                    const HeatmapSpec spec =
                        make_heatmap_spec(kWidth, kHeight, epsilon, 1e-5, 1, "gaussian", "analytic", blur,
                                          cell_size, n, std::nullopt, kMaxHeatmapCells);
                    const HeatmapReleasePlan plan = plan_heatmap_release(spec);
                    Row row{n, epsilon, cell_size, blur, plan.noise_sd() / n, 0, 0, 0, 0, 0, 0, 0};
                    double cc_sum = 0, cc_sq = 0;
                    std::vector<double> released(cells);
                    for (std::size_t i = 0; i < images; ++i) {
                        std::vector<double> oracle = truth[i];
                        const HeatmapPreview a = preview_heatmap(plan, n, oracle, 0, CancelCheck());
                        std::vector<double> others(cells);
                        double mass = 0;
                        for (std::size_t j = 0; j < cells; ++j) {
                            others[j] = (total[j] - truth[i][j]) / static_cast<double>(images - 1);
                            mass += others[j];
                        }
                        const HeatmapPreview b = preview_heatmap(plan, n, others, 0, CancelCheck());
                        std::vector<double> centre = centre_bias_prior(grid, 1, kCentreSd, mass);
                        const HeatmapPreview c = preview_heatmap(plan, n, centre, 0, CancelCheck());
                        row.oracle += a.expected_cc / images;
                        row.others += b.expected_cc / images;
                        row.centre += c.expected_cc / images;
                        row.noise_sd = a.noise_sd;
                        row.signal_sd += a.signal_sd / images;
                        // oracle now holds the truth blurred as the release is.
                        for (int k = 0; k < kReleases; ++k) {
                            release_heatmap(plan, sums[i].data(), n, rng, released.data(), CancelCheck());
                            const double cc = heatmap_cc(released.data(), oracle.data(), cells);
                            cc_sum += cc;
                            cc_sq += cc * cc;
                        }
                    }
                    const double count = static_cast<double>(images * kReleases);
                    row.measured = cc_sum / count;
                    row.measured_sd = std::sqrt(std::max(0.0, cc_sq / count - row.measured * row.measured));
                    std::printf("%6d %5g %5d %5g %10.4g %10.4g | %8.3f %8.3f %8.3f | %8.3f (%.3f)\n", n,
                                epsilon, cell_size, blur, row.map_sd, row.noise_sd, row.oracle, row.others,
                                row.centre, row.measured, row.measured_sd);
                    std::fflush(stdout);
                    rows.push_back(row);
                }
            }
        }
    }
    double worst_oracle = 0, worst_others = 0;
    for (const Row& r : rows) {
        worst_oracle = std::max(worst_oracle, std::fabs(r.oracle - r.measured));
        worst_others = std::max(worst_others, std::fabs(r.others - r.measured));
    }
    std::printf("\nlargest |predicted - measured| mean CC: oracle %.3f, other images %.3f\n", worst_oracle,
                worst_others);
    FILE* csv = std::fopen("bench/out/heatmap_preview.csv", "w");
    if (csv != nullptr) {
        std::fprintf(csv, "n,epsilon,cell_size,blur,map_sd,noise_sd,signal_sd,oracle,others,centre,measured,"
                          "measured_sd\n");
        for (const Row& r : rows)
            std::fprintf(csv, "%d,%g,%d,%g,%g,%g,%g,%g,%g,%g,%g,%g\n", r.n, r.epsilon, r.cell_size, r.blur,
                         r.map_sd, r.noise_sd, r.signal_sd, r.oracle, r.others, r.centre, r.measured,
                         r.measured_sd);
        std::fclose(csv);
    }
    return 0;
}
