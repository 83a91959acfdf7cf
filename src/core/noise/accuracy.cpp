#include "core/common/no_postgres.hpp"
#include "core/noise/accuracy.hpp"

#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/validate.hpp"
#include "core/noise/calibration.hpp"

namespace gazepriv::core {

namespace {
constexpr Named<NoiseKind> kNoiseKinds[] = {{NoiseKind::Laplace, "laplace"},
                                            {NoiseKind::DiscreteLaplace, "discrete_laplace"},
                                            {NoiseKind::Gaussian, "gaussian"}};

double require_confidence(double confidence) {
    return require_open_unit("confidence", confidence);
}

// P(|Z| > a) for Z discrete Laplace with q = exp(-1/scale) and an integer a >= 0: 2 q^(a+1) / (1 + q).
double discrete_laplace_tail(double q, double a) {
    return 2 * std::pow(q, a + 1) / (1 + q);
}
} // namespace

NoiseKind parse_noise_kind(const std::string& name) {
    return parse_name(kNoiseKinds, "mechanism", name);
}

const char* to_string(NoiseKind kind) {
    return name_of(kNoiseKinds, kind);
}

double normal_quantile(double p) {
    require_open_unit("p", p);
    // Bisection on Phi(x) = erfc(-x / sqrt 2) / 2, monotone: 200 halvings of [-40, 40] reach double
    // precision.
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 0; ++i) {
        const double mid = (lo + hi) / 2;
        if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

double planar_laplace_radius_quantile(double confidence) {
    require_confidence(confidence);
    // Bisection on the tail (1 + z) e^-z, decreasing for z > 0 and computed to a few ulps; the upper end is
    // returned, with room (2^-40 relative, against an error below 1e-14 in z) for the tail's rounding.
    const double tail = 1 - confidence;
    double lo = 0, hi = 800;
    for (int i = 0; i < 200 && hi - lo > 0; ++i) {
        const double mid = (lo + hi) / 2;
        if ((1 + mid) * std::exp(-mid) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return hi * (1 + 0x1.0p-40);
}

Accuracy noise_accuracy(NoiseKind kind, double scale, double confidence) {
    require_positive("scale", scale);
    require_confidence(confidence);
    switch (kind) {
    case NoiseKind::Laplace: // P(|Z| > a) = exp(-a / b)
        return {std::sqrt(2.0) * scale, -scale * std::log1p(-confidence)};
    case NoiseKind::DiscreteLaplace: {
        const double q = std::exp(-1 / scale);
        const double sd = std::sqrt(2 * q) / -std::expm1(-1 / scale);
        // The smallest integer a >= 0 with the tail <= 1 - confidence, from the closed form then checked.
        double a = std::ceil(std::log((1 - confidence) * (1 + q) / 2) / std::log(q) - 1);
        if (!(a >= 0))
            a = 0;
        while (a > 0 && discrete_laplace_tail(q, a - 1) <= 1 - confidence)
            --a;
        while (discrete_laplace_tail(q, a) > 1 - confidence)
            ++a;
        return {sd, a};
    }
    case NoiseKind::Gaussian:
        return {scale, scale * normal_quantile((1 + confidence) / 2)};
    }
    throw InternalError("unknown noise kind");
}

double discrete_gaussian_half_width(double sigma, double confidence) {
    require_positive("sigma", sigma);
    require_confidence(confidence);
    if (sigma > 1e5) // the lattice no longer matters: the continuous quantile, rounded up
        return std::ceil(sigma * normal_quantile((1 + confidence) / 2));
    // Masses beyond 14 sigma are below exp(-98) of the total: sum the rest, then walk out from 0.
    const long radius = static_cast<long>(std::ceil(14 * sigma)) + 1;
    const auto mass = [sigma](long z) { return std::exp(-double(z) * double(z) / (2 * sigma * sigma)); };
    double total = 1;
    for (long z = 1; z <= radius; ++z)
        total += 2 * mass(z);
    double inside = 1;
    long a = 0;
    while (inside < confidence * total && a < radius)
        inside += 2 * mass(++a);
    return static_cast<double>(a);
}

double epsilon_for_accuracy(NoiseKind kind, double sensitivity, double half_width, double confidence,
                            double delta) {
    require_positive("sensitivity", sensitivity);
    require_positive("half_width", half_width);
    require_confidence(confidence);
    switch (kind) {
    case NoiseKind::Laplace:
        return sensitivity / (-half_width / std::log1p(-confidence));
    case NoiseKind::DiscreteLaplace: {
        // The largest q = exp(-epsilon / sensitivity) whose tail beyond floor(half_width) is small enough:
        // the tail grows with q, so bisect (200 halvings of (0, 1)).
        const double a = std::floor(half_width);
        double lo = 0, hi = 1;
        for (int i = 0; i < 200; ++i) {
            const double mid = (lo + hi) / 2;
            if (discrete_laplace_tail(mid, a) <= 1 - confidence)
                lo = mid;
            else
                hi = mid;
        }
        if (lo <= 0)
            throw InvalidArgument("no finite epsilon reaches that accuracy");
        return -sensitivity * std::log(lo);
    }
    case NoiseKind::Gaussian:
        require_open_unit("delta", delta);
        return gaussian_epsilon(sensitivity, half_width / normal_quantile((1 + confidence) / 2), delta,
                                GaussianCalibration::Analytic);
    }
    throw InternalError("unknown noise kind");
}

} // namespace gazepriv::core
