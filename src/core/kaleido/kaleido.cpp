#include "core/kaleido/kaleido.hpp"

#include <algorithm>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>

#include "core/common/errors.hpp"
#include "core/noise/accuracy.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/common/json.hpp"
#include "core/noise/lattice_planar_laplace.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr std::uint32_t kStateVersion = 2; // 2: the last release's noise_radius
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
// Publication budget: 2^62 units are the whole publication share; 2^22 of them are never spent, so
// that reported spending stays below epsilon even after floating-point summation.
constexpr std::uint64_t kUnitsPerShare = std::uint64_t{1} << 62;
constexpr std::uint64_t kUnitsMargin = std::uint64_t{1} << 22;
constexpr double kMarginFactor = 1 - 0x1.0p-40;
// Test distances are clamped to l_thresh + 64 test-noise scales: beyond, the test publishes except
// with probability e^-64 / 2, and the clamp bounds the floating-point error of the distance.
constexpr double kDistanceCapScales = 64;

// Keeps the 53 most significant bits, so that units * unit is exact in a double.
std::uint64_t truncate_to_double(std::uint64_t units) {
    const int bits = units == 0 ? 0 : 64 - __builtin_clzll(units);
    return bits <= 53 ? units : units >> (bits - 53) << (bits - 53);
}

// The largest double x <= target / n with n x <= target exactly.
double share_down(double target, double n) {
    double x = target / n;
    while (std::fma(x, n, -target) > 0)
        x = std::nextafter(x, 0.0);
    return x;
}

// The largest double x with x + part <= total exactly (TwoSum).
double remainder_down(double total, double part) {
    double x = total - part;
    for (;;) {
        const double s = x + part;
        const double bb = s - x;
        const double err = (x - (s - bb)) + (part - bb);
        if (s < total || (s == total && err <= 0))
            return x;
        x = std::nextafter(x, 0.0);
    }
}

KaleidoStreamHeader* header(void* block) {
    return static_cast<KaleidoStreamHeader*>(block);
}
const KaleidoStreamHeader* header(const void* block) {
    return static_cast<const KaleidoStreamHeader*>(block);
}

// The rings follow the header: tests[capacity], pub_index[capacity], pub_units[capacity].
struct Rings {
    std::uint64_t* tests;
    std::uint64_t* pub_index;
    std::uint64_t* pub_units;
};

Rings rings(void* block) {
    auto* h = header(block);
    auto* base = reinterpret_cast<std::uint64_t*>(reinterpret_cast<unsigned char*>(block) + sizeof *h);
    return {base, base + h->capacity, base + 2 * std::size_t{h->capacity}};
}

std::size_t bytes_for_capacity(std::uint32_t capacity) {
    return sizeof(KaleidoStreamHeader) + 3 * sizeof(std::uint64_t) * capacity;
}

} // namespace

const char* to_string(KaleidoAction action) {
    switch (action) {
    case KaleidoAction::Published:
        return "published";
    case KaleidoAction::Reused:
        return "reused";
    case KaleidoAction::Skipped:
        return "skipped";
    case KaleidoAction::Capped:
        return "capped";
    case KaleidoAction::Exhausted:
        return "exhausted";
    case KaleidoAction::Missing:
        return "missing";
    }
    return "?";
}

KaleidoParams kaleido_params(double epsilon, std::int64_t w, double r, double l_thresh, double t_skip,
                             double h, std::int64_t max_tests) {
    KaleidoParams p{};
    p.epsilon = require_epsilon("epsilon", epsilon);
    p.w = require_range("w", w, 1, std::numeric_limits<std::int32_t>::max());
    p.r = require_positive("r", r);
    p.l_thresh = std::isnan(l_thresh) ? p.r : require_non_negative("l_thresh", l_thresh);
    p.t_skip = require_non_negative("t_skip", t_skip);
    if (!std::isfinite(h) || h <= 1)
        throw InvalidArgument(
            "h must be a finite number greater than 1 (tests get epsilon/h of each window), got " +
            format_number(h));
    p.h = h;
    if (max_tests == 0) {
        // The supplement's n_test = ceil(w / t_skip) with w converted to ms at a nominal 60 Hz.
        const double nominal =
            p.t_skip == 0 ? static_cast<double>(p.w)
                          : std::ceil(static_cast<double>(p.w) * 1000.0 / (60.0 * p.t_skip) * (1 - 1e-12));
        max_tests = static_cast<std::int64_t>(std::clamp(nominal, 1.0, static_cast<double>(p.w)));
        if (max_tests > kKaleidoMaxTests)
            throw InvalidArgument("the default max_tests for w = " + std::to_string(p.w) + " would be " +
                                  std::to_string(max_tests) + ", above the limit of " +
                                  std::to_string(kKaleidoMaxTests) + "; give max_tests explicitly");
    }
    p.max_tests = require_range("max_tests", max_tests, 1, std::min<std::int64_t>(p.w, kKaleidoMaxTests));
    // The largest publication must be representable with the lattice of LatticePlanarLaplace.
    const double smallest_scale = p.r / (p.epsilon * (1 - 1 / p.h) / 2);
    if (!(smallest_scale >= 0x1.0p-900 && smallest_scale <= 0x1.0p900))
        throw InvalidArgument("r / epsilon = " + format_number(p.r / p.epsilon) +
                              " is outside the supported range [2^-899, 2^899]");
    return p;
}

double median_sampling_interval(const double* t, std::size_t n) {
    if (n < 2)
        return NAN;
    std::vector<double> intervals(n - 1);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        intervals[i] = t[i + 1] - t[i];
        if (!(intervals[i] >= 0) || !std::isfinite(intervals[i]))
            return NAN;
    }
    const std::size_t middle = intervals.size() / 2;
    std::nth_element(intervals.begin(), intervals.begin() + static_cast<std::ptrdiff_t>(middle),
                     intervals.end());
    return intervals[middle];
}

KaleidoStreamSkip kaleido_stream_skip(const double* t, std::size_t n) {
    const double dt = median_sampling_interval(t, n);
    if (!(dt > 0))
        return {kKaleidoSkipMs, 0};
    // Huge k (a stream of sub-nanosecond intervals) tests once per window anyway.
    const double k = std::clamp(std::round(kKaleidoSkipMs / dt), 1.0, 0x1.0p53);
    return {(k - 0.5) * dt, static_cast<std::int64_t>(k)};
}

std::int64_t kaleido_tests_per_window(std::int64_t w, std::int64_t samples) {
    if (w < 1 || samples < 1)
        return 0; // kaleido_params refuses the w, or applies its rule
    const std::int64_t limit = std::min<std::int64_t>(w, kKaleidoMaxTests);
    return std::clamp<std::int64_t>((w + samples - 1) / samples, 1, limit);
}

std::int64_t kaleido_stream_max_tests(const double* t, std::size_t n, std::int64_t w, double t_skip) {
    if (!(t_skip > 0) || w < 1)
        return 0;
    const double dt = median_sampling_interval(t, n);
    if (std::isnan(dt))
        return 0;
    const double tests = std::ceil(static_cast<double>(w) * dt / t_skip * (1 - 1e-12));
    const double limit = static_cast<double>(std::min<std::int64_t>(w, kKaleidoMaxTests));
    return static_cast<std::int64_t>(std::clamp(tests, 1.0, limit));
}

namespace {

// Test sensitivity: r, plus the floating-point error of two computed distances below the cap (relative
// 4 2^-53 each, bounded by 2^-49 (cap + r)), plus the underflow of the squares.
GridLaplace test_mechanism(double r, double distance_cap, double epsilon_test) {
    const double sensitivity = r + 0x1.0p-49 * (distance_cap + r) + 0x1.0p-500;
    return GridLaplace::mechanism(sensitivity, epsilon_test, 1);
}

} // namespace

KaleidoPlan::KaleidoPlan(const KaleidoParams& params)
    : params_(params), epsilon_test_(share_down(params.epsilon / params.h * kMarginFactor,
                                                static_cast<double>(params.max_tests))),
      epsilon_publications_(remainder_down(params.epsilon, params.epsilon / params.h)),
      unit_(std::ldexp(epsilon_publications_, -62)), units_per_window_(kUnitsPerShare - kUnitsMargin),
      distance_cap_(params.l_thresh + kDistanceCapScales * params.r / epsilon_test_),
      test_noise_(test_mechanism(params.r, distance_cap_, epsilon_test_)),
      radius_quantile_(planar_laplace_radius_quantile(kKaleidoRadiusConfidence)) {
    if (!(distance_cap_ / test_noise_.grid() < 0x1.0p90))
        throw InvalidArgument("l_thresh = " + format_number(params.l_thresh) +
                              " is too large for the test noise scale " +
                              format_number(params.r / epsilon_test_));
    if (!LatticePlanarLaplace::for_budget(params.r, first_publication()))
        throw InvalidArgument("epsilon = " + format_number(params.epsilon) +
                              " is too small to publish: the first release would get " +
                              format_number(first_publication()) +
                              ", below what a planar Laplace release on "
                              "a lattice needs (about 1e-4)");
}

double KaleidoPlan::first_publication() const {
    return static_cast<double>(truncate_to_double(units_per_window_ / 2)) * unit_;
}

std::string kaleido_parameters_text(const KaleidoParams& p) {
    return "epsilon=" + format_number(p.epsilon) + " w=" + std::to_string(p.w) + " r=" + format_number(p.r) +
           " l_thresh=" + format_number(p.l_thresh) + " t_skip=" + format_number(p.t_skip) +
           " h=" + format_number(p.h) + " max_tests=" + std::to_string(p.max_tests);
}

ReleaseCost kaleido_cost(const KaleidoParams& p) {
    const KaleidoPlan plan(p);
    ReleaseCost cost;
    cost.epsilon = p.epsilon;
    cost.delta = 0;
    cost.rho = -1;
    cost.guarantee = Guarantee::WEventDifferentialPrivacy;
    cost.non_private_choices = false;
    cost.mechanism = "kaleido";
    JsonObject json;
    json.add("epsilon", p.epsilon);
    json.add("w", p.w);
    json.add("window_unit", "samples");
    json.add("r", p.r);
    json.add("l_thresh", p.l_thresh);
    json.add("t_skip_ms", p.t_skip);
    json.add("h", p.h);
    json.add("max_tests", p.max_tests);
    json.add("epsilon_test", plan.epsilon_test());
    json.add("epsilon_publications", plan.epsilon_publications());
    json.add("guarantee",
             "w-event geo-indistinguishability: any w consecutive samples of one stream, each moved by "
             "at most r, change the output probabilities by at most a factor e^epsilon; timestamps and "
             "missing samples are public");
    json.add("scope",
             "per stream (participant); a stream of T samples is ceil(T/w) epsilon-private as a whole");
    cost.parameters_json = json.str();
    return cost;
}

std::size_t kaleido_stream_bytes(const KaleidoPlan& plan) {
    return bytes_for_capacity(static_cast<std::uint32_t>(plan.params().max_tests + 1));
}

void kaleido_stream_init(const KaleidoPlan& plan, void* block) {
    auto* h = header(block);
    std::memset(h, 0, sizeof *h);
    h->version = kStateVersion;
    h->capacity = static_cast<std::uint32_t>(plan.params().max_tests + 1);
    h->last_t = h->test_t = h->release_x = h->release_y = h->release_radius = kNan;
}

std::size_t kaleido_stream_serialized_size(const void* block) {
    const auto* h = header(block);
    return sizeof *h + sizeof(std::uint64_t) * (h->tests_size + 2 * std::size_t{h->pubs_size});
}

void kaleido_stream_serialize(const void* block, unsigned char* out) {
    const auto* h = header(block);
    KaleidoStreamHeader copy = *h;
    copy.tests_head = copy.pubs_head = 0; // entries are written in order
    std::memcpy(out, &copy, sizeof copy);
    out += sizeof copy;
    const Rings r = rings(const_cast<void*>(block));
    auto put = [&](std::uint64_t v) {
        std::memcpy(out, &v, sizeof v);
        out += sizeof v;
    };
    for (std::uint32_t k = 0; k < h->tests_size; ++k)
        put(r.tests[(h->tests_head + k) % h->capacity]);
    for (std::uint32_t k = 0; k < h->pubs_size; ++k) {
        const std::uint32_t at = (h->pubs_head + k) % h->capacity;
        put(r.pub_index[at]);
        put(r.pub_units[at]);
    }
}

void kaleido_stream_deserialize(const KaleidoPlan& plan, const unsigned char* bytes, std::size_t size,
                                void* block) {
    KaleidoStreamHeader h;
    if (size < sizeof h)
        throw CorruptData("kaleido stream state is truncated (" + std::to_string(size) + " bytes)");
    std::memcpy(&h, bytes, sizeof h);
    const std::uint32_t capacity = static_cast<std::uint32_t>(plan.params().max_tests + 1);
    if (h.version != kStateVersion || h.capacity != capacity || h.tests_size >= capacity ||
        h.pubs_size > capacity || h.tests_head != 0 || h.pubs_head != 0 ||
        size != sizeof h + sizeof(std::uint64_t) * (h.tests_size + 2 * std::size_t{h.pubs_size}))
        throw CorruptData("kaleido stream state does not match its parameters (version, capacity or size)");
    // A stream has a release exactly when it has published, and then a finite last test time.
    const bool released = h.published > 0;
    if (h.published > h.samples || released != std::isfinite(h.release_x) ||
        released != std::isfinite(h.release_y) || released != std::isfinite(h.test_t) ||
        released != (h.release_radius > 0 && std::isfinite(h.release_radius)) ||
        (h.samples > 0) != std::isfinite(h.last_t))
        throw CorruptData("kaleido stream state is inconsistent (samples, releases or times)");
    std::memcpy(block, &h, sizeof h);
    const Rings r = rings(block);
    const unsigned char* in = bytes + sizeof h;
    auto get = [&]() {
        std::uint64_t v;
        std::memcpy(&v, in, sizeof v);
        in += sizeof v;
        return v;
    };
    std::uint64_t sum = 0, previous = 0;
    for (std::uint32_t k = 0; k < h.tests_size; ++k) {
        r.tests[k] = get();
        if (r.tests[k] >= h.samples || (k > 0 && r.tests[k] <= previous))
            throw CorruptData("kaleido stream state has test indices out of order");
        previous = r.tests[k];
    }
    for (std::uint32_t k = 0; k < h.pubs_size; ++k) {
        r.pub_index[k] = get();
        r.pub_units[k] = get();
        if (r.pub_index[k] >= h.samples || (k > 0 && r.pub_index[k] <= r.pub_index[k - 1]))
            throw CorruptData("kaleido stream state has publication indices out of order");
        sum += r.pub_units[k];
        if (sum > plan.units_per_window())
            throw CorruptData("kaleido stream state spends more than its window budget");
    }
    if (sum != h.window_units)
        throw CorruptData("kaleido stream state has an inconsistent window sum");
}

namespace {

// The step, with the plan's hot constants hoisted by the caller.
inline KaleidoOutput step(const KaleidoPlan& plan, KaleidoStreamHeader* h, const Rings& ring, double t,
                          double x, double y, Rng& rng) {
    const KaleidoParams& p = plan.params();
    // Beyond 2^53 ms (285,000 years) consecutive milliseconds are one double: such a t is an attack on the
    // stream's order (every later sample would be "decreasing"), refused before the state changes.
    if (!std::isfinite(t) || std::fabs(t) > 0x1.0p53)
        throw InvalidArgument("t_ms must be a finite number of at most 2^53 in magnitude (sample " +
                              std::to_string(h->samples + 1) + "), got " + format_number(t));
    if (t < h->last_t) // false while last_t is NaN
        throw InvalidArgument("t_ms must not decrease within a stream: sample " +
                              std::to_string(h->samples + 1) + " has t_ms = " + format_number(t) + " after " +
                              format_number(h->last_t));
    h->last_t = t;
    const std::uint64_t i = h->samples++;
    const std::uint64_t w = static_cast<std::uint64_t>(p.w);
    // Forget tests and publications that left the window [i - w + 1, i].
    while (h->tests_size > 0 && ring.tests[h->tests_head] + w <= i) {
        h->tests_head = h->tests_head + 1 == h->capacity ? 0 : h->tests_head + 1;
        --h->tests_size;
    }
    while (h->pubs_size > 0 && ring.pub_index[h->pubs_head] + w <= i) {
        h->window_units -= ring.pub_units[h->pubs_head];
        h->pubs_head = h->pubs_head + 1 == h->capacity ? 0 : h->pubs_head + 1;
        --h->pubs_size;
    }

    KaleidoOutput out{h->release_x, h->release_y, KaleidoAction::Missing, 0.0, h->release_radius};
    if (!std::isfinite(x) || !std::isfinite(y))
        return out;
    const bool first = h->published == 0;
    if (!first) {
        if (t - h->test_t < p.t_skip) {
            out.action = KaleidoAction::Skipped;
            return out;
        }
        if (h->tests_size >= static_cast<std::uint64_t>(p.max_tests)) {
            out.action = KaleidoAction::Capped;
            return out;
        }
        // Test: is the sample still close to the last release?
        h->test_t = t;
        std::uint32_t at = h->tests_head + h->tests_size;
        ring.tests[at >= h->capacity ? at - h->capacity : at] = i;
        ++h->tests_size;
        out.epsilon_spent = plan.epsilon_test();
        const double dx = x - h->release_x, dy = y - h->release_y;
        const double distance = std::min(std::sqrt(dx * dx + dy * dy), plan.distance_cap());
        if (fast_grid_laplace_release(plan.test_noise(), distance, rng) <= p.l_thresh) {
            out.action = KaleidoAction::Reused;
            return out;
        }
    }
    // Publish with half of what the previous w - 1 samples left of the publication share.
    const std::uint64_t units = truncate_to_double((plan.units_per_window() - h->window_units) / 2);
    const double epsilon_pub = static_cast<double>(units) * plan.unit();
    const std::optional<LatticePlanarLaplace> mechanism = LatticePlanarLaplace::for_budget(p.r, epsilon_pub);
    if (units == 0 || !mechanism) {
        out.action = KaleidoAction::Exhausted;
        return out;
    }
    const PlanarPoint released = mechanism->release(x, y, rng);
    if (first)
        h->test_t = t;
    h->release_x = released.x;
    h->release_y = released.y;
    h->release_radius = mechanism->accuracy_radius_at_quantile(plan.radius_quantile());
    ++h->published;
    std::uint32_t at = h->pubs_head + h->pubs_size;
    at = at >= h->capacity ? at - h->capacity : at;
    ring.pub_index[at] = i;
    ring.pub_units[at] = units;
    ++h->pubs_size;
    h->window_units += units;
    out.x = released.x;
    out.y = released.y;
    out.action = KaleidoAction::Published;
    out.epsilon_spent += epsilon_pub;
    out.noise_radius = h->release_radius;
    return out;
}

} // namespace

KaleidoOutput kaleido_step(const KaleidoPlan& plan, void* block, double t, double x, double y, Rng& rng) {
    return step(plan, header(block), rings(block), t, x, y, rng);
}

void kaleido_run(const KaleidoPlan& plan, void* block, std::size_t n, const double* t, const double* x,
                 const double* y, double* out_x, double* out_y, KaleidoAction* out_action, double* out_spent,
                 double* out_radius, Rng& rng, const CancelCheck& cancel) {
    KaleidoStreamHeader* h = header(block);
    const Rings ring = rings(block);
    for (std::size_t k = 0; k < n; ++k) {
        cancel.poll(k);
        const KaleidoOutput o = step(plan, h, ring, t[k], x[k], y[k], rng);
        if (out_x != nullptr) {
            out_x[k] = o.x;
            out_y[k] = o.y;
        }
        if (out_action != nullptr)
            out_action[k] = o.action;
        if (out_spent != nullptr)
            out_spent[k] = o.epsilon_spent;
        if (out_radius != nullptr)
            out_radius[k] = o.noise_radius;
    }
}

} // namespace gazepriv::core
