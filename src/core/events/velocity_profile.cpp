#include "core/events/velocity_profile.hpp"

#include <algorithm>
#include <cmath>

namespace gazepriv::core {

namespace {

bool usable(const VelocityProfile& f) {
    return std::isfinite(f.a) && std::isfinite(f.b) && std::isfinite(f.c) && f.a > 0 && f.c > 0;
}

// Solves the 3x3 system m x = r by Gaussian elimination with partial pivoting; false if singular.
bool solve3(double m[3][3], double r[3], double x[3]) {
    for (int col = 0; col < 3; ++col) {
        int pivot = col;
        for (int row = col + 1; row < 3; ++row)
            if (std::fabs(m[row][col]) > std::fabs(m[pivot][col]))
                pivot = row;
        if (!(std::fabs(m[pivot][col]) > 1e-300))
            return false;
        std::swap(m[col], m[pivot]);
        std::swap(r[col], r[pivot]);
        for (int row = col + 1; row < 3; ++row) {
            const double f = m[row][col] / m[col][col];
            for (int k = col; k < 3; ++k)
                m[row][k] -= f * m[col][k];
            r[row] -= f * r[col];
        }
    }
    for (int row = 2; row >= 0; --row) {
        double s = r[row];
        for (int k = row + 1; k < 3; ++k)
            s -= m[row][k] * x[k];
        x[row] = s / m[row][row];
    }
    return std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]);
}

} // namespace

VelocityProfile fit_velocity_profile(const double* tau, const double* v, std::size_t n) {
    // Pass 1: the usable points, their span, peak and moments (v taken as a density over tau).
    double lo = INFINITY, hi = -INFINITY, vmax = 0, w = 0, wt = 0;
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(tau[i]) && std::isfinite(v[i]) && v[i] > 0) {
            lo = std::min(lo, tau[i]);
            hi = std::max(hi, tau[i]);
            vmax = std::max(vmax, v[i]);
            w += v[i];
            wt += v[i] * tau[i];
            ++m;
        }
    if (m < 2)
        return {};
    VelocityProfile moments;
    moments.a = vmax;
    moments.b = wt / w;
    double wvar = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(tau[i]) && std::isfinite(v[i]) && v[i] > 0)
            wvar += v[i] * (tau[i] - moments.b) * (tau[i] - moments.b);
    moments.c = std::sqrt(wvar / w);
    moments.ok = usable(moments);
    if (m < 3)
        return moments;

    // Pass 2: ln v = alpha + beta u + gamma u^2, u = (tau - centre) / scale, least squares weighted by
    // v^2 (Guo 2011: the weights undo the noise amplification of the logarithm at small v).
    const double centre = 0.5 * (lo + hi), scale = hi > lo ? 0.5 * (hi - lo) : 1.0;
    double mat[3][3] = {}, rhs[3] = {};
    for (std::size_t i = 0; i < n; ++i) {
        if (!(std::isfinite(tau[i]) && std::isfinite(v[i]) && v[i] > 0))
            continue;
        const double u = (tau[i] - centre) / scale, weight = v[i] * v[i], lv = std::log(v[i]);
        const double basis[3] = {1, u, u * u};
        for (int j = 0; j < 3; ++j) {
            rhs[j] += weight * basis[j] * lv;
            for (int k = 0; k < 3; ++k)
                mat[j][k] += weight * basis[j] * basis[k];
        }
    }
    double x[3];
    if (!solve3(mat, rhs, x) || !(x[2] < 0))
        return moments; // opens upwards: monotone or valley-shaped samples have no Gaussian peak
    VelocityProfile fit;
    fit.b = centre + scale * (-x[1] / (2 * x[2]));
    fit.c = scale * std::sqrt(-1 / (2 * x[2]));
    fit.a = std::exp(x[0] - x[1] * x[1] / (4 * x[2]));
    // Nearly flat or one-sided samples extrapolate to absurd peaks and widths: keep the moments then.
    fit.ok = usable(fit) && fit.b >= lo && fit.b <= hi && fit.c <= hi - lo && fit.a <= 4 * vmax;
    return fit.ok ? fit : moments;
}

} // namespace gazepriv::core
