#include "core/series/series_dataset.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

#include <sys/mman.h>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

void* allocate_signal_storage(std::size_t bytes) {
    constexpr std::size_t kHugePage = std::size_t{1} << 21;
    if (bytes < 2 * kHugePage) {
        void* p = std::malloc(bytes == 0 ? 1 : bytes);
        if (p == nullptr)
            throw std::bad_alloc();
        return p;
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr)
        throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); // a hint: failure only costs page faults
#endif
    return p;
}

void release_signal_storage(void* p) noexcept {
    std::free(p);
}

std::vector<FeatureBounds> parse_bounds(const double* values, std::size_t rows, std::size_t columns) {
    if (columns != 2 || rows == 0)
        throw InvalidArgument(
            "bounds must be ARRAY[lo, hi] for every feature or ARRAY[[lo, hi], ...] with one row "
            "per feature");
    std::vector<FeatureBounds> bounds(rows);
    for (std::size_t i = 0; i < rows; ++i) {
        bounds[i] = {values[2 * i], values[2 * i + 1]};
        if (!std::isfinite(bounds[i].lo) || !std::isfinite(bounds[i].hi) || !(bounds[i].lo < bounds[i].hi))
            throw InvalidArgument("bounds must be finite with lo < hi (row " + std::to_string(i + 1) +
                                  " is [" + format_number(bounds[i].lo) + ", " + format_number(bounds[i].hi) +
                                  "])");
    }
    return bounds;
}

std::vector<FeatureBounds> expand_bounds(const std::vector<FeatureBounds>& bounds, std::size_t features) {
    if (bounds.empty() || bounds.size() == features)
        return bounds;
    if (bounds.size() == 1)
        return std::vector<FeatureBounds>(features, bounds.front());
    throw InvalidArgument("bounds must have one [lo, hi] row per feature (" + std::to_string(features) +
                          ") or a single one, got " + std::to_string(bounds.size()));
}

namespace {

struct RowKey {
    std::uint64_t signal; // (recording, participant, feature) in that order of significance
    double t;
    std::uint32_t row;
    bool operator<(const RowKey& o) const { return signal != o.signal ? signal < o.signal : t < o.t; }
};

void check_rows(const SeriesRows& rows) {
    if (rows.count == 0)
        throw InvalidArgument("source has no rows");
    if (rows.count > std::numeric_limits<std::uint32_t>::max())
        throw LimitExceeded("source has more than 2^32 - 1 rows");
    if (rows.width < 1 || rows.participants < 1 || rows.recordings < 1 ||
        (rows.feature != nullptr && (rows.width != 1 || rows.features < 1)))
        throw InternalError("series rows: inconsistent shape");
    for (std::size_t i = 0; i < rows.count; ++i) {
        if (rows.participant[i] < 0 || std::size_t(rows.participant[i]) >= rows.participants ||
            rows.recording[i] < 0 || std::size_t(rows.recording[i]) >= rows.recordings ||
            (rows.feature != nullptr &&
             (rows.feature[i] < 0 || std::size_t(rows.feature[i]) >= rows.features)))
            throw InternalError("series rows: an id is out of range");
        if (!std::isfinite(rows.t[i]))
            throw InvalidArgument("t must be finite in every row (a row has t = " + format_number(rows.t[i]) +
                                  ")");
    }
}

// Sorts the keys by (signal, t). Rows usually come as one run per signal, ordered by t, with the runs
// themselves in another order (the table's): then only the runs are sorted. Otherwise a full sort.
void order_keys(std::vector<RowKey>& keys) {
    struct Run {
        std::uint64_t signal;
        std::size_t first, size;
    };
    std::vector<Run> runs;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i > 0 && keys[i].signal == keys[i - 1].signal) {
            if (keys[i].t < keys[i - 1].t) { // not ordered by t inside a signal
                std::sort(keys.begin(), keys.end());
                return;
            }
            ++runs.back().size;
            continue;
        }
        runs.push_back({keys[i].signal, i, 1});
    }
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.signal < b.signal; });
    for (std::size_t r = 1; r < runs.size(); ++r) {
        if (runs[r].signal == runs[r - 1].signal) { // a signal in several runs
            std::sort(keys.begin(), keys.end());
            return;
        }
    }
    std::vector<RowKey> sorted;
    sorted.reserve(keys.size());
    for (const Run& run : runs)
        sorted.insert(sorted.end(), keys.begin() + std::ptrdiff_t(run.first),
                      keys.begin() + std::ptrdiff_t(run.first + run.size));
    keys.swap(sorted);
}

const char* name_or_empty(const char* const* names, std::size_t id) {
    return names != nullptr && names[id] != nullptr ? names[id] : "";
}

} // namespace

SignalGroup::SignalGroup(const SignalGroup& other)
    : recording(other.recording), participants(other.participants), length(other.length) {
    owned.resize(other.signals.size() * length);
    for (std::size_t i = 0; i < other.signals.size(); ++i) {
        signals.push_back(owned.data() + i * length);
        std::copy(other.signals[i], other.signals[i] + length, signals.back());
    }
}

SignalGroup& SignalGroup::operator=(const SignalGroup& other) {
    if (this != &other)
        *this = SignalGroup(other);
    return *this;
}

SeriesDataset assemble_series(const SeriesRows& rows, std::size_t length, Padding padding,
                              const std::vector<FeatureBounds>& bounds, const CancelCheck& cancel,
                              const SignalStorage& storage, std::uint64_t max_values) {
    check_rows(rows);
    const bool long_rows = rows.feature != nullptr;
    const std::size_t features = long_rows ? rows.features : rows.width;
    if (!bounds.empty() && bounds.size() != features)
        throw InternalError("series rows: bounds not expanded to the features");
    const std::uint64_t signals_per_pair = long_rows ? features : 1;
    std::uint64_t key_limit = 0;
    if (__builtin_mul_overflow(std::uint64_t(rows.recordings), std::uint64_t(rows.participants),
                               &key_limit) ||
        __builtin_mul_overflow(key_limit, signals_per_pair, &key_limit))
        throw LimitExceeded("too many recordings x participants x features");

    // Order the rows by signal (participant, recording, feature), then t. Tables are usually stored in
    // that order already, so the sort is mostly skipped.
    std::vector<RowKey> keys(rows.count);
    bool ordered = true;
    for (std::size_t i = 0; i < rows.count; ++i) {
        cancel.poll(i);
        const std::uint64_t pair = std::uint64_t(rows.participant[i]) * rows.recordings + rows.recording[i];
        keys[i] = {pair * signals_per_pair + (long_rows ? std::uint64_t(rows.feature[i]) : 0), rows.t[i],
                   static_cast<std::uint32_t>(i)};
        if (i > 0 && keys[i] < keys[i - 1])
            ordered = false;
    }
    if (!ordered)
        order_keys(keys);

    // The groups: one per recording with rows, in recording order.
    SeriesDataset data;
    data.features = features;
    data.length_from_data = length == 0;
    std::vector<std::size_t> group_of(rows.recordings, 0);
    {
        std::vector<bool> present(rows.recordings, false);
        for (std::size_t i = 0; i < rows.count; ++i)
            present[static_cast<std::size_t>(rows.recording[i])] = true;
        for (std::size_t r = 0; r < rows.recordings; ++r) {
            if (!present[r])
                continue;
            group_of[r] = data.groups.size();
            data.groups.push_back({});
            data.groups.back().recording = r;
        }
    }

    // Pass 1: each signal's group, participant slot and number of rows; the participants of each group
    // (in increasing order, since keys are participant-major) and the longest signal of each group.
    struct Slot {
        std::size_t group, participant, feature, rows;
    };
    std::vector<Slot> slots; // one per signal, in key order
    std::vector<std::size_t> longest(data.groups.size(), 0);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::uint64_t pair = keys[i].signal / signals_per_pair;
        const std::size_t participant = pair / rows.recordings, recording = pair % rows.recordings;
        const bool new_signal = i == 0 || keys[i].signal != keys[i - 1].signal;
        if (!new_signal && keys[i].t == keys[i - 1].t)
            throw InvalidArgument("t must be unique within each signal: participant \"" +
                                  std::string(name_or_empty(rows.participant_names, participant)) +
                                  "\", recording \"" + name_or_empty(rows.recording_names, recording) +
                                  "\" has two rows at t = " + format_number(keys[i].t));
        const std::size_t g = group_of[recording];
        SignalGroup& group = data.groups[g];
        if (new_signal) {
            if (group.participants.empty() || group.participants.back() != participant)
                group.participants.push_back(participant);
            const std::size_t feature =
                long_rows ? static_cast<std::size_t>(keys[i].signal % signals_per_pair) : 0;
            slots.push_back({g, group.participants.size() - 1, feature, 0});
        }
        longest[g] = std::max(longest[g], ++slots.back().rows);
    }

    // Every padded value of the statement, counted before any signal is allocated.
    std::uint64_t values = 0;
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        const std::uint64_t signal_values = saturating_product(features * data.groups[g].participants.size(),
                                                               length > 0 ? length : longest[g]);
        values = signal_values > UINT64_MAX - values ? UINT64_MAX : values + signal_values;
    }
    require_within_limit("the number of padded series values", values, "gazepriv.max_series_values",
                         static_cast<std::int64_t>(std::min<std::uint64_t>(max_values, kMaxSeriesValues)));
    std::vector<double> pad(features, 0.0);
    for (std::size_t f = 0; f < bounds.size(); ++f)
        pad[f] = std::clamp(0.0, bounds[f].lo, bounds[f].hi);
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        SignalGroup& group = data.groups[g];
        group.length = length > 0 ? length : longest[g];
        const std::size_t cells = features * group.participants.size() * group.length;
        if (cells / group.length / features != group.participants.size() || cells > (std::size_t{1} << 34))
            throw LimitExceeded("the padded signals of one recording exceed 2^34 values");
        // Every value is written below, so the storage is not initialised.
        group.signals.assign(features * group.participants.size(), nullptr);
        if (storage)
            for (std::size_t slot = 0; slot < group.signals.size(); ++slot)
                group.signals[slot] = storage(g, slot, group.length);
        if (!storage || std::count(group.signals.begin(), group.signals.end(), nullptr) > 0) {
            group.owned.resize(cells);
            for (std::size_t i = 0; i < group.signals.size(); ++i)
                if (group.signals[i] == nullptr)
                    group.signals[i] = group.owned.data() + i * group.length;
        }
    }

    // Pass 2: place each value clipped, or fill a missing one (the padding value, or the value before
    // it for RepeatLast).
    std::vector<double> lo(features, -std::numeric_limits<double>::infinity());
    std::vector<double> hi(features, std::numeric_limits<double>::infinity());
    for (std::size_t f = 0; f < bounds.size(); ++f) {
        lo[f] = bounds[f].lo;
        hi[f] = bounds[f].hi;
    }
    const bool repeat = padding == Padding::RepeatLast;
    auto place = [&](double* x, std::size_t position, std::size_t f, double v) {
        if (__builtin_expect(std::isfinite(v), 1))
            x[position] = std::min(std::max(v, lo[f]), hi[f]);
        else
            x[position] = repeat && position > 0 ? x[position - 1] : pad[f];
    };
    std::size_t signal = 0, position = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        cancel.poll(i);
        if (i == 0 || keys[i].signal != keys[i - 1].signal) {
            signal += i == 0 ? 0 : 1;
            position = 0;
        } else {
            ++position;
        }
        const Slot& slot = slots[signal];
        SignalGroup& group = data.groups[slot.group];
        if (position >= group.length)
            continue; // truncated to the public length
        const std::size_t row = keys[i].row;
        if (long_rows) {
            place(group.signal(slot.feature, slot.participant), position, slot.feature, rows.values[row]);
            continue;
        }
        const double* in = rows.values + row * rows.width;
        double* const* signal_of = group.signals.data() + slot.participant; // feature f at [f * stride]
        const std::size_t stride = group.participants.size();
        for (std::size_t f = 0; f < features; ++f)
            place(signal_of[f * stride], position, f, in[f]);
    }

    // Pass 3: pad each signal after its rows (long form: signals without any row are all padding).
    std::vector<std::vector<std::size_t>> filled(
        data.groups.size()); // rows placed, per participant x feature
    for (std::size_t g = 0; g < data.groups.size(); ++g)
        filled[g].assign(data.groups[g].participants.size() * features, 0);
    for (const Slot& slot : slots) {
        const std::size_t placed = std::min(slot.rows, data.groups[slot.group].length);
        if (long_rows)
            filled[slot.group][slot.participant * features + slot.feature] = placed;
        else
            for (std::size_t f = 0; f < features; ++f)
                filled[slot.group][slot.participant * features + f] = placed;
    }
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        SignalGroup& group = data.groups[g];
        for (std::size_t q = 0; q < group.participants.size(); ++q) {
            for (std::size_t f = 0; f < features; ++f) {
                double* x = group.signal(f, q);
                const std::size_t placed = filled[g][q * features + f];
                const double fill = padding == Padding::RepeatLast && placed > 0 ? x[placed - 1] : pad[f];
                std::fill(x + placed, x + group.length, fill);
            }
        }
    }
    return data;
}

} // namespace gazepriv::core
