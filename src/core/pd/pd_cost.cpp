#include "core/pd/pd_cost.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/json.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core::pd {

namespace {

std::string integer(double x) {
    return std::to_string(static_cast<long long>(x));
}

} // namespace

InvocationPrivacy randomized_test_privacy(int k, double gamma, double epsilon0, int t) {
    require_range("k", k, 2, 1000000000);
    require_range("t", t, 1, k - 1);
    if (!(std::isfinite(gamma) && gamma >= 1))
        throw InvalidArgument("gamma must be a finite number of at least 1, got " + format_number(gamma));
    require_positive("epsilon0", epsilon0);
    return {epsilon0 + std::log1p(gamma / t), std::exp(-epsilon0 * (k - t))};
}

int largest_t(int k, double epsilon0, double invocations, double delta_target) {
    // invocations e^{-epsilon0 (k - t)} <= target  <=>  t <= k - ln(invocations / target) / epsilon0.
    const double bound = k - std::log(invocations / delta_target) / epsilon0;
    int t = static_cast<int>(std::min<double>(k - 1, std::floor(bound)));
    while (t >= 1 && invocations * std::exp(-epsilon0 * (k - t)) > delta_target) // rounding at the boundary
        --t;
    return std::max(t, 0);
}

ReleaseCost synthesis_cost(const SynthesisParams& p, std::size_t features, std::size_t largest_task_rows) {
    validate(p);
    validate_for_features(p, features);
    ReleaseCost cost;
    cost.mechanism = "pd_synthesize";
    cost.non_private_choices = p.bounds.empty(); // bins over each task's data range
    const double model_epsilon = p.model_epsilon.value_or(0);
    const double slots = p.records ? static_cast<double>(*p.records) : static_cast<double>(largest_task_rows);
    const double invocations = static_cast<double>(p.attempts()) * slots;

    JsonObject json;
    json.add("k", p.k);
    json.add("gamma", p.gamma);
    json.add("bins", p.bins);
    json.add("model", to_string(p.model));
    if (p.model == ModelKind::SeedBased) {
        json.add("omega", *p.omega);
        json.add("resample", p.resample == Resample::Random ? "random" : "last");
    }
    json.add("test", p.randomized() ? "randomized" : to_string(p.test));
    json.add("alpha", p.alpha);
    json.add("split", p.split);
    json.add("max_attempts", p.attempts());
    if (p.records)
        json.add("records", *p.records);
    json.add("bounds", p.bounds.empty() ? "data range (non-private)" : "public");
    if (p.model_epsilon)
        json.add("model_epsilon", model_epsilon);

    if (!p.randomized()) {
        cost.guarantee = Guarantee::PlausibleDeniability;
        cost.epsilon = model_epsilon;
        cost.delta = 0;
        cost.parameters_json = json.str();
        return cost;
    }
    const double epsilon0 = *p.epsilon0;
    int t = 0;
    if (p.t) {
        t = *p.t;
    } else {
        t = largest_t(p.k, epsilon0, invocations, *p.target_delta);
        if (t == 0)
            throw InvalidArgument(
                "no t in [1, k - 1] meets target_delta " + format_number(*p.target_delta) + " over " +
                integer(invocations) +
                " candidates (max_attempts x the largest task's records): raise k or epsilon0, or lower "
                "max_attempts");
    }
    const InvocationPrivacy per = randomized_test_privacy(p.k, p.gamma, epsilon0, t);
    const double test_epsilon = invocations * per.epsilon;
    const double test_delta = invocations * per.delta;
    if (p.target_delta && test_delta > *p.target_delta)
        throw InvalidArgument("t = " + std::to_string(t) + " gives a composed delta of " +
                              format_number(test_delta) + ", above target_delta " +
                              format_number(*p.target_delta));
    if (!(test_delta < 1))
        throw InvalidArgument("the composed delta " + format_number(test_delta) + " over " +
                              integer(invocations) +
                              " candidates is not below 1: raise k or epsilon0, or lower t or max_attempts");
    cost.guarantee = Guarantee::RecordDifferentialPrivacy; // one feature vector added or removed
    cost.epsilon = p.split > 0 ? std::max(model_epsilon, test_epsilon) : model_epsilon + test_epsilon;
    cost.delta = test_delta;
    json.add("epsilon0", epsilon0);
    json.add("t", t);
    json.add("candidates", static_cast<std::int64_t>(invocations));
    json.add("epsilon_per_candidate", per.epsilon);
    json.add("delta_per_candidate", per.delta);
    json.add("neighbouring", "add/remove one feature vector of a task");
    json.add("composition",
             std::string("basic over candidates within a task, parallel over tasks") +
                 (p.split > 0 ? ", parallel with the model (disjoint split)" : ", plus the model"));
    if (p.target_delta)
        json.add("target_delta", *p.target_delta);
    cost.parameters_json = json.str();
    return cost;
}

} // namespace gazepriv::core::pd
