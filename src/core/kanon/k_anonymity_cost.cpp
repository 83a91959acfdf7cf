#include <string>

#include "core/common/errors.hpp"
#include "core/common/json.hpp"
#include "core/kanon/k_anonymity_cost.hpp"

namespace gazepriv::core::kanon {

namespace {

void check_k(int k) {
    if (k < 2)
        throw InvalidArgument("k must be at least 2, got " + std::to_string(k));
}

ReleaseCost k_anonymity_release(const char* mechanism, bool data_dependent, std::string parameters) {
    ReleaseCost cost;
    cost.epsilon = 0;
    cost.delta = 0;
    cost.rho = -1;
    cost.guarantee = Guarantee::KAnonymity;
    cost.non_private_choices = data_dependent;
    cost.mechanism = mechanism;
    cost.parameters_json = std::move(parameters);
    return cost;
}

} // namespace

ReleaseCost k_same_select_cost(int k, const char* class_column, bool across_tasks, const char* source) {
    check_k(k);
    JsonObject json;
    json.add("k", k);
    json.add("across_tasks", across_tasks);
    json.add("grouping", across_tasks ? "across tasks" : "per task (paper)");
    json.add("class_column", class_column);
    json.add("source", source);
    return k_anonymity_release("k_same_select", false, json.str());
}

ReleaseCost generalize_demographics_cost(const char* mechanism, int k, const char* gender_column,
                                         const char* age_column, const std::vector<std::string>* ranges,
                                         const char* source) {
    check_k(k);
    JsonObject json;
    json.add("k", k);
    json.add_raw("quasi_identifiers", json_array(std::vector<std::string>{JsonObject::quote(gender_column),
                                                                          JsonObject::quote(age_column)}));
    if (ranges != nullptr) {
        std::vector<std::string> quoted;
        for (const std::string& range : *ranges)
            quoted.push_back(JsonObject::quote(range));
        json.add_raw("ranges", json_array(quoted));
    } else {
        json.add_null("ranges");
    }
    json.add("source", source);
    return k_anonymity_release(mechanism, ranges == nullptr, json.str());
}

} // namespace gazepriv::core::kanon
