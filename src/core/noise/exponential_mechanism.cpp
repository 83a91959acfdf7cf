#include "core/noise/exponential_mechanism.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"
#include "core/noise/discrete.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::core {

namespace {

// The utilities as integers on the grid, their gaps to the best, and the exponent's rational scale:
// weight_i = exp(-gap_i s / t).
struct RoundedUtilities {
    std::vector<std::int64_t> gap;
    RationalScale scale;
};

// exp(-x) with x > kNeverAccepted is below 2^-1500: such candidates are never proposed successfully.
constexpr double kNeverAccepted = 1100;

RoundedUtilities round_utilities(const std::vector<double>& utility, double sensitivity, double bound,
                                 double epsilon) {
    if (utility.empty())
        throw InvalidArgument("the exponential mechanism needs at least one candidate");
    require_positive("sensitivity", sensitivity);
    require_positive("utility bound", bound);
    require_epsilon("epsilon", epsilon);
    const double gamma = std::max(grid_below(sensitivity, 30), grid_below(bound, 40));
    const double effective = sensitivity + 3 * gamma;
    std::vector<std::int64_t> units(utility.size());
    for (std::size_t i = 0; i < utility.size(); ++i) {
        if (!std::isfinite(utility[i]) || std::fabs(utility[i]) > bound)
            throw InternalError("a utility of the exponential mechanism is outside its public bound");
        units[i] = static_cast<std::int64_t>(std::nearbyint(utility[i] / gamma)); // |.| <= 2^41
    }
    const std::int64_t best = *std::max_element(units.begin(), units.end());
    RoundedUtilities r{{}, rational_scale_at_least(2 * effective / (epsilon * gamma))};
    r.gap.reserve(units.size());
    for (const std::int64_t u : units)
        r.gap.push_back(best - u);
    return r;
}

double exponent(const RoundedUtilities& r, std::size_t i) {
    return static_cast<double>(r.gap[i]) * static_cast<double>(r.scale.s) / static_cast<double>(r.scale.t);
}

} // namespace

std::size_t exponential_mechanism(const std::vector<double>& utility, double sensitivity, double bound,
                                  double epsilon, Rng& rng, const CancelCheck& cancel) {
    const RoundedUtilities r = round_utilities(utility, sensitivity, bound, epsilon);
    for (std::size_t proposal = 0;; ++proposal) {
        cancel.poll(proposal);
        const std::size_t i = static_cast<std::size_t>(rng.uniform_below(r.gap.size()));
        if (exponent(r, i) > kNeverAccepted)
            continue;
        if (bernoulli_exp_neg(rng, static_cast<u128>(r.gap[i]) * r.scale.s, r.scale.t))
            return i;
    }
}

std::vector<double> exponential_mechanism_probabilities(const std::vector<double>& utility,
                                                        double sensitivity, double bound, double epsilon) {
    const RoundedUtilities r = round_utilities(utility, sensitivity, bound, epsilon);
    std::vector<double> p(r.gap.size());
    double total = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double x = exponent(r, i);
        p[i] = x > kNeverAccepted ? 0 : std::exp(-x);
        total += p[i];
    }
    for (double& v : p)
        v /= total;
    return p;
}

} // namespace gazepriv::core
