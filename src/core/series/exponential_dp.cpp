#include "core/series/exponential_dp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/common/json.hpp"
#include "core/noise/noise.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {
constexpr Named<ExponentialDpVariant> kVariants[] = {{ExponentialDpVariant::Laplace, "laplace"},
                                                     {ExponentialDpVariant::Paper, "paper"}};
} // namespace

ExponentialDpVariant parse_exponential_dp_variant(const std::string& name) {
    return parse_name(kVariants, "variant", name);
}

const char* to_string(ExponentialDpVariant variant) {
    return name_of(kVariants, variant);
}

double steil_noise(double lambda, std::size_t t_max, Rng& rng) {
    double y = 0;
    while (y == 0) // probability about 2^-40 per draw on the grid; ln 0 is undefined
        y = grid_exponential(rng, 1 / lambda);
    const double r = std::log(y) / (lambda * static_cast<double>(t_max));
    return rng.next_bit() ? -r : r;
}

namespace {

// max - min of each feature's finite values (after clipping to the bounds, when there are bounds).
std::vector<double> empirical_ranges(const SeriesRows& rows, std::size_t features,
                                     const std::vector<FeatureBounds>& bounds) {
    std::vector<double> lo(features, std::numeric_limits<double>::infinity());
    std::vector<double> hi(features, -std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < rows.count; ++i) {
        for (std::size_t j = 0; j < rows.width; ++j) {
            const double v = rows.values[i * rows.width + j];
            if (!std::isfinite(v))
                continue;
            const std::size_t f = rows.feature != nullptr ? static_cast<std::size_t>(rows.feature[i]) : j;
            const double c = bounds.empty() ? v : std::clamp(v, bounds[f].lo, bounds[f].hi);
            lo[f] = std::min(lo[f], c);
            hi[f] = std::max(hi[f], c);
        }
    }
    std::vector<double> ranges(features, 0.0);
    for (std::size_t f = 0; f < features; ++f)
        ranges[f] = hi[f] > lo[f] ? hi[f] - lo[f] : 0.0;
    return ranges;
}

} // namespace

void check_exponential_dp_config(const ExponentialDpConfig& config) {
    require_epsilon("epsilon", config.epsilon);
    if (config.sensitivity == SensitivityMode::Clipped && config.bounds.empty())
        throw InvalidArgument(
            "sensitivity => 'clipped' needs public bounds => ARRAY[lo, hi] (or one [lo, hi] row "
            "per feature); sensitivity => 'empirical' is the papers' data-dependent (non-private) "
            "range");
}

PreparedExponentialDp prepare_exponential_dp(const SeriesRows& rows, const ExponentialDpConfig& config,
                                             const CancelCheck& cancel, const SignalStorage& storage) {
    check_exponential_dp_config(config);
    const std::size_t features = rows.feature != nullptr ? rows.features : rows.width;
    std::vector<FeatureBounds> bounds = expand_bounds(config.bounds, features);
    PreparedExponentialDp prepared{
        assemble_series(rows, config.length, Padding::RepeatLast, bounds, cancel, storage, config.max_values),
        {}};
    ExponentialDpPlan& plan = prepared.plan;
    if (config.sensitivity == SensitivityMode::Clipped) {
        for (const FeatureBounds& b : bounds)
            plan.ranges.push_back(b.width());
    } else {
        plan.ranges = empirical_ranges(rows, features, bounds);
    }
    plan.bounds = std::move(bounds);

    double t_max_total = 0;
    std::vector<std::size_t> t_max;
    for (const SignalGroup& group : prepared.data.groups) {
        t_max_total += static_cast<double>(group.length);
        t_max.push_back(group.length);
    }
    const double f = static_cast<double>(features);
    plan.paper_epsilon = config.epsilon * f;
    const double user_level = f * t_max_total * config.epsilon / 2;

    ReleaseCost& cost = plan.cost;
    const bool paper = config.variant == ExponentialDpVariant::Paper;
    cost.epsilon = paper ? plan.paper_epsilon : user_level;
    cost.delta = 0;
    cost.rho = -1;
    cost.guarantee = Guarantee::DifferentialPrivacy;
    cost.mechanism = paper ? "exponential_dp_paper" : "exponential_dp_laplace";
    std::vector<std::string> non_private;
    if (paper)
        non_private.push_back("paper-literal noise, no DP proof");
    if (config.sensitivity == SensitivityMode::Empirical)
        non_private.push_back("empirical feature ranges");
    if (prepared.data.length_from_data)
        non_private.push_back("t_max read from the data");
    cost.non_private_choices = !non_private.empty();
    std::vector<std::string> reasons;
    for (const std::string& reason : non_private)
        reasons.push_back(JsonObject::quote(reason));
    JsonObject json;
    json.add("variant", to_string(config.variant));
    json.add("epsilon_per_feature", config.epsilon);
    json.add("sensitivity", to_string(config.sensitivity));
    json.add_raw("ranges", json_array(plan.ranges));
    json.add_raw("t_max", json_array(t_max));
    json.add("features", features);
    json.add("dp_proof", !paper);
    json.add("neighbours", "one participant's signals (every feature and recording)");
    if (paper)
        json.add_null("participant_epsilon");
    else
        json.add("participant_epsilon", user_level);
    json.add("paper_epsilon", plan.paper_epsilon);
    json.add_raw("non_private", json_array(reasons));
    cost.parameters_json = json.str();
    return prepared;
}

void release_exponential_dp(PreparedExponentialDp& prepared, const ExponentialDpConfig& config, Rng& rng,
                            const CancelCheck& cancel) {
    for (SignalGroup& group : prepared.data.groups) {
        const std::size_t t_max = group.length;
        for (std::size_t f = 0; f < prepared.data.features; ++f) {
            cancel.now();
            const double range = prepared.plan.ranges[f];
            if (range == 0)
                continue; // a constant feature: the paper's lambda is undefined, its noise zero
            // Laplace: each value is its own (epsilon/2)-DP release, one coordinate of rounding each.
            const GridLaplace laplace = GridLaplace::mechanism(range, config.epsilon / 2, 1);
            const double lambda = config.epsilon / (2 * static_cast<double>(t_max) * range);
            for (std::size_t p = 0; p < group.participants.size(); ++p) {
                double* x = group.signal(f, p);
                if (config.variant == ExponentialDpVariant::Laplace) {
                    fast_grid_laplace_release(laplace, x, x, t_max, rng, cancel);
                    continue;
                }
                for (std::size_t t = 0; t < t_max; ++t) {
                    cancel.poll(t);
                    x[t] += steil_noise(lambda, t_max, rng);
                }
            }
        }
    }
}

} // namespace gazepriv::core
