#include "broken_mechanisms.hpp"

#include <cmath>
#include <cstdint>

#include "core/noise/lattice_planar_laplace.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::audit {

namespace {

// u_k = k 2^-53 for k in [1, 2^53].
double textbook_noise(std::uint64_t k, double scale) {
    return scale * std::log(static_cast<double>(k) * 0x1.0p-53);
}

} // namespace

double textbook_laplace(double x, double scale, core::Rng& rng) {
    const std::uint64_t k = (rng.next_u64() >> 11) + 1;
    const double magnitude = textbook_noise(k, scale); // <= 0
    return rng.next_bit() ? x + magnitude : x - magnitude;
}

bool textbook_laplace_reachable(double y, double x, double scale) {
    for (int sign : {+1, -1}) {
        // f(k) = fl(x + sign fl(scale ln u_k)): non-decreasing in k for sign +1, non-increasing for -1.
        auto f = [&](std::uint64_t k) {
            const double m = textbook_noise(k, scale);
            return sign > 0 ? x + m : x - m;
        };
        std::uint64_t lo = 1, hi = std::uint64_t{1} << 53; // the first k with f(k) >= y (sign +1)
        auto before = [&](std::uint64_t k) { return sign > 0 ? f(k) < y : f(k) > y; };
        if (before(hi))
            continue;
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (before(mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (f(lo) == y)
            return true;
    }
    return false;
}

double LiteralKaleido::epsilon_test() const {
    const int t_skip_samples = static_cast<int>(std::ceil(t_skip_ms * 60 / 1000));
    const int n_test = (w + t_skip_samples - 1) / t_skip_samples;
    return epsilon / (h * n_test);
}

std::vector<StreamOutput> LiteralKaleido::run(const std::vector<double>& t, const std::vector<Point>& g,
                                              core::Rng& rng) const {
    const double eps_test = epsilon_test();
    const core::GridLaplace test_noise = core::GridLaplace::with_scale(r / eps_test);
    std::vector<StreamOutput> out(t.size());
    std::vector<double> published(t.size(), 0.0);
    bool have_release = false, have_test = false;
    double test_t = 0;
    Point release{NAN, NAN};
    for (std::size_t i = 0; i < t.size(); ++i) {
        StreamOutput& o = out[i];
        o = {release.x, release.y, StreamAction::Other, 0};
        if (have_test && t[i] - test_t < t_skip_ms)
            continue; // skip: the last release repeats
        have_test = true;
        test_t = t[i];
        if (have_release) {
            o.epsilon_spent = eps_test;
            const double distance = std::hypot(g[i].x - release.x, g[i].y - release.y);
            if (distance <= l_thresh + test_noise.noise(rng)) {
                o.action = StreamAction::Reused;
                continue;
            }
        }
        double window = 0; // publications of the previous w - 1 samples
        for (std::size_t j = i >= static_cast<std::size_t>(w - 1) ? i - (w - 1) : 0; j < i; ++j)
            window += published[j];
        published[i] = (epsilon - epsilon / h - window) / 2;
        const auto planar = core::LatticePlanarLaplace::for_budget(r, published[i]);
        const core::PlanarPoint p = planar->release(g[i].x, g[i].y, rng);
        release = {p.x, p.y};
        have_release = true;
        o = {p.x, p.y, StreamAction::Published, o.epsilon_spent + published[i]};
    }
    return out;
}

} // namespace gazepriv::audit
