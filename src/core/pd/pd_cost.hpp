// What a plausible-deniability synthesis costs, computed from its parameters before any candidate is made.
//
// Deterministic tests ((k, gamma)-PD, not DP): epsilon 0 and delta 0, guarantee plausible-deniability; a DP
// model (model_epsilon) adds its epsilon.
//
// Randomized test (Bindschaedler et al. 2017, Theorem 1; doc/privacy/pd.md §4): one invocation of
// Mechanism 1 (a seed drawn uniformly from the task's seed records, one candidate, the test against
// k + Lap(1/epsilon0), the candidate or nothing released) is (epsilon, delta)-DP for adding or removing one
// record (feature vector) of the task, for any integer 1 <= t < k:
//     epsilon = epsilon0 + ln(1 + gamma / t),    delta = exp(-epsilon0 (k - t)),
// provided the model does not depend on the seeds (it is DP itself here: model_epsilon). The threshold noise
// is exact discrete Laplace: k' is an integer, and the proof only uses that the noise's distribution function
// changes by at most e^epsilon0 per unit step and that P(Z <= -(k - t)) <= exp(-epsilon0 (k - t)); the
// discrete Laplace of scale 1/epsilon0 has both.
// A release makes at most C = max_attempts x (records of the largest task) invocations per task; a record
// belongs to one task, so tasks compose in parallel and invocations within a task compose basically:
//     test epsilon = C epsilon,    test delta = C delta.
// The DP model (discrete Laplace of scale features / model_epsilon on every marginal count) adds
// model_epsilon when it is learned from the seeds themselves, and composes in parallel with the test (max)
// when it is learned from a disjoint random split. t: a parameter, or the largest t (smallest epsilon) whose
// composed delta meets target_delta. The stratification (which participant, task and window rows exist)
// is released exactly, as the paper does, and is outside the guarantee: treat it as public.
#pragma once

#include <cstddef>

#include "core/pd/pd_synthesis.hpp"
#include "core/common/release_cost.hpp"

namespace gazepriv::core::pd {

// Per invocation of Mechanism 1 with the randomized test.
struct InvocationPrivacy {
    double epsilon;
    double delta;
};
// The theorem (k >= 2, 1 <= t < k, gamma >= 1, epsilon0 > 0).
InvocationPrivacy randomized_test_privacy(int k, double gamma, double epsilon0, int t);

// The largest t in [1, k - 1] with invocations * exp(-epsilon0 (k - t)) <= delta_target, or 0 if none.
int largest_t(int k, double epsilon0, double invocations, double delta_target);

// The release's cost. largest_task_rows bounds the slots of one task (its seed records); params.records, when
// set, is the public bound used instead.
ReleaseCost synthesis_cost(const SynthesisParams& params, std::size_t features,
                           std::size_t largest_task_rows);

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
