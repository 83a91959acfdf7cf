// The accuracy of a noisy value from public facts only: the noise's standard deviation and the half-width
// of a two-sided interval that holds the noise with a given confidence, and the inverse (the epsilon a
// requested half-width needs). Nothing here reads data or draws noise.
#pragma once

#include <string>

namespace gazepriv::core {

enum class NoiseKind {
    Laplace,         // continuous Laplace(scale)
    DiscreteLaplace, // P(x) proportional to exp(-|x| / scale) on the integers (release_count)
    Gaussian,        // N(0, scale^2)
};
NoiseKind parse_noise_kind(const std::string& name); // laplace, discrete_laplace, gaussian
const char* to_string(NoiseKind kind);

struct Accuracy {
    double noise_sd; // standard deviation of the noise
    double
        half_width; // P(|noise| <= half_width) >= confidence, the smallest such value (an integer for counts)
};

// confidence in (0, 1); scale > 0 and finite.
Accuracy noise_accuracy(NoiseKind kind, double scale, double confidence);

// The smallest integer a with P(|Z| <= a) >= confidence for Z discrete Gaussian, P(z) proportional to
// exp(-z^2 / 2 sigma^2) on the integers (the heatmap's noise on capped sums).
double discrete_gaussian_half_width(double sigma, double confidence);

// The smallest epsilon whose noise (scale = sensitivity / epsilon for the Laplace kinds, the analytic
// Gaussian calibration at delta for Gaussian) keeps |noise| <= half_width with the given confidence.
// For discrete_laplace the half-width is taken down to an integer (the noise is integral).
double epsilon_for_accuracy(NoiseKind kind, double sensitivity, double half_width, double confidence,
                            double delta);

// The standard normal quantile Phi^-1(p), p in (0, 1).
double normal_quantile(double p);

// The distance, in units of the noise scale 1/epsilon, within which a planar Laplace displacement lies with
// the given confidence: the confidence quantile of its radius, Gamma(2, 1), i.e. the z solving
// (1 + z) e^-z = 1 - confidence (4.7439 for 0.95), rounded up so that P(radius <= z) >= confidence.
double planar_laplace_radius_quantile(double confidence);

} // namespace gazepriv::core
