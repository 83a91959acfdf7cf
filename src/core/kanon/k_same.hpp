// k-same-select sequence (David-John, Butler, Jain, ETRA 2022 §3.3; doc/privacy/kanon.md §1-2): k-anonymous
// release of feature-vector sequences.
//
// For every task, the participants who have rows in it are shuffled with the CSPRNG (Fisher-Yates) and cut
// into floor(N / k) groups whose sizes differ by at most one, so every group has between k and 2k - 1
// members (the N mod k leftovers are spread over the groups). The grouping is drawn once per task and holds
// for the whole sequence. Every sequence is padded to the task's longest by repeating its last vector, and
// the i-th released vector of every member is the mean of the members' i-th vectors. Each released sequence
// is therefore shared by at least k participants, including its length.
//
// Grouping::AcrossTasks (the SQL default) draws one grouping for all tasks, so that a participant's whole
// release is shared by at least k participants; it needs every participant in every task.
// Grouping::PerTask is the paper's variant: a new random grouping for every task. Each task's release is then
// k-anonymous, but a participant's releases in several tasks come from different groups, and, since the
// participant ids are kept, the combination can single them out (an attacker who matches each task to its
// group intersects the groups; bench/kanon/kanon.sh measures it).
//
// With a utility class (the original k-Same-Select of Gross, Airoldi, Malin and Sweeney, PET 2005), the
// participants of a task are first partitioned by their class and the groups are drawn inside each class,
// so group means never mix classes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core::kanon {

// Feature rows as the glue read them, in any order. Strings are NUL-terminated and never null.
struct SequenceRows {
    std::size_t rows = 0;
    const char* const* participant = nullptr;
    const char* const* task = nullptr;
    const std::int32_t* window = nullptr;
    const char* const* utility_class = nullptr; // nullptr: no class column
    const double* values = nullptr;             // the features of all rows, concatenated
    const std::size_t* offset = nullptr;        // rows + 1 entries: row r is values[offset[r], offset[r + 1])
};

enum class Grouping { AcrossTasks, PerTask };

struct KSameRelease {
    struct Row {
        std::uint32_t task;        // index into task_row
        std::uint32_t participant; // index into participant_row
        std::int32_t window;       // the task's smallest window number + position in the sequence
        std::uint32_t group;       // 1-based within the task
        std::size_t vector;        // index into vector_offset
    };
    // A representative input row for every task and participant, in name order (byte-wise).
    std::vector<std::size_t> task_row;
    std::vector<std::size_t> participant_row;
    std::vector<Row> rows; // ordered by task, participant, window
    std::vector<std::size_t>
        vector_offset; // released vector v is means[vector_offset[v], vector_offset[v + 1])
    std::vector<double> means;
    std::size_t groups = 0; // over all tasks
};

// At most this many released rows (participants x padded length, summed over tasks).
constexpr std::size_t kMaxReleasedRows = std::size_t{100} * 1000 * 1000;

// Rows whose features hold a NaN or an infinity are dropped (how many is not reported: that count is
// private). Throws InvalidArgument (22023) for k < 2, no usable rows, a task or utility class with fewer
// than k participants, empty feature vectors, vectors of different lengths within a task, two rows for the
// same (participant, task, window), a utility class that changes within a sequence, and with
// AcrossTasks a participant missing from a task or changing class between tasks; LimitExceeded above
// kMaxReleasedRows.
KSameRelease k_same_select(const SequenceRows& input, int k, Grouping grouping, Rng& rng,
                           const CancelCheck& cancel);

// Splits n shuffled members into floor(n / k) groups whose sizes differ by at most one: the size of group g
// (0-based) of groups = floor(n / k). Needs n >= k >= 1.
std::size_t balanced_group_size(std::size_t n, std::size_t groups, std::size_t g);

} // namespace gazepriv::core::kanon

#include "core/common/no_postgres.hpp"
