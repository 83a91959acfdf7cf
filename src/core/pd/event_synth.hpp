// event-synth-PD (David-John et al., TVCG 2023, supplement §2.2, Alg. 2.2; doc/privacy/pd.md §8): a
// participant's fixations and saccades become a synthetic sample stream, each event redrawn until the PD
// event test passes against the other participants' events of the same task.
//  * Sampling times: the public grid j * 1000 / sampling_rate_hz (j an integer) within each event's
//    [start_ms, end_ms]; an event with no grid time in its span gives no samples and is left out.
//  * Fixations: exactly pd_fixations.hpp (t = the event's grid times; the same t and task compete).
//  * Saccades: the C-VAE's encoder (saccade_cvae.hpp) maps the seed saccade to `latent` independent Normals
//    N(mu_j, sigma_j^2); the candidate y = (z_1 .. z_latent) is drawn from them (mu_j + sigma_j n, n an exact
//    discrete Gaussian on a grid of 2^-24); log Pr{y = M(d)} = sum_j log phi(z_j; mu_dj, sigma_dj) for every
//    saccade d of the task through the same encoder. Test: k' = participants other than the seed's with at
//    least one saccade in the seed's band (pd_privacy_check.hpp BandMatcher); pass iff k' >= k - 1; at most
//    max_attempts candidates. A passing candidate is decoded under the seed's condition (its amplitude and
//    duration, as the supplement's z (+) c) into a speed profile of P equal bins (negative values read as 0).
//  * Saccade samples: on the segment from the sample mean of the participant's last released fixation of the
//    task that starts before the saccade to that of the first one that starts after it (a passing saccade
//    without a released fixation on both sides is left out: its own end points are raw gaze positions), at
//    the share of the path the decoded profile has covered (constant speed if it is all 0).
// Released exactly: which events exist, their types, start and end times (hence counts and durations), and
// the task and participant labels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/cancel.hpp"
#include "core/common/release_cost.hpp"
#include "core/noise/random.hpp"
#include "core/pd/saccade_cvae.hpp"

namespace gazepriv::core::pd {

enum class SynthEventType : std::uint8_t { Fixation = 1, Saccade = 2 };

struct SynthEventRows {
    std::size_t rows = 0;
    const std::int32_t* participant = nullptr; // dense ids
    const std::int32_t* task = nullptr;        // dense ids
    const std::int32_t* event_index = nullptr; // named in messages
    const SynthEventType* type = nullptr;
    const double* start_ms = nullptr;
    const double* end_ms = nullptr;
    const double* centroid_x = nullptr; // fixations: finite
    const double* centroid_y = nullptr;
    const double* sigma_x = nullptr; // fixations: finite, > 0
    const double* sigma_y = nullptr;
    const double* amplitude = nullptr; // saccades (validate_saccade)
    const double* profile_a = nullptr;
    const double* profile_b = nullptr;
    const double* profile_c = nullptr;
};

struct EventSynthParams {
    int k = 0;
    double gamma = 0;
    int max_attempts = 100;
    double sampling_rate_hz = 0;
    bool include_failed = false;
};

void validate(const EventSynthParams& params);

// Every row's values (22023 naming the participant's event_index and the value: an end before or at the
// start, NaN or infinite parameters, sigma <= 0, a partial profile) and k against the participants.
void validate_rows(const SynthEventRows& rows, const EventSynthParams& params, std::size_t participants);

// (k, gamma)-PD per event against other participants, not DP: logged with epsilon 0.
ReleaseCost event_synth_cost(const EventSynthParams& params, const std::string& model);

// The grid times of every event, summed; LimitExceeded naming `limit_name` above `limit`.
std::size_t event_synth_capacity(const SynthEventRows& rows, double sampling_rate_hz, std::size_t limit,
                                 const char* limit_name);

// Caller-allocated: `rows` entries per event, event_synth_capacity() samples.
struct EventSynthOutput {
    std::size_t* source_row = nullptr;
    std::int32_t* attempts = nullptr;
    bool* passed = nullptr;         // the PD test passed
    std::size_t* first = nullptr;   // the event's samples are t_ms[first .. first + samples)
    std::size_t* samples = nullptr; // 0 when not passed or not anchored
    double* t_ms = nullptr;
    double* x = nullptr;
    double* y = nullptr;
    std::size_t count = 0;
};

// Events are emitted by participant, task, start_ms (then input order); with include_failed also those
// without samples: failed (no candidate passed: passed false) and passing saccades without anchors (passed
// true, no samples).
void synthesize_events(const SynthEventRows& rows, const SaccadeCvae& model, const EventSynthParams& params,
                       Rng& rng, const CancelCheck& cancel, EventSynthOutput& output);

// The share of a saccade's path covered at tau in [0, duration] under a profile of `bins` equal bins.
double profile_progress(const double* profile, int bins, double duration, double tau);

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
