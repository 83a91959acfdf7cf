// The planar Laplace mechanism (Andres et al., CCS 2013) released on a public lattice, so that the
// floating-point realisation keeps a proven guarantee.
//
// The textbook release x0 + rho (cos theta, sin theta) computed in doubles has the flaw Mironov (2012)
// showed for the 1-D Laplace: the set of doubles an output can take depends on x0, so some outputs are
// possible from one input and impossible from a neighbour. Andres et al. (Sec. 4) discretise the output
// to a grid and enlarge epsilon to pay for the finite precision. This class does it as follows:
//
//  1. Lattice. Outputs lie on the public lattice g Z^2, g = 2^(floor(log2(r / epsilon)) - 16), i.e.
//     2^-17 to 2^-16 of the noise scale. The input is rounded to the lattice (clamped to +-2^62 steps,
//     1-Lipschitz), the noise vector is rounded to the lattice, and they are added as integers. The
//     output is thus a function of (rounded input, lattice noise), and the lattice noise does not depend
//     on the input; converting the integer sum to a double (exact below 2^53 steps) is post-processing.
//  2. Rounding the input moves two inputs at distance d at most d + sqrt(2) g apart, so the noise is
//     calibrated for the radius r + sqrt(2) g.
//  3. Floating point. The radius is exact (Gamma(2) as two exact geometric draws on the grid 2^-40 of
//     the scale, noise.hpp) and the angle is one of 2^53 equally spaced values. Coupled with an ideal
//     continuous planar Laplace sample Y, the computed noise vector differs from Y by at most
//     delta_c = rho_max 2^-47 + 2 gamma per coordinate while rho <= rho_max = 1024 scales (cos/sin
//     within 1 ulp, the angle within 6 pi 2^-53, the products within 1 ulp, the radius within two grid
//     steps gamma; together under rho 2^-48.5 + 2 gamma, with a factor 2.8 to spare). Snapping Y itself to
//     the lattice is exactly epsilon-geo-indistinguishable: a cell's probability and the probability of the
//     cell shifted by D differ by at most e^(epsilon |D|), since the density does pointwise. The computed
//     noise lands in a different cell than Y only when Y lies within delta_c of a cell edge, so every cell
//     probability is within a factor (1 +- kappa) of the ideal one, kappa = ((1 + 2 delta_c/g)^2 - 1)
//     e^(epsilon sqrt(2) (g + 2 delta_c)). The release is therefore epsilon_noise (r + sqrt(2) g) + ln((1 +
//     kappa)/(1 - kappa)) <= epsilon geo- indistinguishable at distance r, except on the event rho > rho_max
//     (probability below e^-1000, like the tail rejections of the exact samplers). for_budget() chooses
//     epsilon_noise so that this sum is at most the requested epsilon; the deduction is about 6e-5 per
//     release.
#pragma once

#include <optional>

#include "core/noise/fast_exact_noise.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

struct PlanarPoint {
    double x;
    double y;
};

class LatticePlanarLaplace {
public:
    // A release that is epsilon-geo-indistinguishable for inputs at distance r: ratio of output
    // probabilities at most e^(epsilon d / r) for inputs at distance d <= r. Empty when the
    // floating-point deduction would take more than half of epsilon (the budget is too small to be
    // worth a release) or when r / epsilon is outside [2^-900, 2^900].
    static std::optional<LatticePlanarLaplace> for_budget(double r, double epsilon);

    double lattice() const { return lattice_; }
    // The planar Laplace parameter per unit of distance actually used for the radius.
    double epsilon_noise() const { return epsilon_noise_; }
    // The part of the budget that pays for rounding and floating point (epsilon - epsilon_noise r).
    double deduction() const { return deduction_; }

    // x0 + noise, on the lattice. x and y must be finite.
    PlanarPoint release(double x, double y, Rng& rng) const;

    // The accuracy of release(): a distance within which the released point lies from the input (x, y)
    // with probability at least `confidence`, for inputs within 2^52 lattice steps (over 2^35 noise
    // scales) of the origin, which are neither clamped nor rounded on the way back to a double. From the
    // mechanism's parameters alone. See accuracy_radius in the .cpp for the derivation.
    double accuracy_radius(double confidence) const;
    // The same for a precomputed z = planar_laplace_radius_quantile(confidence) (accuracy.hpp), which
    // costs a bisection.
    double accuracy_radius_at_quantile(double z) const;

private:
    LatticePlanarLaplace(double lattice, double epsilon_noise, double deduction)
        : lattice_(lattice), epsilon_noise_(epsilon_noise), deduction_(deduction),
          radius_half_(FastGridExponential::with_mean(1 / epsilon_noise)) {}
    double lattice_;
    double epsilon_noise_;
    double deduction_;
    FastGridExponential radius_half_; // the radius is the sum of two of these (Gamma(2, 1/epsilon_noise))
};

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
