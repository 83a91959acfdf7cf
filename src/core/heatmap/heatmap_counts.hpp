// The transition state of the heatmap aggregates: for every (participant, cell) pair with at least one
// gaze point, that participant's count in that cell, saturated at the cap m.
//
// Layout: a compacted run of distinct pairs sorted by (participant index, cell) with their capped counts,
// plus a pending log of the points added since the last compaction. Adding a point appends 8 bytes;
// when the log is as long as the run (and at least 64 Ki points) it is radix-sorted and merged into the
// run. Rows therefore never cause random memory accesses, and memory stays within a small factor of the
// number of distinct pairs.
//
// Why per pair: a participant's rows can be split across partial states (parallel workers, Citus
// shards). Capping each partial count and adding the capped counts would let one participant contribute
// up to (number of states) x m to a cell, breaking the sensitivity the noise is calibrated for; keeping
// the pair counts and merging them with min(a + b, m) is exact (saturation at m is idempotent). Memory is
// proportional to the number of distinct pairs, never to participants x cells.
//
// Participants are identified by a 64-bit key: the value itself for bigint participants, a 64-bit hash
// (MurmurHash64A, fixed seed) of the bytes for text participants. Two text participants whose hashes
// collide are counted as one, with probability about N^2 / 2^65 for N participants (3e-8 for a million).
// That can only lower the released counts and the participant count: the merged pair contributes
// min(a + b, m) <= a + b, and replacing one participant still changes every cell by at most m (the
// participant's group loses at most m, the group it joins gains at most m, in opposite directions), so the
// sensitivity, and with it the privacy guarantee, is unaffected; only utility is. A hash is not a secret:
// colliding names can be constructed on purpose, which again only affects utility.
//
// The class is plain data (trivially destructible) so that the PostgreSQL glue can keep it inside an
// aggregate's memory context; all arrays come from a MemoryArena and die with it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/heatmap/heatmap_spec.hpp"

namespace gazepriv::core {

struct MemoryArena {
    void* (*allocate)(void* context, std::size_t bytes) = nullptr; // returns nullptr when out of memory
    void (*release)(void* context, void* pointer) = nullptr;
    void* context = nullptr;

    void* get(std::size_t bytes) const; // throws std::bad_alloc
    void put(void* pointer) const {
        if (pointer != nullptr && release != nullptr)
            release(context, pointer);
    }
    static MemoryArena heap(); // malloc / free, for tests and benchmarks
};

enum class HeatmapAggregate : std::uint8_t {
    ExactMap = 1,   // gaze_map: grid and cap only
    Release = 2,    // dp_heatmap: the full specification
    OptimalCap = 3, // optimal_cap: the full specification, counts kept without a cap
};
enum class ParticipantKeyKind : std::uint8_t { TextHash = 1, Integer = 2 };

// MurmurHash64A (Austin Appleby, public domain) with a fixed seed, reading bytes little-endian so that
// every platform and every node of a cluster computes the same key.
std::uint64_t text_participant_key(const void* bytes, std::size_t length);

class HeatmapCounts {
public:
    // An empty state. For ExactMap only spec.parameters.grid and .cap are used.
    void init(HeatmapAggregate aggregate, ParticipantKeyKind key_kind, const HeatmapSpec& spec,
              MemoryArena arena);
    // An exact copy of other in new memory.
    void copy_from(const HeatmapCounts& other, MemoryArena arena, const CancelCheck& cancel);
    // Frees every array through the arena (the glue's memory contexts free them anyway).
    void release_memory();

    HeatmapAggregate aggregate() const { return aggregate_; }
    const HeatmapParameters& parameters() const { return parameters_; }
    HeatmapSpec spec() const;
    std::uint64_t participants() const { return participants_; }
    // Distinct (participant, cell) pairs (compacts pending points first).
    std::uint64_t pairs(const CancelCheck& cancel);
    // Bytes of arrays allocated (for the benchmark's memory figure).
    std::size_t memory_bytes() const;

    // The dense index of a participant key, registering it on first sight.
    std::uint32_t participant(std::uint64_t key) {
        if (has_last_participant_ && key == last_participant_key_)
            return last_participant_;
        return participant_slow(key);
    }
    // Counts one gaze point; points outside the grid, NaN or infinite are dropped. Appends to the pending
    // log, which is sorted and merged into the compacted run when it fills up.
    void add_point(std::uint32_t participant, double x, double y) {
        const std::int64_t cell = parameters_.grid.cell_of(x, y);
        if (cell < 0)
            return;
        const std::uint64_t key = (std::uint64_t{participant} << 32) | static_cast<std::uint64_t>(cell);
        bool fresh = true;
        if (counting_cap_ == 1) {
            // With cap 1 a pair seen before cannot change anything; gaze revisits the same cells within
            // moments, so a small direct-mapped memory of recent pairs drops most repeats before sorting.
            std::uint64_t& recent = recent_[(key * 0x9E3779B97F4A7C15ull) >> recent_shift_];
            fresh = recent != key;
            recent = key;
        }
        if (pending_size_ == pending_capacity_)
            make_pending_room();
        // Written always, kept only when fresh: whether a pair repeats is unpredictable, and a branch on it
        // mispredicted often enough to cost a fifth of the transition's time.
        pending_[pending_size_] = key;
        pending_size_ += fresh ? 1 : 0;
    }

    // Whether two states may be merged: same aggregate, key kind, parameters and dataset.
    bool compatible(const HeatmapCounts& other) const;
    // Merges other into this (throws InvalidArgument when not compatible).
    void merge(const HeatmapCounts& other, const CancelCheck& cancel);

    // Calls visit(participant index, cell, capped count) for every pair, in (participant index, cell)
    // order, without modifying the state (pending points are sorted in scratch memory).
    template <typename Visit> void for_each_pair(Visit visit, const CancelCheck& cancel) const;
    // sums[j] = sum over participants of their capped count in cell j, for all cells.
    void cell_sums(std::int64_t* sums, const CancelCheck& cancel) const;
    std::uint32_t max_count(const CancelCheck& cancel) const;
    // Calls visit(counts, k) once per cell that has counts, with that cell's per-participant counts.
    template <typename Visit> void for_each_cell(Visit visit, const CancelCheck& cancel) const;

    // The versioned binary form (little-endian, CRC-32 protected, sorted, hence deterministic).
    std::vector<std::uint8_t> serialize(const CancelCheck& cancel) const;
    // Replaces *this by a validated deserialization; throws CorruptData on any inconsistency.
    void deserialize(const std::uint8_t* data, std::size_t size, MemoryArena arena,
                     const CancelCheck& cancel);

private:
    struct Weighted {
        std::uint64_t key; // participant << 32 | cell
        std::uint64_t count;
    };

    std::uint32_t participant_slow(std::uint64_t key);
    void grow_participants();
    void make_pending_room();
    void resize_recent(int bits);
    void push_weighted(std::uint64_t key, std::uint64_t count);
    // Whether participant indices follow key order and nothing is pending (true of deserialized states).
    bool canonical() const;
    // Merges two canonical states with one linear pass, keeping the result canonical.
    void merge_canonical(const HeatmapCounts& other, const CancelCheck& cancel);
    // Sorts the pending logs and merges them into the run.
    void compact(const CancelCheck& cancel);
    // Merges sorted, distinct (key, count) pairs into the run, in place.
    template <typename Count>
    void merge_into_run(const std::uint64_t* keys, const Count* counts, std::size_t n);
    // Grows a buffer to hold at least n elements (contents are not kept).
    template <typename T> void reserve(T*& buffer, std::uint64_t& capacity, std::uint64_t n);
    int key_bits() const; // bits of the sort key (participant index, cell)
    // Sorted, run-length-merged copies of the pending logs (scratch memory from the arena), for reading.
    void sorted_pending(std::uint64_t*& keys, std::uint64_t*& counts, std::size_t& size,
                        const CancelCheck& cancel) const;
    std::uint32_t saturate(std::uint64_t count) const {
        return static_cast<std::uint32_t>(count > counting_cap_ ? counting_cap_ : count);
    }

    HeatmapAggregate aggregate_;
    ParticipantKeyKind key_kind_;
    HeatmapParameters parameters_;
    char* dataset_;
    std::uint32_t dataset_size_;
    bool has_dataset_;
    std::uint32_t counting_cap_;
    int cell_bits_;
    MemoryArena arena_;

    std::uint64_t* participant_keys_; // dense index -> key
    std::uint32_t participants_;
    std::uint32_t participant_capacity_;
    std::uint32_t* participant_index_; // open addressing: index + 1, 0 when free
    std::uint32_t participant_index_mask_;
    std::uint64_t last_participant_key_;
    std::uint32_t last_participant_;
    bool has_last_participant_;

    // The compacted run: distinct keys, ascending, with counts in [1, counting cap].
    std::uint64_t* run_keys_;
    std::uint32_t* run_counts_;
    std::uint64_t run_size_;
    std::uint64_t run_capacity_;
    // The radix sort's buffer, reused by compactions.
    std::uint64_t* scratch_;
    std::uint64_t scratch_capacity_;
    // Pending points (count 1 each), in arrival order.
    std::uint64_t* pending_;
    std::uint64_t pending_size_;
    std::uint64_t pending_capacity_;
    // Recently added pairs (cap 1 only), 2^(64 - recent_shift_) entries.
    std::uint64_t* recent_;
    int recent_shift_;
    // Pending weighted pairs from merges.
    Weighted* weighted_;
    std::uint64_t weighted_size_;
    std::uint64_t weighted_capacity_;
};

template <typename Visit> void HeatmapCounts::for_each_pair(Visit visit, const CancelCheck& cancel) const {
    std::uint64_t* keys = nullptr;
    std::uint64_t* counts = nullptr;
    std::size_t size = 0;
    sorted_pending(keys, counts, size, cancel);
    std::size_t i = 0, j = 0;
    while (i < run_size_ || j < size) {
        cancel.poll(i + j);
        std::uint64_t key, count;
        if (j == size || (i < run_size_ && run_keys_[i] < keys[j])) {
            key = run_keys_[i];
            count = run_counts_[i++];
        } else if (i == run_size_ || keys[j] < run_keys_[i]) {
            key = keys[j];
            count = counts[j++];
        } else {
            key = keys[j];
            count = std::uint64_t{run_counts_[i++]} + counts[j++];
        }
        visit(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), saturate(count));
    }
    arena_.put(keys);
    arena_.put(counts);
}

template <typename Visit> void HeatmapCounts::for_each_cell(Visit visit, const CancelCheck& cancel) const {
    std::vector<std::uint64_t> by_cell; // cell << 32 | count
    by_cell.reserve(run_size_ + pending_size_ + weighted_size_);
    for_each_pair([&](std::uint32_t, std::uint32_t cell,
                      std::uint32_t count) { by_cell.push_back(std::uint64_t{cell} << 32 | count); },
                  cancel);
    std::sort(by_cell.begin(), by_cell.end());
    std::vector<std::uint32_t> counts;
    for (std::size_t i = 0; i < by_cell.size();) {
        cancel.poll(i);
        const std::uint64_t cell = by_cell[i] >> 32;
        counts.clear();
        for (; i < by_cell.size() && (by_cell[i] >> 32) == cell; ++i)
            counts.push_back(static_cast<std::uint32_t>(by_cell[i]));
        visit(counts.data(), counts.size());
    }
}

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
