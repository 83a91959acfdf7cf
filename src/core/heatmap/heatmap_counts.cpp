#include "core/heatmap/heatmap_counts.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "core/common/errors.hpp"
#include "core/heatmap/text_varint.hpp"

namespace gazepriv::core {

static_assert(std::is_trivially_destructible_v<HeatmapCounts>, "HeatmapCounts lives in PostgreSQL memory");

namespace {

constexpr std::uint32_t kMaxParticipants = 1u << 31;
constexpr char kMagic[] = "GZHM";
constexpr std::uint64_t kVersion = 2; // 1: binary varints in base64
constexpr int kChecksumSymbols = 7;   // the CRC-32 trailer: 7 x 5 bits
constexpr std::uint8_t kFlagSpec = 1;
constexpr std::uint8_t kFlagDataset = 2;

using text_varint::corrupt;

inline std::uint64_t mix(std::uint64_t key) {
    return key * 0x9E3779B97F4A7C15ull;
}

inline std::uint64_t load_le64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

std::uint8_t calibration_code(GaussianCalibration c) {
    switch (c) {
    case GaussianCalibration::Analytic:
        return 0;
    case GaussianCalibration::DworkRoth:
        return 1;
    case GaussianCalibration::Liu2019:
        return 2;
    }
    return 0;
}

GaussianCalibration calibration_from_code(std::uint8_t code) {
    switch (code) {
    case 0:
        return GaussianCalibration::Analytic;
    case 1:
        return GaussianCalibration::DworkRoth;
    case 2:
        return GaussianCalibration::Liu2019;
    }
    corrupt("unknown calibration code " + std::to_string(code));
}

std::uint32_t crc32_of(const std::uint8_t* p, std::size_t n) {
    return static_cast<std::uint32_t>(crc32_z(crc32_z(0, Z_NULL, 0), p, n));
}

} // namespace

void* MemoryArena::get(std::size_t bytes) const {
    void* p = allocate(context, bytes == 0 ? 1 : bytes);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}

MemoryArena MemoryArena::heap() {
    MemoryArena a;
    a.allocate = [](void*, std::size_t n) { return std::malloc(n); };
    a.release = [](void*, void* p) { std::free(p); };
    return a;
}

std::uint64_t text_participant_key(const void* bytes, std::size_t length) {
    constexpr std::uint64_t m = 0xc6a4a7935bd1e995ull;
    constexpr int r = 47;
    const std::uint64_t seed = 0x67617a6570726976ull; // "gazepriv"
    std::uint64_t h = seed ^ (length * m);
    const auto* data = static_cast<const unsigned char*>(bytes);
    const std::size_t blocks = length / 8;
    for (std::size_t i = 0; i < blocks; ++i) {
        std::uint64_t k = load_le64(data + 8 * i);
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    const unsigned char* tail = data + 8 * blocks;
    switch (length & 7) {
    case 7:
        h ^= std::uint64_t{tail[6]} << 48;
        [[fallthrough]];
    case 6:
        h ^= std::uint64_t{tail[5]} << 40;
        [[fallthrough]];
    case 5:
        h ^= std::uint64_t{tail[4]} << 32;
        [[fallthrough]];
    case 4:
        h ^= std::uint64_t{tail[3]} << 24;
        [[fallthrough]];
    case 3:
        h ^= std::uint64_t{tail[2]} << 16;
        [[fallthrough]];
    case 2:
        h ^= std::uint64_t{tail[1]} << 8;
        [[fallthrough]];
    case 1:
        h ^= std::uint64_t{tail[0]};
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

// ---- radix sort -------------------------------------------------------------------------------------

namespace {

constexpr int kMaxDigitBits = 11;         // 2048 buckets: the scatter stays in cache for one participant
constexpr std::uint32_t kMinPending = 64; // a tail shorter than this is never compacted on its own
constexpr std::size_t kSmallSort = 64;    // below this, comparison sorting beats counting digits
constexpr int kSmallRecent = 6;           // 64 entries for small states (many groups)
constexpr int kLargeRecent = 9;           // 512 entries (4 KiB, stays in L1) once a state holds many pairs
constexpr std::uint64_t kLargeRecentAfter = std::uint64_t{1} << 16;

// LSD radix sort of n 64-bit entries by their upper 32 bits (`bits` of them significant) from `in` into
// `out`, in as few passes of at most kMaxDigitBits-bit digits as possible, fewer bits per digit for short
// arrays (the histograms would cost more than the scatter); tmp has room for n entries, `in` is left as it
// was unless it is `out`. The histograms of every digit come from one read; digits that are the same for
// every entry are skipped.
void radix_sort(const std::uint64_t* in, std::uint64_t* tmp, std::uint64_t* out, std::size_t n, int bits) {
    int max_digit = kMaxDigitBits;
    while (max_digit > 6 && (std::size_t{1} << (max_digit + 2)) > n)
        --max_digit;
    const int passes = std::max(1, (bits + max_digit - 1) / max_digit);
    const int digit = (bits + passes - 1) / passes;
    const std::size_t buckets = std::size_t{1} << digit;
    const std::uint64_t mask = buckets - 1;
    std::uint32_t histograms[3 << kMaxDigitBits]; // passes <= 3: cells have at most 27 bits
    std::memset(histograms, 0, sizeof(std::uint32_t) * passes * buckets);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = in[i] >> 32;
        for (int p = 0; p < passes; ++p)
            ++histograms[p * buckets + ((k >> (p * digit)) & mask)];
    }
    int scatters = 0; // the passes whose digit varies, each a scatter
    for (int p = 0; p < passes; ++p) {
        const std::uint32_t* count = histograms + p * buckets;
        scatters += std::find(count, count + buckets, n) == count + buckets ? 1 : 0;
    }
    // Alternate between out and tmp so that the last scatter writes out.
    const std::uint64_t* from = in;
    std::uint64_t* to = scatters % 2 == 1 ? out : tmp;
    for (int p = 0; p < passes; ++p) {
        std::uint32_t* count = histograms + p * buckets;
        if (std::find(count, count + buckets, n) != count + buckets)
            continue; // one bucket holds everything: this digit is constant
        std::uint32_t sum = 0;
        for (std::size_t d = 0; d < buckets; ++d) // exclusive prefix sums: each bucket's first slot
            sum += std::exchange(count[d], sum);
        const int shift = 32 + p * digit;
        for (std::size_t i = 0; i < n; ++i)
            to[count[(from[i] >> shift) & mask]++] = from[i];
        from = to;
        to = to == out ? tmp : out;
    }
    if (from != out)
        std::memmove(out, from, n * sizeof(std::uint64_t));
}

int bits_for(std::uint64_t values) { // bits to represent 0 .. values - 1
    int b = 0;
    while (b < 64 && (std::uint64_t{1} << b) < values)
        ++b;
    return b;
}

inline std::uint64_t cell_of_entry(std::uint64_t entry) {
    return entry >> 32;
}
inline std::uint64_t count_of_entry(std::uint64_t entry) {
    return entry & 0xffffffffu;
}

std::uint64_t double_bits(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}

double bits_double(std::uint64_t bits) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

} // namespace

// ---- construction -------------------------------------------------------------------------------------

void HeatmapCounts::init(HeatmapAggregate aggregate, ParticipantKeyKind key_kind, const HeatmapSpec& spec,
                         MemoryArena arena) {
    aggregate_ = aggregate;
    key_kind_ = key_kind;
    arena_ = arena;
    if (aggregate == HeatmapAggregate::ExactMap) {
        parameters_ = HeatmapParameters{};
        parameters_.grid = spec.parameters.grid;
        parameters_.cap = spec.parameters.cap;
        parameters_.mechanism = HeatmapMechanism::None;
        has_dataset_ = false;
    } else {
        parameters_ = spec.parameters;
        has_dataset_ = spec.dataset.has_value();
    }
    counting_cap_ = aggregate == HeatmapAggregate::OptimalCap ? static_cast<std::uint32_t>(INT32_MAX)
                                                              : static_cast<std::uint32_t>(parameters_.cap);
    cell_bits_ = std::max(1, bits_for(static_cast<std::uint64_t>(parameters_.grid.cells())));
    dataset_ = nullptr;
    dataset_size_ = 0;
    if (has_dataset_) {
        dataset_size_ = static_cast<std::uint32_t>(spec.dataset->size());
        dataset_ = static_cast<char*>(arena_.get(dataset_size_));
        std::memcpy(dataset_, spec.dataset->data(), dataset_size_);
    }
    participants_ = 0;
    participant_capacity_ = 8;
    participant_keys_ =
        static_cast<std::uint64_t*>(arena_.get(participant_capacity_ * sizeof(std::uint64_t)));
    pairs_ = static_cast<Pairs*>(arena_.get(participant_capacity_ * sizeof(Pairs)));
    participant_index_mask_ = 15;
    participant_index_ =
        static_cast<std::uint32_t*>(arena_.get((participant_index_mask_ + 1) * sizeof(std::uint32_t)));
    std::memset(participant_index_, 0, (participant_index_mask_ + 1) * sizeof(std::uint32_t));
    has_last_participant_ = false;
    last_participant_key_ = 0;
    last_participant_ = 0;
    scratch_ = nullptr;
    scratch_capacity_ = 0;
    recent_ = nullptr;
    resize_recent(kSmallRecent);
    buffered_ = 0;
}

void HeatmapCounts::copy_from(const HeatmapCounts& other, MemoryArena arena, const CancelCheck& cancel) {
    init(other.aggregate_, other.key_kind_, other.spec(), arena);
    merge(other, cancel);
}

void HeatmapCounts::release_memory() {
    for (std::uint32_t p = 0; p < participants_; ++p)
        arena_.put(pairs_[p].entries);
    for (void* p :
         {static_cast<void*>(dataset_), static_cast<void*>(participant_keys_), static_cast<void*>(pairs_),
          static_cast<void*>(participant_index_), static_cast<void*>(scratch_), static_cast<void*>(recent_)})
        arena_.put(p);
    dataset_ = nullptr;
    participant_keys_ = nullptr;
    pairs_ = nullptr;
    participant_index_ = nullptr;
    scratch_ = nullptr;
    recent_ = nullptr;
    participants_ = participant_capacity_ = 0;
    scratch_capacity_ = 0;
}

HeatmapSpec HeatmapCounts::spec() const {
    HeatmapSpec spec;
    spec.parameters = parameters_;
    if (has_dataset_)
        spec.dataset = std::string(dataset_, dataset_size_);
    return spec;
}

std::size_t HeatmapCounts::memory_bytes() const {
    std::size_t bytes = scratch_capacity_ * sizeof(std::uint64_t) +
                        std::size_t{participant_capacity_} * (sizeof(std::uint64_t) + sizeof(Pairs)) +
                        (std::size_t{participant_index_mask_} + 1) * sizeof(std::uint32_t) + dataset_size_ +
                        (std::size_t{1} << (64 - recent_shift_)) * sizeof(std::uint64_t);
    for (std::uint32_t p = 0; p < participants_; ++p)
        bytes += std::size_t{pairs_[p].capacity} * sizeof(std::uint64_t);
    return bytes;
}

std::uint64_t HeatmapCounts::pairs(const CancelCheck& cancel) {
    std::uint64_t total = 0;
    for (std::uint32_t p = 0; p < participants_; ++p) {
        cancel.poll(p);
        compact(pairs_[p]);
        total += pairs_[p].run;
    }
    return total;
}

// ---- participants -------------------------------------------------------------------------------------

std::uint32_t HeatmapCounts::participant_slow(std::uint64_t key) {
    std::uint32_t i = static_cast<std::uint32_t>(mix(key) >> 32) & participant_index_mask_;
    for (;; i = (i + 1) & participant_index_mask_) {
        const std::uint32_t at = participant_index_[i];
        if (at == 0)
            break;
        if (participant_keys_[at - 1] == key) {
            last_participant_key_ = key;
            last_participant_ = at - 1;
            has_last_participant_ = true;
            return at - 1;
        }
    }
    if (participants_ >= kMaxParticipants)
        throw LimitExceeded("a heatmap can count at most " + std::to_string(kMaxParticipants) +
                            " participants");
    if (participants_ == participant_capacity_ || (participants_ + 1) * 2 > participant_index_mask_ + 1) {
        grow_participants();
        return participant_slow(key);
    }
    const std::uint32_t index = participants_++;
    participant_keys_[index] = key;
    pairs_[index] = Pairs{nullptr, 0, 0, 0};
    participant_index_[i] = index + 1;
    last_participant_key_ = key;
    last_participant_ = index;
    has_last_participant_ = true;
    return index;
}

void HeatmapCounts::grow_participants() {
    if (participants_ == participant_capacity_) {
        const std::uint32_t capacity = participant_capacity_ * 2;
        auto* keys = static_cast<std::uint64_t*>(arena_.get(std::size_t{capacity} * sizeof(std::uint64_t)));
        auto* pairs = static_cast<Pairs*>(arena_.get(std::size_t{capacity} * sizeof(Pairs)));
        std::memcpy(keys, participant_keys_, std::size_t{participants_} * sizeof(std::uint64_t));
        std::memcpy(pairs, pairs_, std::size_t{participants_} * sizeof(Pairs));
        arena_.put(participant_keys_);
        arena_.put(pairs_);
        participant_keys_ = keys;
        pairs_ = pairs;
        participant_capacity_ = capacity;
    }
    if ((participants_ + 1) * 2 > participant_index_mask_ + 1) {
        const std::uint32_t size = (participant_index_mask_ + 1) * 2;
        auto* index = static_cast<std::uint32_t*>(arena_.get(std::size_t{size} * sizeof(std::uint32_t)));
        std::memset(index, 0, std::size_t{size} * sizeof(std::uint32_t));
        arena_.put(participant_index_);
        participant_index_ = index;
        participant_index_mask_ = size - 1;
        for (std::uint32_t p = 0; p < participants_; ++p) {
            std::uint32_t i =
                static_cast<std::uint32_t>(mix(participant_keys_[p]) >> 32) & participant_index_mask_;
            while (participant_index_[i] != 0)
                i = (i + 1) & participant_index_mask_;
            participant_index_[i] = p + 1;
        }
    }
}

// ---- pending tails and their compaction -----------------------------------------------------------------

void HeatmapCounts::resize_recent(int bits) {
    auto* recent = static_cast<std::uint64_t*>(arena_.get((std::size_t{1} << bits) * sizeof(std::uint64_t)));
    std::fill(recent, recent + (std::size_t{1} << bits), ~std::uint64_t{0}); // no key is all ones
    arena_.put(recent_);
    recent_ = recent;
    recent_shift_ = 64 - bits;
}

void HeatmapCounts::reserve(Pairs& p, std::uint64_t n) {
    if (p.capacity >= n)
        return;
    // Entries of one participant: at most its distinct cells (< 2^27) in the run plus a tail no longer than
    // that, plus one merged state's entries.
    if (n > std::uint64_t{UINT32_MAX})
        throw LimitExceeded("a participant's heatmap counts exceed 2^32 entries");
    const std::uint64_t grown =
        std::min<std::uint64_t>(UINT32_MAX, std::max<std::uint64_t>({n, std::uint64_t{p.capacity} * 2, 2}));
    auto* entries = static_cast<std::uint64_t*>(arena_.get(grown * sizeof(std::uint64_t)));
    if (p.size != 0)
        std::memcpy(entries, p.entries, std::size_t{p.size} * sizeof(std::uint64_t));
    arena_.put(p.entries);
    p.entries = entries;
    buffered_ += grown - p.capacity;
    p.capacity = static_cast<std::uint32_t>(grown);
    if (recent_shift_ == 64 - kSmallRecent && buffered_ >= kLargeRecentAfter)
        resize_recent(kLargeRecent);
}

void HeatmapCounts::make_room(Pairs& p) {
    // Compact when the tail is as long as the run (each compaction then merges at least as many new
    // entries as it rewrites: linear time overall); grow when that leaves less than half the buffer free.
    if (p.size - p.run >= std::max(kMinPending, p.run)) {
        compact(p);
        if (p.capacity - p.size >= std::max(kMinPending, p.size))
            return;
    }
    reserve(p, std::uint64_t{p.capacity} + 1);
}

void HeatmapCounts::append(Pairs& p, const std::uint64_t* entries, std::uint64_t n) {
    reserve(p, std::uint64_t{p.size} + n);
    std::memcpy(p.entries + p.size, entries, n * sizeof(std::uint64_t));
    p.size += static_cast<std::uint32_t>(n);
    if (p.size - p.run >= std::max(kMinPending, p.run))
        compact(p);
}

std::size_t HeatmapCounts::sort_pending(const std::uint64_t* in, std::size_t n, std::uint64_t* tmp,
                                        std::uint64_t* out) const {
    if (n < kSmallSort) {
        if (in != out)
            std::memcpy(out, in, n * sizeof(std::uint64_t));
        std::sort(out, out + n);
    } else {
        radix_sort(in, tmp, out, n, cell_bits_);
    }
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (m > 0 && cell_of_entry(out[m - 1]) == cell_of_entry(out[i]))
            out[m - 1] = (out[m - 1] & ~std::uint64_t{0xffffffffu}) |
                         saturate(count_of_entry(out[m - 1]) + count_of_entry(out[i]));
        else
            out[m++] = (out[i] & ~std::uint64_t{0xffffffffu}) | saturate(count_of_entry(out[i]));
    }
    return m;
}

std::uint64_t* HeatmapCounts::scratch(std::uint64_t n) {
    if (scratch_capacity_ < n) {
        const std::uint64_t grown = std::max<std::uint64_t>(n, scratch_capacity_ + scratch_capacity_ / 2);
        auto* fresh = static_cast<std::uint64_t*>(arena_.get(grown * sizeof(std::uint64_t)));
        arena_.put(scratch_);
        scratch_ = fresh;
        scratch_capacity_ = grown;
    }
    return scratch_;
}

void HeatmapCounts::compact(Pairs& p) {
    const std::size_t n = p.size - p.run;
    if (n == 0)
        return;
    std::uint64_t* sorted = scratch(2 * n);
    const std::size_t m = sort_pending(p.entries + p.run, n, sorted + n, sorted);
    p.size = p.run; // the tail now lives in scratch
    merge_into_run(p, sorted, m);
}

void HeatmapCounts::merge_into_run(Pairs& p, const std::uint64_t* sorted, std::size_t m) {
    reserve(p, std::uint64_t{p.run} + m);
    // Merge from the back into [0, run + m): the write position k never falls below the next unread run
    // element i (k >= i + j), so the run is merged in place.
    std::uint64_t* e = p.entries;
    std::size_t i = p.run, j = m, k = p.run + m;
    while (j > 0) {
        --k;
        if (i > 0 && cell_of_entry(e[i - 1]) > cell_of_entry(sorted[j - 1])) {
            e[k] = e[--i];
        } else if (i > 0 && cell_of_entry(e[i - 1]) == cell_of_entry(sorted[j - 1])) {
            --i;
            --j;
            e[k] = (e[i] & ~std::uint64_t{0xffffffffu}) |
                   saturate(count_of_entry(e[i]) + count_of_entry(sorted[j]));
        } else {
            e[k] = sorted[--j];
        }
    }
    // [0, i) is the untouched head, [k, run + m) the merged tail; close the gap left by equal cells.
    const std::size_t end = p.run + m;
    if (k > i)
        std::memmove(e + i, e + k, (end - k) * sizeof(std::uint64_t));
    p.run = p.size = static_cast<std::uint32_t>(i + (end - k));
}

HeatmapCounts::ReadScratch::ReadScratch(const HeatmapCounts& counts) : arena(counts.arena_) {
    std::uint32_t pending = 0, size = 0;
    for (std::uint32_t p = 0; p < counts.participants_; ++p) {
        const Pairs& pairs = counts.pairs_[p];
        if (pairs.size != pairs.run) {
            pending = std::max(pending, pairs.size - pairs.run);
            size = std::max(size, pairs.size);
        }
    }
    if (pending != 0) {
        sorted = static_cast<std::uint64_t*>(arena.get(std::size_t{pending} * sizeof(std::uint64_t)));
        tmp = static_cast<std::uint64_t*>(arena.get(std::size_t{pending} * sizeof(std::uint64_t)));
        merged = static_cast<std::uint64_t*>(arena.get(std::size_t{size} * sizeof(std::uint64_t)));
    }
}

HeatmapCounts::ReadScratch::~ReadScratch() {
    arena.put(sorted);
    arena.put(tmp);
    arena.put(merged);
}

const std::uint64_t* HeatmapCounts::sorted_pairs(std::uint32_t participant, const ReadScratch& s,
                                                 std::size_t& n) const {
    const Pairs& p = pairs_[participant];
    if (p.size == p.run) {
        n = p.run;
        return p.entries;
    }
    const std::size_t m = sort_pending(p.entries + p.run, p.size - p.run, s.tmp, s.sorted);
    const std::uint64_t* run = p.entries;
    std::size_t i = 0, j = 0;
    n = 0;
    while (i < p.run || j < m) {
        if (j == m || (i < p.run && cell_of_entry(run[i]) < cell_of_entry(s.sorted[j])))
            s.merged[n++] = run[i++];
        else if (i == p.run || cell_of_entry(s.sorted[j]) < cell_of_entry(run[i]))
            s.merged[n++] = s.sorted[j++];
        else {
            s.merged[n++] = (run[i] & ~std::uint64_t{0xffffffffu}) |
                            saturate(count_of_entry(run[i]) + count_of_entry(s.sorted[j]));
            ++i;
            ++j;
        }
    }
    return s.merged;
}

// ---- merging ------------------------------------------------------------------------------------------

bool HeatmapCounts::compatible(const HeatmapCounts& other) const {
    return aggregate_ == other.aggregate_ && key_kind_ == other.key_kind_ &&
           parameters_ == other.parameters_ && has_dataset_ == other.has_dataset_ &&
           dataset_size_ == other.dataset_size_ &&
           (dataset_size_ == 0 || std::memcmp(dataset_, other.dataset_, dataset_size_) == 0);
}

bool HeatmapCounts::merges_linearly(const Pairs& p, std::uint64_t n) {
    return p.size == p.run && 4 * n >= p.run;
}

void HeatmapCounts::add_sorted(std::uint32_t participant, const std::uint64_t* entries, std::size_t n) {
    Pairs& p = pairs_[participant];
    if (p.size == 0) { // a participant new to this state adopts the run as it is
        reserve(p, n);
        std::memcpy(p.entries, entries, n * sizeof(std::uint64_t));
        p.run = p.size = static_cast<std::uint32_t>(n);
    } else if (merges_linearly(p, n)) {
        merge_into_run(p, entries, n);
    } else {
        append(p, entries, n);
    }
}

void HeatmapCounts::merge(const HeatmapCounts& other, const CancelCheck& cancel) {
    if (&other == this)
        throw InternalError("a heatmap state cannot be merged with itself");
    if (!compatible(other))
        throw InvalidArgument("cannot combine heatmap states made with different parameters, aggregates or "
                              "participant types");
    const ReadScratch s(other);
    std::size_t merged = 0;
    for (std::uint32_t q = 0; q < other.participants_; ++q) {
        cancel.poll(merged);
        std::size_t n = 0;
        const std::uint64_t* entries = other.sorted_pairs(q, s, n);
        add_sorted(participant(other.participant_keys_[q]), entries, n);
        merged += n;
    }
}

// ---- serialization ------------------------------------------------------------------------------------
//
// "GZHM", then numbers (text_varint): version, aggregate, participant key kind, flags, width, height,
// cell size, cap; with the release parameters: mechanism, calibration, epsilon, delta and blur sigma (their
// IEEE bits) and observers; with a dataset: its length and bytes; the number of participants; per
// participant in ascending key order: its key (the first as is, later ones as the gap to the previous key
// minus 1), its number of cells, and per cell in ascending order the gap to the previous cell + 1 (to 0
// for the first) and, unless the counting cap is 1, the count minus 1. Last, the CRC-32 of everything
// before it in 7 symbols.

std::vector<std::uint8_t> HeatmapCounts::serialize(const CancelCheck& cancel) const {
    std::vector<std::uint32_t> order(participants_);
    std::uint64_t entries = 0;
    for (std::uint32_t p = 0; p < participants_; ++p) {
        order[p] = p;
        entries += pairs_[p].size;
    }
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return participant_keys_[a] < participant_keys_[b]; });

    text_varint::Writer w;
    w.reserve(96 + 2 * std::size_t{dataset_size_} + std::size_t{participants_} * 16 + entries * 3);
    const bool has_spec = aggregate_ != HeatmapAggregate::ExactMap;
    w.literal(kMagic);
    w.number(kVersion);
    w.number(static_cast<std::uint8_t>(aggregate_));
    w.number(static_cast<std::uint8_t>(key_kind_));
    w.number((has_spec ? kFlagSpec : 0) | (has_dataset_ ? kFlagDataset : 0));
    w.number(static_cast<std::uint32_t>(parameters_.grid.width));
    w.number(static_cast<std::uint32_t>(parameters_.grid.height));
    w.number(static_cast<std::uint32_t>(parameters_.grid.cell_size));
    w.number(static_cast<std::uint32_t>(parameters_.cap));
    if (has_spec) {
        w.number(static_cast<std::uint8_t>(parameters_.mechanism));
        w.number(calibration_code(parameters_.calibration));
        w.number(double_bits(parameters_.epsilon));
        w.number(double_bits(parameters_.delta));
        w.number(double_bits(parameters_.blur_sigma));
        w.number(static_cast<std::uint64_t>(parameters_.observers));
    }
    if (has_dataset_) {
        w.number(dataset_size_);
        for (std::uint32_t i = 0; i < dataset_size_; ++i)
            w.number(static_cast<unsigned char>(dataset_[i]));
    }
    w.number(participants_);
    const ReadScratch s(*this);
    const bool counts = counting_cap_ != 1;
    std::size_t written = 0;
    for (std::uint32_t k = 0; k < participants_; ++k) {
        cancel.poll(written);
        const std::uint32_t p = order[k];
        w.number(k == 0 ? participant_keys_[p] : participant_keys_[p] - participant_keys_[order[k - 1]] - 1);
        std::size_t n = 0;
        const std::uint64_t* e = sorted_pairs(p, s, n);
        w.number(n);
        std::uint64_t next = 0; // cells are written as gaps from the previous cell + 1
        for (std::size_t j = 0; j < n; ++j) {
            w.number(cell_of_entry(e[j]) - next);
            if (counts)
                w.number(count_of_entry(e[j]) - 1);
            next = cell_of_entry(e[j]) + 1;
        }
        written += n;
    }
    w.fixed(crc32_of(w.data().data(), w.data().size()), kChecksumSymbols);
    return std::move(w.data());
}

// Reads a serialized state: the header on construction, the participants through read_participants.
class HeatmapCounts::Decoder {
public:
    Decoder(const std::uint8_t* data, std::size_t size) : in_(data, size) {
        if (size < 4 + 9 + kChecksumSymbols)
            corrupt("it is only " + std::to_string(size) + " bytes long");
        text_varint::Reader trailer(data + size - kChecksumSymbols, kChecksumSymbols);
        if (trailer.fixed(kChecksumSymbols) != crc32_of(data, size - kChecksumSymbols))
            corrupt("its checksum does not match");
        in_ = text_varint::Reader(data, size - kChecksumSymbols);
        if (!in_.literal(kMagic))
            corrupt("it does not start with the heatmap state marker");
        const std::uint64_t version = in_.number();
        if (version != kVersion)
            corrupt("unsupported version " + std::to_string(version));
        const std::uint64_t aggregate = in_.number(), key_kind = in_.number(), flags = in_.number();
        if (aggregate < 1 || aggregate > 3)
            corrupt("unknown aggregate code " + std::to_string(aggregate));
        if (key_kind < 1 || key_kind > 2)
            corrupt("unknown participant key code " + std::to_string(key_kind));
        if ((flags & ~std::uint64_t{kFlagSpec | kFlagDataset}) != 0)
            corrupt("unknown flags");
        aggregate_ = static_cast<HeatmapAggregate>(aggregate);
        key_kind_ = static_cast<ParticipantKeyKind>(key_kind);
        const bool has_spec = (flags & kFlagSpec) != 0;
        if (has_spec != (aggregate_ != HeatmapAggregate::ExactMap))
            corrupt("the parameters do not match the aggregate");
        if ((flags & kFlagDataset) != 0 && !has_spec)
            corrupt("a dataset name without parameters");
        HeatmapParameters& p = spec_.parameters;
        const std::uint64_t width = in_.number(), height = in_.number(), cell_size = in_.number(),
                            cap = in_.number();
        try {
            if (width > INT32_MAX || height > INT32_MAX || cell_size > INT32_MAX || cap > INT32_MAX)
                corrupt("a grid size or the cap exceeds 2^31 - 1");
            p.grid = make_grid(static_cast<std::int64_t>(width), static_cast<std::int64_t>(height),
                               static_cast<std::int64_t>(cell_size), kMaxHeatmapCells);
            if (cap < 1)
                corrupt("cap " + std::to_string(cap) + " is below 1");
            p.cap = static_cast<std::int32_t>(cap);
            if (has_spec) {
                const std::uint64_t mechanism = in_.number();
                if (mechanism != 1 && mechanism != 2)
                    corrupt("unknown mechanism code " + std::to_string(mechanism));
                p.mechanism = static_cast<HeatmapMechanism>(mechanism);
                const std::uint64_t calibration = in_.number();
                if (calibration > 255)
                    corrupt("unknown calibration code " + std::to_string(calibration));
                p.calibration = calibration_from_code(static_cast<std::uint8_t>(calibration));
                p.epsilon = bits_double(in_.number());
                p.delta = bits_double(in_.number());
                p.blur_sigma = bits_double(in_.number());
                p.observers = static_cast<std::int64_t>(in_.number());
                validate_heatmap_parameters(p, kMaxHeatmapCells);
                if ((flags & kFlagDataset) != 0) {
                    const std::uint64_t n = in_.number();
                    if (n > kMaxDatasetName)
                        corrupt("the dataset name is too long");
                    std::string name(n, '\0');
                    for (std::uint64_t i = 0; i < n; ++i) {
                        const std::uint64_t byte = in_.number();
                        if (byte > 255)
                            corrupt("the dataset name is malformed");
                        name[i] = static_cast<char>(byte);
                    }
                    spec_.dataset = std::move(name);
                }
            } else {
                p.mechanism = HeatmapMechanism::None;
            }
        } catch (const InvalidArgument& e) {
            corrupt(e.what());
        }
        counting_cap_ = aggregate_ == HeatmapAggregate::OptimalCap ? std::uint64_t{INT32_MAX} : p.cap;
        const std::uint64_t participants = in_.number();
        if (participants > kMaxParticipants || participants > in_.left() / 2) // a key and a length each
            corrupt("it claims more participants than it holds");
        participants_ = static_cast<std::uint32_t>(participants);
    }

    HeatmapAggregate aggregate() const { return aggregate_; }
    ParticipantKeyKind key_kind() const { return key_kind_; }
    const HeatmapSpec& spec() const { return spec_; }

    // For each participant, sink.begin(key, n) returns room for its n entries (cell << 32 | count, cells
    // ascending), or nullptr to only check them; sink.end() follows once they are written.
    template <typename Sink> void read_participants(Sink& sink, const CancelCheck& cancel) {
        const std::uint64_t cells = static_cast<std::uint64_t>(spec_.parameters.grid.cells());
        const bool counts = counting_cap_ != 1;
        std::uint64_t key = 0, read = 0;
        for (std::uint32_t k = 0; k < participants_; ++k) {
            cancel.poll(k);
            const std::uint64_t gap = in_.number();
            if (k > 0 && gap >= ~std::uint64_t{0} - key)
                corrupt("participant keys overflow");
            key = k == 0 ? gap : key + gap + 1;
            const std::uint64_t n = in_.number();
            if (n > cells || n > in_.left())
                corrupt("a participant's number of cells is out of range");
            std::uint64_t* out = sink.begin(key, n);
            std::uint64_t next = 0;
            for (std::uint64_t j = 0; j < n; ++j) {
                cancel.poll(read++);
                const std::uint64_t step = in_.number();
                if (step >= cells - next)
                    corrupt("a cell is outside the grid");
                const std::uint64_t cell = next + step;
                std::uint64_t count = 1;
                if (counts) {
                    count = in_.number();
                    if (count >= counting_cap_)
                        corrupt("a count is outside [1, cap]");
                    ++count;
                }
                if (out != nullptr)
                    out[j] = (cell << 32) | count;
                next = cell + 1;
            }
            sink.end();
        }
        if (in_.left() != 0)
            corrupt("it has trailing bytes");
    }

private:
    text_varint::Reader in_;
    HeatmapAggregate aggregate_;
    ParticipantKeyKind key_kind_;
    HeatmapSpec spec_;
    std::uint64_t counting_cap_;
    std::uint32_t participants_;
};

namespace {

struct CheckOnly {
    std::uint64_t* begin(std::uint64_t, std::uint64_t) { return nullptr; }
    void end() {}
};

} // namespace

// Adds decoded participants to a state: new participants adopt their cells as their run.
struct HeatmapCounts::AddingSink {
    HeatmapCounts& counts;
    std::uint32_t participant = 0;
    std::uint64_t n = 0;
    enum { Adopt, Merge, Append } how = Adopt;

    std::uint64_t* begin(std::uint64_t key, std::uint64_t entries) {
        participant = counts.participant(key);
        n = entries;
        Pairs& p = counts.pairs_[participant];
        how = p.size == 0 ? Adopt : merges_linearly(p, n) ? Merge : Append;
        if (how == Merge)
            return counts.scratch(n);
        counts.reserve(p, std::uint64_t{p.size} + n);
        return p.entries + p.size;
    }
    void end() {
        Pairs& p = counts.pairs_[participant];
        if (how == Merge) {
            counts.merge_into_run(p, counts.scratch_, n);
            return;
        }
        p.size += static_cast<std::uint32_t>(n);
        if (how == Adopt)
            p.run = p.size;
        else if (p.size - p.run >= std::max(kMinPending, p.run))
            counts.compact(p);
    }
};

void HeatmapCounts::validate(const std::uint8_t* data, std::size_t size, const CancelCheck& cancel) {
    Decoder in(data, size);
    CheckOnly sink;
    in.read_participants(sink, cancel);
}

void HeatmapCounts::deserialize(const std::uint8_t* data, std::size_t size, MemoryArena arena,
                                const CancelCheck& cancel) {
    Decoder in(data, size);
    init(in.aggregate(), in.key_kind(), in.spec(), arena);
    AddingSink sink{*this};
    in.read_participants(sink, cancel);
}

void HeatmapCounts::merge_serialized(const std::uint8_t* data, std::size_t size, const CancelCheck& cancel) {
    Decoder in(data, size);
    const HeatmapSpec spec = in.spec();
    if (in.aggregate() != aggregate_ || in.key_kind() != key_kind_ || spec.parameters != parameters_ ||
        spec.dataset != this->spec().dataset)
        throw InvalidArgument("cannot combine heatmap states made with different parameters, aggregates or "
                              "participant types");
    AddingSink sink{*this};
    in.read_participants(sink, cancel);
}

void HeatmapCounts::cell_sums(std::int64_t* sums, const CancelCheck& cancel) const {
    std::fill(sums, sums + parameters_.grid.cells(), std::int64_t{0});
    for_each_pair([&](std::uint32_t, std::uint32_t cell, std::uint32_t count) { sums[cell] += count; },
                  cancel);
}

std::uint32_t HeatmapCounts::max_count(const CancelCheck& cancel) const {
    std::uint32_t m = 0;
    for_each_pair([&](std::uint32_t, std::uint32_t, std::uint32_t count) { m = std::max(m, count); }, cancel);
    return m;
}

} // namespace gazepriv::core
