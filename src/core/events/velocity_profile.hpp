// The Gaussian saccade velocity profile v(tau) = a exp(-(tau - b)^2 / (2 c^2)) that k-same-synth and
// event-synth-PD resample (TVCG 2023 supplement §2.1-2.2), fitted to a saccade's sample velocities.
#pragma once

#include <cstddef>

namespace gazepriv::core {

struct VelocityProfile {
    double a = 0, b = 0, c = 0; // peak velocity, time of the peak, width (same time unit as tau)
    bool ok = false;            // false when fewer than two positive velocities or no finite fit
};

// Fits the profile to the points (tau[i], v[i]); points with non-positive or non-finite v are
// ignored. The estimator is the closed-form Gaussian fit of Caruana et al. (1986) with Guo's (2011)
// weights: ln v is a parabola in tau, fitted by least squares weighted by v^2 (which undoes the
// noise amplification of the logarithm at small v); it recovers a noise-free Gaussian exactly, in
// O(points) with no iteration. When the parabola opens upwards (monotone or valley-shaped samples,
// common with 2-4 samples at 60 Hz) or the fit is implausible (peak outside the sampled span, width
// beyond it, peak above four times the fastest sample), the moments of v as a density are used:
// a = the fastest sample, b = the v-weighted mean of tau, c = the v-weighted standard deviation.
// With two points only the moments are defined.
VelocityProfile fit_velocity_profile(const double* tau, const double* v, std::size_t n);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
