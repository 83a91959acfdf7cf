// Feature signals of many participants, as the dataset releases need them: grouped by recording
// (task, document type), one signal per (recording, participant, feature) ordered by t, all signals of
// a recording padded to one length (the longest, as the paper does, or a public length).
//
// Rows come from the glue either as feature arrays (one row per participant, recording and window with
// `width` values) or in long form (one value per row with a feature id). Values that are not finite
// (SQL NULL, NaN, Infinity) are missing: they are filled like padding, so a signal keeps its positions
// and nothing reveals how many values were unusable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/common/cancel.hpp"

namespace gazepriv::core {

struct SeriesRows {
    std::size_t count = 0;
    std::size_t width = 1;                     // values per row: features for array rows, 1 for long rows
    const std::int32_t* participant = nullptr; // ids in [0, participants)
    const std::int32_t* recording = nullptr;   // ids in [0, recordings)
    const std::int32_t* feature = nullptr;     // long rows: ids in [0, features); nullptr for array rows
    const double* t = nullptr;                 // finite; orders each signal
    const double* values = nullptr;            // count * width
    std::size_t participants = 0, recordings = 0, features = 0;
    // Display names for messages and results (participant, recording and feature ids index them).
    const char* const* participant_names = nullptr;
    const char* const* recording_names = nullptr;
};

// Public clip bounds of one feature.
struct FeatureBounds {
    double lo;
    double hi;
    double width() const { return hi - lo; }
};

// bounds as given in SQL: rows x columns numbers, row-major. ARRAY[lo, hi] (one row) applies to every
// feature; ARRAY[[lo, hi], ...] gives one row per feature. Checks the shape and lo < hi (finite); the
// number of rows against the features is checked by expand_bounds once the data is read.
std::vector<FeatureBounds> parse_bounds(const double* values, std::size_t rows, std::size_t columns);
// The bounds of each of `features` features (an empty list stays empty).
std::vector<FeatureBounds> expand_bounds(const std::vector<FeatureBounds>& bounds, std::size_t features);

enum class Padding {
    Constant,   // zero (the paper's zero padding), clamped into the bounds when there are bounds
    RepeatLast, // the signal's last value (Steil et al.); a missing value repeats the one before it
};

// Memory for large signal buffers: huge pages where the kernel offers them (fewer page faults when the
// buffer is first written), plain memory otherwise.
void* allocate_signal_storage(std::size_t bytes);
void release_signal_storage(void* p) noexcept;

// A std::allocator that leaves new elements of trivial types uninitialised (resize without zeroing:
// assembly writes every value of the padded signals itself).
template <typename T> struct UninitialisedAllocator : std::allocator<T> {
    using value_type = T;
    T* allocate(std::size_t n) { return static_cast<T*>(allocate_signal_storage(n * sizeof(T))); }
    void deallocate(T* p, std::size_t) noexcept { release_signal_storage(p); }
    template <typename U> struct rebind { using other = UninitialisedAllocator<U>; };
    UninitialisedAllocator() = default;
    template <typename U> UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <typename U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <typename U, typename... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// One recording's signals, each `length` values long: signal(feature, p) for p indexing participants.
// The values live in storage the caller provides (see SignalStorage) or in `owned`.
struct SignalGroup {
    std::size_t recording = 0;             // id
    std::vector<std::size_t> participants; // ids, ascending
    std::size_t length = 0;
    std::vector<double*> signals; // [feature * participants.size() + p]
    std::vector<double, UninitialisedAllocator<double>> owned;

    double* signal(std::size_t feature, std::size_t p) { return signals[feature * participants.size() + p]; }
    const double* signal(std::size_t feature, std::size_t p) const {
        return signals[feature * participants.size() + p];
    }

    SignalGroup() = default;
    SignalGroup(SignalGroup&&) = default; // a moved vector keeps its buffer: the pointers stay valid
    SignalGroup& operator=(SignalGroup&&) = default;
    SignalGroup(const SignalGroup& other); // a deep copy into owned storage
    SignalGroup& operator=(const SignalGroup& other);
};

// Storage for signals[slot] (slot = feature * participants + p) of the group with this index, `length`
// values; nullptr puts it in the group's own storage. Lets the glue have the signals written straight
// into its result arrays.
using SignalStorage = std::function<double*(std::size_t group, std::size_t slot, std::size_t length)>;

struct SeriesDataset {
    std::size_t features = 0;
    std::vector<SignalGroup> groups; // by recording id, recordings without rows left out
    bool length_from_data = true;    // the padded length is the longest signal, read from the data
};

// The most padded values (over all signals of all recordings) assemble_series holds unless told fewer; the
// glue passes the superuser setting gazepriv.max_series_values.
constexpr std::uint64_t kMaxSeriesValues = std::uint64_t{1} << 34;

// Groups, orders (duplicate t within a signal is an InvalidArgument), truncates to `length` when it is
// > 0, pads, fills missing values and clips to the bounds (one per feature, or none).
SeriesDataset assemble_series(const SeriesRows& rows, std::size_t length, Padding padding,
                              const std::vector<FeatureBounds>& bounds,
                              const CancelCheck& cancel = CancelCheck(),
                              const SignalStorage& storage = nullptr,
                              std::uint64_t max_values = kMaxSeriesValues);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
