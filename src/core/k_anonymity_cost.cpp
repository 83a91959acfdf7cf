#include <cstdio>
#include <string>

#include "core/errors.hpp"
#include "core/k_anonymity_cost.hpp"

namespace gazepriv::core::kanon {

namespace {

std::string json_string(const char* s) {
    if (s == nullptr)
        return "null";
    std::string out = "\"";
    for (const char* p = s; *p != '\0'; ++p) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

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
    return k_anonymity_release(
        "k_same_select", false,
        "{\"k\": " + std::to_string(k) + ", \"across_tasks\": " + (across_tasks ? "true" : "false") +
            ", \"grouping\": " + (across_tasks ? "\"across tasks\"" : "\"per task (paper)\"") +
            ", \"class_column\": " + json_string(class_column) + ", \"source\": " + json_string(source) +
            "}");
}

ReleaseCost generalize_demographics_cost(const char* mechanism, int k, const char* gender_column,
                                         const char* age_column, const std::vector<std::string>* ranges,
                                         const char* source) {
    check_k(k);
    std::string given = "null";
    if (ranges != nullptr) {
        given = "[";
        for (std::size_t i = 0; i < ranges->size(); ++i)
            given += (i == 0 ? "" : ", ") + json_string((*ranges)[i].c_str());
        given += "]";
    }
    return k_anonymity_release(mechanism, ranges == nullptr,
                               "{\"k\": " + std::to_string(k) + ", \"quasi_identifiers\": [" +
                                   json_string(gender_column) + ", " + json_string(age_column) +
                                   "], \"ranges\": " + given + ", \"source\": " + json_string(source) + "}");
}

} // namespace gazepriv::core::kanon
