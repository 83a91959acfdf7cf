// Gaze samples synthesised from event parameters (David-John, Butler and Jain, TVCG 2023 supplement
// §2.1-2.2, SynthFixation and SynthSaccade): the step that turns protected event parameters back into a
// sample stream. Each event is sampled at the given sampling times that fall in [start_ms, end_ms]:
//   SynthFixation: x ~ N(centroid_x, sigma_x^2), y ~ N(centroid_y, sigma_y^2), independent per sample
//     (exact discrete Gaussians on a grid of 2^-24 sigma, core/noise GridGaussian); sigma 0 gives the
//     centroid itself.
//   SynthSaccade: the point on the segment from (start_x, start_y) to (end_x, end_y) that the Gaussian
//     speed profile v(tau) = a exp(-(tau - b)^2 / (2 c^2)) has covered at tau = t - start_ms, as a share
//     of its integral over the duration D: f(tau) = (Phi((tau - b)/c) - Phi(-b/c)) / (Phi((D - b)/c) -
//     Phi(-b/c)) (a cancels). Without a profile (a, b, c all NaN: detect_events could not fit one), or
//     when the profile's mass over [0, D] underflows, the speed is constant (f = tau / D). Deterministic.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/common/cancel.hpp"
#include "core/events/gaze_events.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

struct SynthEvent {
    std::int32_t event_index = 0; // carried to the output rows
    EventType type = EventType::Fixation;
    double start_ms = 0, end_ms = 0;
    double centroid_x = 0, centroid_y = 0, sigma_x = 0, sigma_y = 0; // fixations
    double start_x = 0, start_y = 0, end_x = 0, end_y = 0;           // saccades
    double profile_a = 0, profile_b = 0, profile_c = 0;              // saccades; all NaN: none
};

struct SynthSample {
    double t_ms, x, y;
    std::int32_t event_index;
    EventType type;
};

// Throws InvalidArgument naming the event and the offending value: a non-finite or reversed time span,
// non-finite positions, a negative or non-finite sigma, a partial or non-finite profile, c <= 0.
void validate_synth_event(const SynthEvent& e);

// The number of output samples: for each event, the sampling times in [start_ms, end_ms] (times sorted
// ascending). Throws LimitExceeded (naming `limit_name`) above `limit`, before anything is allocated.
std::size_t synth_sample_count(const SynthEvent* events, std::size_t n, const double* times, std::size_t m,
                               std::size_t limit, const char* limit_name);

// Fills `out` (synth_sample_count entries) event by event, in the events' order, times ascending within
// an event. Fixation samples use `rng`.
void synthesize_samples(const SynthEvent* events, std::size_t n, const double* times, std::size_t m, Rng& rng,
                        const CancelCheck& cancel, SynthSample* out);

// The saccade's covered share at tau in [0, duration] (exposed for tests).
double saccade_progress(const SynthEvent& e, double tau);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
