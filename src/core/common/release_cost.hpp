// What one release costs in privacy: the vocabulary shared by every mechanism and the budget ledger.
// A releasing function computes its ReleaseCost in one place, from its parameters only, before it
// draws any noise; the budget charges exactly this.
#pragma once

#include <string>

namespace gazepriv::core {

// DifferentialPrivacy is participant-level. WEventDifferentialPrivacy: epsilon bounds the loss of any w
// consecutive samples of one stream (Kalεido). RecordDifferentialPrivacy: epsilon bounds the loss of one
// record (feature vector), not of a participant's many records (the randomized plausible-deniability test).
// Participant-level DP implies both narrower ones, so a budget summing all kinds bounds the narrower losses;
// the ledger labels each charge with its kind.
enum class Guarantee {
    DifferentialPrivacy,
    WEventDifferentialPrivacy,
    RecordDifferentialPrivacy,
    KAnonymity,
    PlausibleDeniability
};

struct ReleaseCost {
    double epsilon = 0; // basic-composition epsilon of the whole release
    double delta = 0;   // basic-composition delta (includes sampler statistical distance)
    double rho = -1;    // zCDP rho when the release is Gaussian, -1 otherwise
    // Total variation between the release as sampled and the exact mechanism rho is stated for (the
    // discrete Gaussian table sampler's d 2^-55; 0 for exact samplers). Basic composition has it in delta
    // already; a zCDP budget charges it beside rho (as (1 + e^epsilon_limit) sampler_distance of delta).
    double sampler_distance = 0;
    Guarantee guarantee = Guarantee::DifferentialPrivacy;
    bool non_private_choices = false; // a data-dependent choice (empirical sensitivity, bins, ...) was made
    std::string mechanism;            // e.g. "dp_heatmap", "cfpa"
    std::string parameters_json;      // the parameters, as a JSON object, for the ledger
};

inline const char* to_string(Guarantee g) {
    switch (g) {
    case Guarantee::DifferentialPrivacy:
        return "dp";
    case Guarantee::WEventDifferentialPrivacy:
        return "w-event";
    case Guarantee::RecordDifferentialPrivacy:
        return "record-dp";
    case Guarantee::KAnonymity:
        return "k-anonymity";
    case Guarantee::PlausibleDeniability:
        return "plausible-deniability";
    }
    return "?";
}

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
