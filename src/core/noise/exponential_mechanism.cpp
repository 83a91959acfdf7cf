#include "core/noise/exponential_mechanism.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"
#include "core/noise/discrete.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::core {

namespace {

// exp(-x) with x > kNeverAccepted is below 2^-1500: such candidates are never proposed successfully.
constexpr double kNeverAccepted = 1100;

// The gaps to the best utility and the exponent's rational scale: weight_i = exp(-gap_i s / t).
struct Gaps {
    std::vector<std::uint64_t> gap;
    RationalScale scale;
    double exponent(std::size_t i) const {
        return static_cast<double>(gap[i]) * static_cast<double>(scale.s) / static_cast<double>(scale.t);
    }
};

Gaps gaps(const std::vector<std::int64_t>& utility, std::int64_t sensitivity, double epsilon) {
    if (utility.empty())
        throw InvalidArgument("the exponential mechanism needs at least one candidate");
    if (sensitivity < 1)
        throw InvalidArgument("the exponential mechanism's sensitivity must be at least one unit");
    require_epsilon("epsilon", epsilon);
    const std::int64_t best = *std::max_element(utility.begin(), utility.end());
    Gaps g{{}, rational_scale_at_least(2 * static_cast<double>(sensitivity) / epsilon)};
    g.gap.reserve(utility.size());
    for (const std::int64_t u : utility) // best - u: both in (-2^62, 2^62), so no overflow
        g.gap.push_back(static_cast<std::uint64_t>(best - u));
    return g;
}

} // namespace

double utility_grid(double sensitivity, double bound) {
    require_positive("utility sensitivity", sensitivity);
    require_positive("utility bound", bound);
    return std::max(grid_below(sensitivity, 30), grid_below(bound, 59));
}

std::int64_t to_units(double value, double grid) {
    const double units = std::nearbyint(value / grid);
    if (!(std::fabs(units) < 0x1.0p61))
        throw InternalError("a utility of the exponential mechanism is outside its public bound");
    return static_cast<std::int64_t>(units);
}

std::int64_t utility_units_sensitivity(double sensitivity, double grid) {
    return static_cast<std::int64_t>(std::ceil(sensitivity / grid));
}

std::size_t exponential_mechanism(const std::vector<std::int64_t>& utility, std::int64_t sensitivity,
                                  double epsilon, Rng& rng, const CancelCheck& cancel) {
    const Gaps g = gaps(utility, sensitivity, epsilon);
    for (std::size_t proposal = 0;; ++proposal) {
        cancel.poll(proposal);
        const std::size_t i = static_cast<std::size_t>(rng.uniform_below(g.gap.size()));
        if (g.exponent(i) > kNeverAccepted)
            continue;
        if (bernoulli_exp_neg(rng, static_cast<u128>(g.gap[i]) * g.scale.s, g.scale.t))
            return i;
    }
}

std::vector<double> exponential_mechanism_probabilities(const std::vector<std::int64_t>& utility,
                                                        std::int64_t sensitivity, double epsilon) {
    const Gaps g = gaps(utility, sensitivity, epsilon);
    std::vector<double> p(g.gap.size());
    double total = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double x = g.exponent(i);
        p[i] = x > kNeverAccepted ? 0 : std::exp(-x);
        total += p[i];
    }
    for (double& v : p)
        v /= total;
    return p;
}

} // namespace gazepriv::core
