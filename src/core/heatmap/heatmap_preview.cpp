#include "core/common/no_postgres.hpp"
#include "core/heatmap/heatmap_preview.hpp"

#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"
#include "core/heatmap/gaussian_blur.hpp"

namespace gazepriv::core {

namespace {

// One axis of length `length` under gaussian_blur's kernel w_k = exp(-k^2 / (2 s^2)) / W, |k| <= ceil(6 s):
// the mean over the axis's cells of the squared weights landing inside it, and the sum over cells of u_c^2,
// u_c = the kernel weight a cell's input keeps inside the axis (the rest is blurred off the map).
struct AxisFactors {
    double mean_square_weight = 1;
    double sum_kept_squared = 0;
};

AxisFactors axis_factors(std::int64_t length, double s, const CancelCheck& cancel) {
    AxisFactors f;
    if (s == 0) {
        f.sum_kept_squared = static_cast<double>(length);
        return f;
    }
    const std::int64_t radius = static_cast<std::int64_t>(std::ceil(6 * s));
    double total = 0;
    for (std::int64_t k = 0; k <= radius; ++k) {
        cancel.poll(static_cast<std::size_t>(k));
        const double x = static_cast<double>(k) / s;
        total += (k == 0 ? 1 : 2) * std::exp(-0.5 * x * x);
    }
    // Offsets beyond the axis never connect two of its cells.
    const std::int64_t reach = std::min(radius, length - 1);
    std::vector<double> prefix(static_cast<std::size_t>(reach) + 1); // sum_{0 <= j <= k} w_j
    double squares = 0;
    for (std::int64_t k = 0; k <= reach; ++k) {
        cancel.poll(static_cast<std::size_t>(k));
        const double x = static_cast<double>(k) / s;
        const double w = std::exp(-0.5 * x * x) / total;
        prefix[static_cast<std::size_t>(k)] = (k == 0 ? 0 : prefix[static_cast<std::size_t>(k - 1)]) + w;
        // Offset +-k joins length - k pairs of cells.
        squares += (k == 0 ? 1 : 2) * static_cast<double>(length - k) * w * w;
    }
    f.mean_square_weight = squares / static_cast<double>(length);
    const double w0 = prefix[0];
    for (std::int64_t c = 0; c < length; ++c) {
        cancel.poll(static_cast<std::size_t>(c));
        // Offsets -c .. length - 1 - c stay inside the axis.
        const double u = prefix[static_cast<std::size_t>(std::min(length - 1 - c, reach))] +
                         prefix[static_cast<std::size_t>(std::min(c, reach))] - w0;
        f.sum_kept_squared += u * u;
    }
    return f;
}

double spatial_variance(const std::vector<double>& values) {
    double mean = 0;
    for (double v : values)
        mean += v;
    mean /= static_cast<double>(values.size());
    double sum = 0;
    for (double v : values)
        sum += (v - mean) * (v - mean);
    return sum / static_cast<double>(values.size());
}

} // namespace

const char* heatmap_preview_verdict(double expected_cc) {
    if (expected_cc < kPreviewNoiseBelow)
        return "noise";
    return expected_cc < kPreviewUsableFrom ? "weak" : "usable";
}

double blurred_white_noise_variance(std::int32_t columns, std::int32_t rows, double sigma_cells,
                                    const CancelCheck& cancel) {
    require_non_negative("blur sigma", sigma_cells);
    const AxisFactors x = axis_factors(columns, sigma_cells, cancel);
    const AxisFactors y = axis_factors(rows, sigma_cells, cancel);
    const double r = static_cast<double>(columns) * static_cast<double>(rows);
    // E (1/r) sum_j (X_j - mean)^2 = mean_j Var X_j - Var(mean); Var(mean) = sum_i (sum_j K_ji)^2 / r^2.
    return x.mean_square_weight * y.mean_square_weight - (x.sum_kept_squared / r) * (y.sum_kept_squared / r);
}

HeatmapPreview preview_heatmap(const HeatmapReleasePlan& plan, double observers, std::vector<double>& prior,
                               double prior_blur, const CancelCheck& cancel) {
    const HeatmapParameters& p = plan.spec.parameters;
    if (!(observers >= 1))
        throw InvalidArgument("the preview needs the public number of observers (at least 1)");
    if (prior.size() != static_cast<std::size_t>(p.grid.cells()))
        throw InvalidArgument("the prior must have one value per cell of the spec's grid");
    for (std::size_t j = 0; j < prior.size(); ++j) {
        cancel.poll(j);
        if (!std::isfinite(prior[j]))
            throw InvalidArgument("prior value " + std::to_string(j + 1) + " is " + format_number(prior[j]) +
                                  "; a prior's values are expected capped counts per observer");
    }
    if (!(prior_blur >= 0 && prior_blur <= p.blur_sigma))
        throw InvalidArgument("the prior is blurred more (" + format_number(prior_blur) +
                              " px) than the release will be (" + format_number(p.blur_sigma) +
                              " px); use an unblurred prior");
    // The truth the release is compared with is blurred as the release: take the prior the rest of the way.
    const double cell = p.grid.cell_size;
    const double rest = std::sqrt((p.blur_sigma - prior_blur) * (p.blur_sigma + prior_blur)) / cell;
    gaussian_blur(prior.data(), p.grid.columns, p.grid.rows, rest, cancel);
    const double signal = spatial_variance(prior);
    const double map_sd = plan.noise_sd() / observers;
    const double noise =
        map_sd * map_sd *
        blurred_white_noise_variance(p.grid.columns, p.grid.rows, p.blur_sigma / cell, cancel);
    HeatmapPreview preview;
    preview.signal_sd = std::sqrt(signal);
    preview.noise_sd = std::sqrt(noise);
    preview.expected_cc = signal > 0 ? std::sqrt(signal / (signal + noise)) : 0;
    preview.verdict = heatmap_preview_verdict(preview.expected_cc);
    return preview;
}

std::vector<double> centre_bias_prior(const GazeGrid& grid, std::int32_t cap, double centre_sd,
                                      double points_per_observer) {
    require_positive("centre_sd", centre_sd);
    require_positive("points_per_observer", points_per_observer);
    // The Gaussian's mass in each column (row): Phi differences over the cell's pixels, clipped at the edge.
    auto axis = [&](std::int32_t extent, std::int32_t cells) {
        std::vector<double> mass(static_cast<std::size_t>(cells));
        const double centre = extent / 2.0;
        double total = 0;
        for (std::int32_t c = 0; c < cells; ++c) {
            // In units of sd * sqrt(2) (divided in two steps: a huge sd must not overflow to Infinity).
            const double lo = (double(c) * grid.cell_size - centre) / centre_sd / M_SQRT2;
            const double hi =
                (std::min<double>(double(c + 1) * grid.cell_size, extent) - centre) / centre_sd / M_SQRT2;
            // erf differences near the centre (exact for tiny arguments), erfc differences in the tails
            // (where erf(hi) - erf(lo) cancels to 0).
            const double m = lo >= 1    ? 0.5 * (std::erfc(lo) - std::erfc(hi))
                             : hi <= -1 ? 0.5 * (std::erfc(-hi) - std::erfc(-lo))
                                        : 0.5 * (std::erf(hi) - std::erf(lo));
            mass[static_cast<std::size_t>(c)] = m;
            total += m;
        }
        if (!(total > 0))
            throw InvalidArgument("centre_sd " + format_number(centre_sd) +
                                  " px puts no mass on the grid; use a wider centre bias");
        for (double& m : mass)
            m /= total; // the points are those that fall on the map
        return mass;
    };
    const std::vector<double> across = axis(grid.width, grid.columns);
    const std::vector<double> down = axis(grid.height, grid.rows);
    std::vector<double> prior(static_cast<std::size_t>(grid.cells()));
    for (std::size_t row = 0; row < down.size(); ++row)
        for (std::size_t column = 0; column < across.size(); ++column)
            prior[row * across.size() + column] =
                std::min<double>(points_per_observer * down[row] * across[column], cap);
    return prior;
}

} // namespace gazepriv::core
