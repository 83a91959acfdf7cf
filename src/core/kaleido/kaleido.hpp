// Kalεido (Li, Roy Chowdhury, Fawaz and Kim, USENIX Security 2021): (epsilon, w, r)-private gaze
// streams, as the supplement of David-John et al. (TVCG 2023, Sec. 2.3) gives the algorithm, with the
// corrections of doc/privacy/kaleido.md §2 (the per-window accounting is §3 there).
//
// Guarantee (w-event geo-indistinguishability). Two streams of one person are neighbours when they have
// the same timestamps and the same missing samples, and their positions differ only at samples inside
// one window of w consecutive samples, each by at most r (in the data's units). For neighbours, every
// output has probability within a factor e^epsilon. Timestamps, and which samples are missing, are
// public. What it does not protect: a whole trajectory of T samples spans ceil(T/w) windows, and
// streams that differ everywhere are only (ceil(T/w) epsilon)-indistinguishable (group privacy).
//
// Per sample (the unit of w is the sample; t_skip is in the unit of the timestamps, ms):
//  - missing (x or y NULL, NaN or infinite): nothing is tested or published; the last release repeats.
//  - the first sample with a position always publishes.
//  - skip: within t_skip of the last test, the last release repeats.
//  - cap: at most max_tests tests in any w consecutive samples (the supplement's n_test = ceil(w/t_skip)
//    assumes regular sampling; with jitter and dropped samples it is exceeded, so it is enforced here).
//  - test: d = distance to the last release, clamped to l_thresh + 64 noise scales; reuse the last
//    release when d + Lap(r / epsilon_test) <= l_thresh (the supplement's Lap(1/epsilon_test) holds only
//    for distances in units of r). epsilon_test = epsilon / (h max_tests), a separate reservation of
//    epsilon / h per window.
//  - publish: epsilon_pub = half of (epsilon - epsilon / h - the publications of the previous w - 1
//    samples), released with LatticePlanarLaplace (epsilon_pub geo-indistinguishable at distance r).
// So every window of w consecutive samples spends at most max_tests epsilon_test + (epsilon - epsilon/h)
// <= epsilon. Publication budgets are kept as integers (units of 2^-62 of the publication share) so
// that the sliding sums never drift; a margin of 2^-40 keeps even a floating-point sum of the reported
// spending below epsilon.
// Accuracy: every output carries the noise_radius of the point it shows, the distance within which a
// publication lies from the true position at its sample with probability >= 95 %
// (LatticePlanarLaplace::accuracy_radius, about 4.74 r / epsilon_pub). It is a function of the parameters
// and of which samples published (the actions), both public, so it is post-processing of the release.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/cancel.hpp"
#include "core/noise/noise.hpp"
#include "core/noise/random.hpp"
#include "core/common/release_cost.hpp"

namespace gazepriv::core {

// Public parameters of a release; make them with kaleido_params, which validates.
struct KaleidoParams {
    double epsilon;         // budget of any w consecutive samples, tests included
    std::int64_t w;         // window, in samples
    double r;               // privacy radius, in the data's units
    double l_thresh;        // reuse threshold for the distance to the last release, data units
    double t_skip;          // minimum time between two tests, in the timestamps' unit (ms)
    double h;               // tests get epsilon / h of each window
    std::int64_t max_tests; // at most this many tests in any w consecutive samples
};

// Limits the per-stream state (3 x 8 bytes per possible test in a window: 1.5 MiB at most), which live
// feeds keep for every stream of a statement.
constexpr std::int64_t kKaleidoMaxTests = std::int64_t{1} << 16;

// Validates (ERROR 22023 naming the parameter) and fills the defaults: l_thresh NaN -> r; max_tests 0 ->
// ceil(w (1000/60) / t_skip) capped to w, the supplement's n_test for a nominal 60 Hz stream
// (w when t_skip = 0).
KaleidoParams kaleido_params(double epsilon, std::int64_t w, double r, double l_thresh, double t_skip,
                             double h, std::int64_t max_tests);

// The supplement's t_skip, 50 ms: the default of kaleido_cost and live feeds, which see no stream.
constexpr double kKaleidoSkipMs = 50;

// The median interval between consecutive timestamps t[0..n) (public under the w-event relation: neighbours
// share them); NaN when there are fewer than two or they are not finite and non-decreasing (the release
// refuses those later).
double median_sampling_interval(const double* t, std::size_t n);

// The default t_skip of one stream (kaleido() with t_skip NULL), from its median interval dt: the
// supplement's 50 ms as the nearest whole number of intervals, k = max(1, round(50 / dt)), less half an
// interval: t_skip = (k - 1/2) dt. On a regular stream a test then falls on every k-th sample, as with 50 ms
// when 50 / dt is whole, and timing jitter of under half an interval does not push it to the next sample (a
// 60 Hz stream with intervals of 16 and 17 ms tests every third sample, where 50 ms tests after the third or
// the fourth). samples = k; {50, 0} when dt is NaN or 0.
struct KaleidoStreamSkip {
    double t_skip;
    std::int64_t samples;
};
KaleidoStreamSkip kaleido_stream_skip(const double* t, std::size_t n);

// The tests that fit in w samples when a test falls on every `samples`-th one: ceil(w / samples), at least 1
// and at most min(w, kKaleidoMaxTests) (0 for w or samples below 1). With kaleido_stream_skip, the default
// max_tests of a stream whose t_skip is derived too: the supplement's n_test = ceil(w / t_skip) with t_skip
// in samples.
std::int64_t kaleido_tests_per_window(std::int64_t w, std::int64_t samples);

// The default max_tests of one stream with a given t_skip (ms), from its timestamps: the supplement's
// n_test = ceil(w dt / t_skip) with dt the stream's median sampling interval, at least 1 and at most
// min(w, kKaleidoMaxTests); 0 (the 60 Hz rule of kaleido_params) when t_skip = 0 or dt is NaN. A 500 Hz
// stream with w = 60 and t_skip = 50 gets 3 tests, not 20.
std::int64_t kaleido_stream_max_tests(const double* t, std::size_t n, std::int64_t w, double t_skip);

// The parameters in a compact canonical form ("epsilon=1 w=60 r=0.05 ..."), stored with a live stream
// so that a trigger with other parameters is refused.
std::string kaleido_parameters_text(const KaleidoParams& params);

// The whole privacy cost of a release, from the parameters alone: epsilon per window of w samples per
// stream (w-event, r-geo-indistinguishable), delta 0.
ReleaseCost kaleido_cost(const KaleidoParams& params);

// The confidence of every output's noise_radius.
constexpr double kKaleidoRadiusConfidence = 0.95;

enum class KaleidoAction : std::uint8_t { Published, Reused, Skipped, Capped, Exhausted, Missing };
const char* to_string(KaleidoAction action);

// Derived constants of a release (computed once per stream, before any noise is drawn).
class KaleidoPlan {
public:
    explicit KaleidoPlan(const KaleidoParams& params);
    const KaleidoParams& params() const { return params_; }
    double epsilon_test() const { return epsilon_test_; }
    double epsilon_publications() const { return epsilon_publications_; }
    // Value of one publication unit: epsilon_publications 2^-62.
    double unit() const { return unit_; }
    std::uint64_t units_per_window() const { return units_per_window_; }
    double distance_cap() const { return distance_cap_; }
    // The budget of a release when the previous w - 1 samples published nothing.
    double first_publication() const;
    const GridLaplace& test_noise() const { return test_noise_; }
    // planar_laplace_radius_quantile(kKaleidoRadiusConfidence), computed once.
    double radius_quantile() const { return radius_quantile_; }

private:
    KaleidoParams params_;
    double epsilon_test_;
    double epsilon_publications_;
    double unit_;
    std::uint64_t units_per_window_;
    double distance_cap_;
    GridLaplace test_noise_;
    double radius_quantile_;
};

// The state of one stream: a fixed header followed by two rings (test indices; publication indices and
// units) of capacity max_tests + 1, in one block of trivially copyable memory, so that the glue can keep
// it in palloc'd memory across PostgreSQL calls and store it between statements.
struct KaleidoStreamHeader {
    std::uint32_t version;
    std::uint32_t capacity;  // ring capacity: max_tests + 1
    std::uint64_t samples;   // samples seen (index of the next sample)
    std::uint64_t published; // releases so far
    double last_t;           // timestamp of the last sample (NaN before the first)
    double test_t;           // time of the last test or of the first release (NaN before)
    double release_x;        // the last release (NaN before the first)
    double release_y;
    double release_radius;      // its noise_radius (NaN before the first)
    std::uint64_t window_units; // sum of the publication units in the pub ring
    std::uint32_t tests_head, tests_size;
    std::uint32_t pubs_head, pubs_size;
};

std::size_t kaleido_stream_bytes(const KaleidoPlan& plan);
// Initialises a fresh stream in `block` (kaleido_stream_bytes(plan) bytes, suitably aligned).
void kaleido_stream_init(const KaleidoPlan& plan, void* block);

// Compact serialisation (header + occupied ring entries) for storage between statements.
std::size_t kaleido_stream_serialized_size(const void* block);
void kaleido_stream_serialize(const void* block, unsigned char* out);
// Restores into `block`; throws CorruptData (XX001) when the bytes are not a state of this plan.
void kaleido_stream_deserialize(const KaleidoPlan& plan, const unsigned char* bytes, std::size_t size,
                                void* block);

struct KaleidoOutput {
    double x; // the released point (NaN before the first release)
    double y;
    KaleidoAction action;
    double epsilon_spent; // test + publication budget spent at this sample
    // The released point lies within noise_radius of the true position at the sample that published it
    // (this one when published, an earlier one when repeated) with probability >= kKaleidoRadiusConfidence;
    // NaN before the first release. Holds for true positions within 2^35 noise scales of the origin.
    double noise_radius;
};

// Processes one sample. Throws InvalidArgument for a non-finite or decreasing timestamp; the state is
// then unchanged.
KaleidoOutput kaleido_step(const KaleidoPlan& plan, void* block, double t, double x, double y, Rng& rng);

// Processes n samples in order (outputs may be null when not wanted).
void kaleido_run(const KaleidoPlan& plan, void* block, std::size_t n, const double* t, const double* x,
                 const double* y, double* out_x, double* out_y, KaleidoAction* out_action, double* out_spent,
                 double* out_radius, Rng& rng, const CancelCheck& cancel);

// Post-processing: clamps released coordinates into a public box (NaN stays NaN).
struct ClampBox {
    double x_min, y_min, x_max, y_max;
};
inline void clamp_into(const ClampBox& box, double& x, double& y) {
    x = x < box.x_min ? box.x_min : (x > box.x_max ? box.x_max : x);
    y = y < box.y_min ? box.y_min : (y > box.y_max ? box.y_max : y);
}

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
