#include "core/series_dataset.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/validate.hpp"

namespace gazepriv::core {

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

const char* name_or_empty(const char* const* names, std::size_t id) {
    return names != nullptr && names[id] != nullptr ? names[id] : "";
}

} // namespace

SeriesDataset assemble_series(const SeriesRows& rows, std::size_t length, Padding padding,
                              const std::vector<FeatureBounds>& bounds, const CancelCheck& cancel) {
    check_rows(rows);
    const bool long_rows = rows.feature != nullptr;
    const std::size_t features = long_rows ? rows.features : rows.width;
    if (!bounds.empty() && bounds.size() != features)
        throw InternalError("series rows: bounds not expanded to the features");
    const std::uint64_t signals_per_participant = long_rows ? features : 1;
    std::uint64_t key_limit = 0;
    if (__builtin_mul_overflow(std::uint64_t(rows.recordings), std::uint64_t(rows.participants),
                               &key_limit) ||
        __builtin_mul_overflow(key_limit, signals_per_participant, &key_limit))
        throw LimitExceeded("too many recordings x participants x features");

    // Order the rows by signal, then t (they usually arrive ordered already).
    std::vector<RowKey> keys(rows.count);
    bool ordered = true;
    for (std::size_t i = 0; i < rows.count; ++i) {
        cancel.poll(i);
        const std::uint64_t pair = std::uint64_t(rows.recording[i]) * rows.participants + rows.participant[i];
        keys[i] = {pair * signals_per_participant + (long_rows ? std::uint64_t(rows.feature[i]) : 0),
                   rows.t[i], static_cast<std::uint32_t>(i)};
        if (i > 0 && keys[i] < keys[i - 1])
            ordered = false;
    }
    if (!ordered)
        std::sort(keys.begin(), keys.end());

    // Pass 1: the groups, their participants and the longest signal of each.
    SeriesDataset data;
    data.features = features;
    data.length_from_data = length == 0;
    std::vector<std::size_t> longest;
    std::size_t run = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::uint64_t pair = keys[i].signal / signals_per_participant;
        const std::size_t recording = pair / rows.participants, participant = pair % rows.participants;
        const bool new_signal = i == 0 || keys[i].signal != keys[i - 1].signal;
        if (!new_signal && keys[i].t == keys[i - 1].t)
            throw InvalidArgument("t must be unique within each signal: participant \"" +
                                  std::string(name_or_empty(rows.participant_names, participant)) +
                                  "\", recording \"" + name_or_empty(rows.recording_names, recording) +
                                  "\" has two rows at t = " + format_number(keys[i].t));
        run = new_signal ? 1 : run + 1;
        if (data.groups.empty() || data.groups.back().recording != recording) {
            data.groups.push_back({});
            data.groups.back().recording = recording;
            longest.push_back(0);
        }
        SignalGroup& group = data.groups.back();
        if (group.participants.empty() || group.participants.back() != participant)
            group.participants.push_back(participant);
        longest.back() = std::max(longest.back(), run);
    }

    // Pass 2: place the values; positions past a signal's rows stay NaN until pass 3.
    std::vector<double> pad(features, 0.0);
    for (std::size_t f = 0; f < bounds.size(); ++f)
        pad[f] = std::clamp(0.0, bounds[f].lo, bounds[f].hi);
    for (std::size_t gi = 0; gi < data.groups.size(); ++gi) {
        SignalGroup& group = data.groups[gi];
        group.length = length > 0 ? length : longest[gi];
        const std::size_t cells = features * group.participants.size() * group.length;
        if (cells / group.length / features != group.participants.size() || cells > (std::size_t{1} << 34))
            throw LimitExceeded("the padded signals of one recording exceed 2^34 values");
        group.values.assign(cells, std::numeric_limits<double>::quiet_NaN());
    }
    std::size_t g = 0, p = 0, position = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        cancel.poll(i);
        const std::uint64_t pair = keys[i].signal / signals_per_participant;
        const std::size_t recording = pair / rows.participants, participant = pair % rows.participants;
        if (i == 0 || keys[i].signal != keys[i - 1].signal) {
            position = 0;
            while (data.groups[g].recording != recording)
                ++g, p = 0;
            while (data.groups[g].participants[p] != participant)
                ++p;
        } else {
            ++position;
        }
        SignalGroup& group = data.groups[g];
        if (position >= group.length)
            continue; // truncated to the public length
        const std::size_t row = keys[i].row;
        if (long_rows) {
            const auto f = static_cast<std::size_t>(rows.feature[row]);
            group.signal(f, p)[position] = rows.values[row];
        } else {
            for (std::size_t f = 0; f < features; ++f)
                group.signal(f, p)[position] = rows.values[row * rows.width + f];
        }
    }

    // Pass 3: clip, fill missing values and pad.
    std::size_t polled = 0;
    for (SignalGroup& group : data.groups) {
        for (std::size_t f = 0; f < features; ++f) {
            for (std::size_t q = 0; q < group.participants.size(); ++q) {
                cancel.poll(polled++);
                double* x = group.signal(f, q);
                double previous = pad[f];
                for (std::size_t t = 0; t < group.length; ++t) {
                    if (std::isfinite(x[t])) {
                        x[t] = bounds.empty() ? x[t] : std::clamp(x[t], bounds[f].lo, bounds[f].hi);
                        previous = x[t];
                    } else {
                        x[t] = padding == Padding::RepeatLast ? previous : pad[f];
                    }
                }
            }
        }
    }
    return data;
}

} // namespace gazepriv::core
