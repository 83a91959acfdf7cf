#include "core/common/no_postgres.hpp"
#include "core/heatmap/significance.hpp"

#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

// sum_k w_k^2 of the blur's normalised one-dimensional kernel (|k| <= ceil(6 s)): the two-dimensional
// kernel is the outer product, so a cell's noise sd is multiplied by this. For wide kernels the sum is
// 1 / (2 s sqrt(pi)) to double precision.
double kernel_square_sum(double s) {
    if (s <= 0)
        return 1;
    if (s > 1e4)
        return 1 / (2 * s * std::sqrt(M_PI));
    const long radius = static_cast<long>(std::ceil(6 * s));
    double sum = 0, squares = 0;
    for (long k = -radius; k <= radius; ++k) {
        const double w = std::exp(-double(k) * k / (2 * s * s));
        sum += w;
        squares += w * w;
    }
    return squares / (sum * sum);
}

} // namespace

Correction parse_correction(const std::string& name) {
    static constexpr Named<Correction> kCorrections[] = {{Correction::Bonferroni, "bonferroni"},
                                                         {Correction::PerCell, "per_cell"}};
    return parse_name(kCorrections, "correction", name);
}

double normal_upper_quantile(double tail) {
    double lo = 0, hi = 40; // P(Z > 40) is below every double tail we are asked for
    for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
        const double mid = (lo + hi) / 2;
        (0.5 * std::erfc(mid / M_SQRT2) > tail ? lo : hi) = mid;
    }
    return hi;
}

double noise_sd_after_blur(const MapNoise& noise) {
    const double sd = noise.gaussian ? noise.spread : noise.spread * M_SQRT2;
    return sd * kernel_square_sum(noise.blur_cells);
}

MapAccuracy map_accuracy(const MapNoise& noise, double confidence) {
    require_open_unit("confidence", confidence);
    if (noise.spread == 0)
        return {{0, 0}, true};
    if (!(noise.spread > 0 && std::isfinite(noise.spread)))
        throw InvalidArgument("the map's sigma or scale must be a positive number");
    const double sd = noise_sd_after_blur(noise);
    if (noise.blur_cells > 0 || !(noise.observers >= 1)) {
        // A weighted sum of independent sigma-sub-Gaussian (discrete Gaussian) variables is sub-Gaussian with
        // its sd bound: P(|S| > a) <= 2 exp(-a^2 / 2 sd^2). A blurred Laplace sum: Chebyshev.
        const double a = noise.gaussian ? sd * std::sqrt(2 * std::log(2 / (1 - confidence)))
                                        : sd / std::sqrt(1 - confidence);
        return {{sd, a}, false};
    }
    // Unblurred: the integer noise on the capped sums, divided by n.
    const double n = noise.observers;
    if (!noise.gaussian) {
        const Accuracy counts = noise_accuracy(NoiseKind::DiscreteLaplace, noise.spread * n, confidence);
        return {{counts.noise_sd / n, counts.half_width / n}, true};
    }
    return {{sd, discrete_gaussian_half_width(noise.spread * n, confidence) / n}, true};
}

double significance_threshold(const MapNoise& noise, double level, std::size_t cells, Correction correction) {
    if (!(level > 0 && level <= 0.5))
        throw InvalidArgument("significance must be a level between 0 (excluded) and 0.5");
    if (!(noise.spread > 0 && std::isfinite(noise.spread)))
        throw InvalidArgument("the significance mask needs a released map (its sigma or scale)");
    const double tail = correction == Correction::Bonferroni ? level / static_cast<double>(cells) : level;
    if (noise.gaussian)
        return noise_sd_after_blur(noise) * normal_upper_quantile(tail);
    if (noise.blur_cells > 0)
        throw InvalidArgument(
            "the significance mask of a blurred Laplace map is not available (its noise is "
            "no longer Laplace): render the unblurred release, or use the Gaussian mechanism");
    return noise.spread * std::log(1 / (2 * tail)); // P(L > t) = exp(-t / b) / 2
}

} // namespace gazepriv::core
