#include "core/events/gaze_trace.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A total order on doubles with NaN last, so that sorting samples is deterministic.
bool less_nan_last(double a, double b) {
    if (std::isnan(a))
        return false;
    if (std::isnan(b))
        return true;
    return a < b;
}

bool sample_less(const GazeSample& a, const GazeSample& b) {
    if (a.t_ms != b.t_ms)
        return a.t_ms < b.t_ms;
    if (less_nan_last(a.x, b.x) || less_nan_last(b.x, a.x))
        return less_nan_last(a.x, b.x);
    if (less_nan_last(a.y, b.y) || less_nan_last(b.y, a.y))
        return less_nan_last(a.y, b.y);
    return less_nan_last(a.pupil, b.pupil);
}

// The mean of a run of samples with one timestamp.
GazeSample merge_run(const GazeSample* run, std::size_t count) {
    double sx = 0, sy = 0, sp = 0;
    std::size_t gaze = 0, pupils = 0;
    for (std::size_t i = 0; i < count; ++i) {
        if (has_gaze(run[i])) {
            sx += run[i].x;
            sy += run[i].y;
            ++gaze;
        }
        if (!std::isnan(run[i].pupil)) {
            sp += run[i].pupil;
            ++pupils;
        }
    }
    const double g = static_cast<double>(gaze);
    return {run[0].t_ms, gaze ? sx / g : kNaN, gaze ? sy / g : kNaN,
            pupils ? sp / static_cast<double>(pupils) : kNaN};
}

void append_number(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "NaN";
        return;
    }
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

struct Cursor {
    const char* p;
    void skip_space() {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            ++p;
    }
    bool take(char c) {
        skip_space();
        if (*p != c)
            return false;
        ++p;
        return true;
    }
    bool number(double& v) {
        skip_space();
        const char* end = p + std::strcspn(p, ",)} \t\n\r");
        if (end == p)
            return false;
        // from_chars reads nan/inf case-insensitively; PostgreSQL writes NaN and Infinity.
        const char* start = (*p == '+') ? p + 1 : p;
        const auto r = std::from_chars(start, end, v);
        if (r.ec != std::errc() || r.ptr != end)
            return false;
        p = end;
        return true;
    }
};

bool time_ordered(const GazeSample* samples, std::size_t n) {
    for (std::size_t i = 1; i < n; ++i)
        if (samples[i].t_ms < samples[i - 1].t_ms)
            return false;
    return true;
}

} // namespace

GazeSample make_sample(double t_ms, double x, double y, double pupil) {
    if (!std::isfinite(t_ms))
        throw InvalidArgument("t_ms must be a finite number, got " + format_number(t_ms));
    const bool gaze = std::isfinite(x) && std::isfinite(y);
    return {t_ms, gaze ? x : kNaN, gaze ? y : kNaN, (std::isfinite(pupil) && pupil > 0) ? pupil : kNaN};
}

bool is_canonical(const GazeSample* samples, std::size_t n) {
    for (std::size_t i = 1; i < n; ++i)
        if (!(samples[i - 1].t_ms < samples[i].t_ms))
            return false;
    return true;
}

// Tables are rarely in recording order, but nearly: PostgreSQL
// puts later rows into free space left in earlier pages, and parallel workers read interleaved
// blocks. So the samples that continue an ordered sequence stay in place and the others are set
// aside, sorted and merged back: O(n + k log k) for k displaced samples, O(n log n) at worst. When a
// sample is earlier than the last ones kept, up to kLookBack of those (rows written early) are set
// aside instead, so that one late row does not push every row after it aside.
void sort_by_time(GazeSample* samples, std::size_t n, const CancelCheck& cancel) {
    if (time_ordered(samples, n))
        return;
    constexpr std::size_t kLookBack = 16;
    std::vector<GazeSample> aside;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
        cancel.poll(i);
        const double t = samples[i].t_ms;
        if (kept > 0 && t < samples[kept - 1].t_ms) {
            std::size_t from = kept;
            while (from > 0 && kept - from < kLookBack && samples[from - 1].t_ms > t)
                --from;
            if (from > 0 && samples[from - 1].t_ms > t) { // too many later samples: this one moves
                aside.push_back(samples[i]);
                continue;
            }
            aside.insert(aside.end(), samples + from, samples + kept);
            kept = from;
        }
        samples[kept++] = samples[i];
    }
    cancel.now();
    std::sort(aside.begin(), aside.end(),
              [](const GazeSample& a, const GazeSample& b) { return a.t_ms < b.t_ms; });
    // Merge from the back: each set-aside sample finds its place by binary search and the kept samples
    // after it move once, as a block.
    std::size_t end = n, placed = kept;
    for (std::size_t j = aside.size(); j-- > 0;) {
        const double t = aside[j].t_ms;
        const GazeSample* first_later = std::upper_bound(
            samples, samples + placed, t, [](double v, const GazeSample& s) { return v < s.t_ms; });
        const std::size_t from = static_cast<std::size_t>(first_later - samples), moving = placed - from;
        std::memmove(samples + end - moving, samples + from, moving * sizeof(GazeSample));
        end -= moving;
        placed = from;
        samples[--end] = aside[j];
    }
}

void merge_by_time(GazeSample* samples, std::size_t mid, std::size_t n, const CancelCheck& cancel) {
    cancel.now();
    std::inplace_merge(samples, samples + mid, samples + n,
                       [](const GazeSample& a, const GazeSample& b) { return a.t_ms < b.t_ms; });
}

void combine_partial(GazeSample* samples, std::size_t mid, std::size_t n, const CancelCheck& cancel) {
    sort_by_time(samples, mid, cancel);
    sort_by_time(samples + mid, n - mid, cancel);
    merge_by_time(samples, mid, n, cancel);
}

std::size_t canonicalize(GazeSample* samples, std::size_t n, const CancelCheck& cancel) {
    sort_by_time(samples, n, cancel);
    std::size_t out = 0;
    for (std::size_t i = 0; i < n;) {
        cancel.poll(i);
        std::size_t j = i + 1;
        while (j < n && samples[j].t_ms == samples[i].t_ms)
            ++j;
        if (j - i == 1) {
            samples[out++] = samples[i];
        } else {
            // Ties are sorted by every field so that their mean does not depend on the input order.
            std::sort(samples + i, samples + j, sample_less);
            samples[out++] = merge_run(samples + i, j - i);
        }
        i = j;
    }
    return out;
}

std::string format_trace(const GazeSample* samples, std::size_t n) {
    std::string out;
    out.reserve(2 + n * 32);
    out += '{';
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0)
            out += ',';
        out += '(';
        append_number(out, samples[i].t_ms);
        out += ',';
        append_number(out, samples[i].x);
        out += ',';
        append_number(out, samples[i].y);
        if (!std::isnan(samples[i].pupil)) {
            out += ',';
            append_number(out, samples[i].pupil);
        }
        out += ')';
    }
    out += '}';
    return out;
}

bool parse_trace(const char* text, std::vector<GazeSample>& out, std::string& error) {
    if (!parse_samples(text, out, error))
        return false;
    out.resize(canonicalize(out.data(), out.size(), CancelCheck()));
    return true;
}

bool parse_samples(const char* text, std::vector<GazeSample>& out, std::string& error) {
    out.clear();
    Cursor c{text};
    if (!c.take('{')) {
        error = "a gaze trace starts with \"{\"";
        return false;
    }
    if (!c.take('}')) {
        do {
            double v[4] = {0, 0, 0, kNaN};
            int fields = 0;
            if (!c.take('(')) {
                error = "expected \"(\" to start sample " + std::to_string(out.size() + 1);
                return false;
            }
            do {
                if (fields == 4 || !c.number(v[fields])) {
                    error = "sample " + std::to_string(out.size() + 1) +
                            " must be (t_ms,x,y) or (t_ms,x,y,pupil) with numbers";
                    return false;
                }
                ++fields;
            } while (c.take(','));
            if (fields < 3 || !c.take(')')) {
                error = "sample " + std::to_string(out.size() + 1) +
                        " must be (t_ms,x,y) or (t_ms,x,y,pupil) with numbers";
                return false;
            }
            if (!std::isfinite(v[0])) {
                error = "t_ms of sample " + std::to_string(out.size() + 1) + " must be finite";
                return false;
            }
            out.push_back(make_sample(v[0], v[1], v[2], v[3]));
        } while (c.take(','));
        if (!c.take('}')) {
            error = "expected \",\" or \"}\" after sample " + std::to_string(out.size());
            return false;
        }
    }
    c.skip_space();
    if (*c.p != '\0') {
        error = "unexpected text after the closing \"}\"";
        return false;
    }
    return true;
}

} // namespace gazepriv::core
