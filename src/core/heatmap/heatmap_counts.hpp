// The transition state of the heatmap aggregates: for every (participant, cell) pair with at least one
// gaze point, that participant's count in that cell, saturated at the cap m.
//
// Layout: one buffer per participant holding a sorted run of its distinct cells with their capped counts,
// followed by a pending tail of entries added since its last compaction (8 bytes each: cell << 32 | count).
// Adding a point appends to the current participant's tail; when a tail is as long as its run (and at least
// kMinPending entries) it is radix-sorted and merged into the run. A participant's buffer is small (its own
// distinct cells), so sorting and merging stay in cache, and memory stays within a small factor of the
// number of distinct pairs.
//
// Why per pair: a participant's rows can be split across partial states (parallel workers, Citus
// shards). Capping each partial count and adding the capped counts would let one participant contribute
// up to (number of states) x m to a cell, breaking the sensitivity the noise is calibrated for; keeping
// the pair counts and merging them with min(a + b, m) is exact (saturation at m is idempotent). Merging
// appends the other state's entries to the same participant's tail (or adopts its run when the participant
// is new), so combining k states costs what sorting their entries once costs, never k passes over the result.
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
// The serialized form (flat value, text and binary I/O alike) is printable: text_varint.hpp.
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
    // Distinct (participant, cell) pairs (compacts every participant first).
    std::uint64_t pairs(const CancelCheck& cancel);
    // Bytes of arrays allocated (for the benchmark's memory figure).
    std::size_t memory_bytes() const;

    // The dense index of a participant key, registering it on first sight.
    std::uint32_t participant(std::uint64_t key) {
        if (has_last_participant_ && key == last_participant_key_)
            return last_participant_;
        return participant_slow(key);
    }
    // Counts one gaze point; points outside the grid, NaN or infinite are dropped. Appends to the
    // participant's pending tail, which is sorted and merged into its run when it is long enough.
    void add_point(std::uint32_t participant, double x, double y) {
        const std::int64_t cell = parameters_.grid.cell_of(x, y);
        if (cell < 0)
            return;
        bool fresh = true;
        if (counting_cap_ == 1) {
            // With cap 1 a pair seen before cannot change anything; gaze revisits the same cells within
            // moments, so a small direct-mapped memory of recent pairs drops most repeats before sorting.
            const std::uint64_t key = (std::uint64_t{participant} << 32) | static_cast<std::uint64_t>(cell);
            std::uint64_t& recent = recent_[(key * 0x9E3779B97F4A7C15ull) >> recent_shift_];
            fresh = recent != key;
            recent = key;
        }
        Pairs& p = pairs_[participant];
        if (p.size == p.capacity)
            make_room(p);
        // Written always, kept only when fresh: whether a pair repeats is unpredictable, and a branch on it
        // mispredicted often enough to cost a fifth of the transition's time.
        p.entries[p.size] = (static_cast<std::uint64_t>(cell) << 32) | 1u;
        p.size += fresh ? 1 : 0;
    }

    // Whether two states may be merged: same aggregate, key kind, parameters and dataset.
    bool compatible(const HeatmapCounts& other) const;
    // Merges other into this (throws InvalidArgument when not compatible).
    void merge(const HeatmapCounts& other, const CancelCheck& cancel);
    // Merges a serialized state into this without building it first; validates it on the way (throws
    // CorruptData, after which this state must be discarded, or InvalidArgument when not compatible).
    void merge_serialized(const std::uint8_t* data, std::size_t size, const CancelCheck& cancel);

    // Calls visit(participant index, cell, capped count) for every pair, in (participant index, cell)
    // order, without modifying the state (pending entries are sorted in scratch memory).
    template <typename Visit> void for_each_pair(Visit visit, const CancelCheck& cancel) const;
    // sums[j] = sum over participants of their capped count in cell j, for all cells.
    void cell_sums(std::int64_t* sums, const CancelCheck& cancel) const;
    std::uint32_t max_count(const CancelCheck& cancel) const;
    // Calls visit(counts, k) once per cell that has counts, with that cell's per-participant counts.
    template <typename Visit> void for_each_cell(Visit visit, const CancelCheck& cancel) const;

    // The versioned serialized form: printable characters (text_varint.hpp), CRC-32 protected, participants
    // in key order with their cells ascending, hence deterministic.
    std::vector<std::uint8_t> serialize(const CancelCheck& cancel) const;
    // Replaces *this by a validated deserialization; throws CorruptData on any inconsistency.
    void deserialize(const std::uint8_t* data, std::size_t size, MemoryArena arena,
                     const CancelCheck& cancel);
    // Checks a serialized state completely (throws CorruptData) without allocating.
    static void validate(const std::uint8_t* data, std::size_t size, const CancelCheck& cancel);

private:
    // One participant's pairs: entries[0, run) are distinct cells, ascending, with counts in
    // [1, counting cap]; entries[run, size) are pending, in arrival order, with counts >= 1.
    struct Pairs {
        std::uint64_t* entries; // cell << 32 | count
        std::uint32_t run;
        std::uint32_t size;
        std::uint32_t capacity;
    };
    class Decoder;
    struct AddingSink;
    // Buffers for reading participants with pending entries (freed on scope exit).
    struct ReadScratch {
        std::uint64_t* sorted = nullptr;
        std::uint64_t* tmp = nullptr;
        std::uint64_t* merged = nullptr;
        MemoryArena arena;
        explicit ReadScratch(const HeatmapCounts& counts);
        ReadScratch(const ReadScratch&) = delete;
        ReadScratch& operator=(const ReadScratch&) = delete;
        ~ReadScratch();
    };

    std::uint32_t participant_slow(std::uint64_t key);
    void grow_participants();
    void make_room(Pairs& p);
    void reserve(Pairs& p, std::uint64_t n);
    void resize_recent(int bits);
    // Appends n entries to p's pending tail and compacts it when the tail has grown long enough.
    void append(Pairs& p, const std::uint64_t* entries, std::uint64_t n);
    // Adds sorted, distinct, saturated entries to a participant (adopted as its run when it has none).
    void add_sorted(std::uint32_t participant, const std::uint64_t* entries, std::size_t n);
    // Sorts p's pending tail and merges it into the run.
    void compact(Pairs& p);
    // Merges m sorted, distinct, saturated entries (outside p's buffer) into p's run; p has no tail.
    void merge_into_run(Pairs& p, const std::uint64_t* sorted, std::size_t m);
    // Whether n sorted entries are merged into p's run at once (p has no tail and they are not few
    // against it) rather than appended to the tail: merging k partial states of comparable size linearly,
    // many small ones by sorting them together.
    static bool merges_linearly(const Pairs& p, std::uint64_t n);
    std::uint64_t* scratch(std::uint64_t n); // the scratch buffer, with room for n entries
    // Sorts n pending entries by cell and adds up equal cells (saturating): the result is in out, distinct
    // and ascending; returns its length. tmp and out hold n entries each; in may be out.
    std::size_t sort_pending(const std::uint64_t* in, std::size_t n, std::uint64_t* tmp,
                             std::uint64_t* out) const;
    // A participant's pairs, sorted, distinct and saturated: its run when nothing is pending, else merged
    // into the scratch buffers; n is their number.
    const std::uint64_t* sorted_pairs(std::uint32_t participant, const ReadScratch& s, std::size_t& n) const;
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
    Pairs* pairs_;                    // dense index -> that participant's pairs
    std::uint32_t participants_;
    std::uint32_t participant_capacity_;
    std::uint32_t* participant_index_; // open addressing: index + 1, 0 when free
    std::uint32_t participant_index_mask_;
    std::uint64_t last_participant_key_;
    std::uint32_t last_participant_;
    bool has_last_participant_;

    // Compaction's sorting buffers, reused by every participant.
    std::uint64_t* scratch_;
    std::uint64_t scratch_capacity_;
    // Recently added pairs (cap 1 only), 2^(64 - recent_shift_) entries.
    std::uint64_t* recent_;
    int recent_shift_;
    std::uint64_t buffered_; // entries of pending room handed out so far (enlarges recent_ once)
};

template <typename Visit> void HeatmapCounts::for_each_pair(Visit visit, const CancelCheck& cancel) const {
    const ReadScratch scratch(*this);
    std::size_t visited = 0;
    for (std::uint32_t p = 0; p < participants_; ++p) {
        cancel.poll(visited);
        std::size_t n = 0;
        const std::uint64_t* entries = sorted_pairs(p, scratch, n);
        for (std::size_t j = 0; j < n; ++j)
            visit(p, static_cast<std::uint32_t>(entries[j] >> 32), static_cast<std::uint32_t>(entries[j]));
        visited += n;
    }
}

template <typename Visit> void HeatmapCounts::for_each_cell(Visit visit, const CancelCheck& cancel) const {
    std::vector<std::uint64_t> by_cell; // cell << 32 | count
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
