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

namespace gazepriv::core {

static_assert(std::is_trivially_destructible_v<HeatmapCounts>, "HeatmapCounts lives in PostgreSQL memory");

namespace {

constexpr std::uint32_t kMaxParticipants = 1u << 31;
constexpr std::uint32_t kMagic = 0x4d485a47; // "GZHM" little-endian
constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kFlagSpec = 1;
constexpr std::uint8_t kFlagDataset = 2;

inline std::uint64_t mix(std::uint64_t key) {
    return key * 0x9E3779B97F4A7C15ull;
}

inline std::uint64_t load_le64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

// ---- binary writer / reader ------------------------------------------------------------------------

class Writer {
public:
    void u8(std::uint8_t v) { out_.push_back(v); }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i)
            out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i)
            out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void f64(double v) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        u64(bits);
    }
    void varint(std::uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<std::uint8_t>(v | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<std::uint8_t>(v));
    }
    void bytes(const void* p, std::size_t n) {
        const auto* b = static_cast<const std::uint8_t*>(p);
        out_.insert(out_.end(), b, b + n);
    }
    std::vector<std::uint8_t>& data() { return out_; }

private:
    std::vector<std::uint8_t> out_;
};

[[noreturn]] void corrupt(const std::string& why) {
    throw CorruptData("invalid heatmap state: " + why);
}

class Reader {
public:
    Reader(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
    std::size_t left() const { return n_ - pos_; }
    std::uint8_t u8() {
        need(1);
        return p_[pos_++];
    }
    std::uint32_t u32() {
        need(4);
        std::uint32_t v = 0;
        for (int i = 3; i >= 0; --i)
            v = (v << 8) | p_[pos_ + i];
        pos_ += 4;
        return v;
    }
    std::uint64_t u64() {
        need(8);
        const std::uint64_t v = load_le64(p_ + pos_);
        pos_ += 8;
        return v;
    }
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    double f64() {
        const std::uint64_t bits = u64();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const std::uint8_t b = u8();
            if (shift == 63 && b > 1)
                corrupt("a number overflows 64 bits");
            v |= std::uint64_t{b & 0x7fu} << shift;
            if ((b & 0x80) == 0)
                return v;
        }
        corrupt("a number is longer than 10 bytes");
    }
    const std::uint8_t* bytes(std::size_t n) {
        need(n);
        const std::uint8_t* at = p_ + pos_;
        pos_ += n;
        return at;
    }

private:
    void need(std::size_t k) const {
        if (k > n_ - pos_)
            corrupt("it ends early");
    }
    const std::uint8_t* p_;
    std::size_t n_;
    std::size_t pos_ = 0;
};

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

constexpr int kMaxDigitBits = 10; // 1024 buckets: the scatter stays in cache (11 bits measured 40% slower)
constexpr std::uint64_t kMinPendingCompaction = std::uint64_t{1} << 16;
constexpr int kSmallRecent = 6;  // 64 entries for small states (many groups)
constexpr int kLargeRecent = 12; // 4096 entries (32 KiB) once a state holds many pairs

// LSD radix sort of n records by a key of `bits` bits, in as few passes of at most 10-bit digits as
// possible; tmp has room for n records. The histograms of every digit come from one read of the records
// (not one per pass); digits that are the same for every record are skipped.
template <typename T, typename Key>
void radix_sort(T* a, T* tmp, std::size_t n, int bits, Key key, const CancelCheck& cancel) {
    const int passes = std::max(1, (bits + kMaxDigitBits - 1) / kMaxDigitBits);
    const int digit = (bits + passes - 1) / passes;
    const std::size_t buckets = std::size_t{1} << digit;
    const std::uint64_t mask = buckets - 1;
    std::vector<std::size_t> histograms(static_cast<std::size_t>(passes) * buckets);
    cancel.now();
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = key(a[i]);
        for (int p = 0; p < passes; ++p)
            ++histograms[p * buckets + ((k >> (p * digit)) & mask)];
    }
    T* from = a;
    T* to = tmp;
    for (int p = 0; p < passes; ++p) {
        cancel.now();
        std::size_t* count = histograms.data() + p * buckets;
        if (std::find(count, count + buckets, n) != count + buckets)
            continue; // one bucket holds everything: this digit is constant
        std::size_t sum = 0;
        for (std::size_t d = 0; d < buckets; ++d) // exclusive prefix sums: each bucket's first slot
            sum += std::exchange(count[d], sum);
        const int shift = p * digit;
        for (std::size_t i = 0; i < n; ++i)
            to[count[(key(from[i]) >> shift) & mask]++] = from[i];
        std::swap(from, to);
    }
    if (from != a)
        std::memcpy(a, from, n * sizeof(T));
}

int bits_for(std::uint64_t values) { // bits to represent 0 .. values - 1
    int b = 0;
    while (b < 64 && (std::uint64_t{1} << b) < values)
        ++b;
    return b;
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
    participant_index_mask_ = 15;
    participant_index_ =
        static_cast<std::uint32_t*>(arena_.get((participant_index_mask_ + 1) * sizeof(std::uint32_t)));
    std::memset(participant_index_, 0, (participant_index_mask_ + 1) * sizeof(std::uint32_t));
    has_last_participant_ = false;
    last_participant_key_ = 0;
    last_participant_ = 0;
    run_keys_ = nullptr;
    run_counts_ = nullptr;
    run_size_ = 0;
    run_capacity_ = 0;
    scratch_ = nullptr;
    scratch_capacity_ = 0;
    pending_capacity_ = 256;
    pending_ = static_cast<std::uint64_t*>(arena_.get(pending_capacity_ * sizeof(std::uint64_t)));
    recent_ = nullptr;
    resize_recent(kSmallRecent);
    pending_size_ = 0;
    weighted_ = nullptr;
    weighted_size_ = 0;
    weighted_capacity_ = 0;
}

void HeatmapCounts::copy_from(const HeatmapCounts& other, MemoryArena arena, const CancelCheck& cancel) {
    init(other.aggregate_, other.key_kind_, other.spec(), arena);
    merge(other, cancel);
}

void HeatmapCounts::release_memory() {
    for (void* p : {static_cast<void*>(dataset_), static_cast<void*>(participant_keys_),
                    static_cast<void*>(participant_index_), static_cast<void*>(run_keys_),
                    static_cast<void*>(run_counts_), static_cast<void*>(scratch_),
                    static_cast<void*>(pending_), static_cast<void*>(weighted_), static_cast<void*>(recent_)})
        arena_.put(p);
    dataset_ = nullptr;
    participant_keys_ = nullptr;
    participant_index_ = nullptr;
    run_keys_ = scratch_ = pending_ = nullptr;
    run_counts_ = nullptr;
    weighted_ = nullptr;
    recent_ = nullptr;
    run_size_ = run_capacity_ = scratch_capacity_ = 0;
    pending_size_ = pending_capacity_ = weighted_size_ = weighted_capacity_ = 0;
}

HeatmapSpec HeatmapCounts::spec() const {
    HeatmapSpec spec;
    spec.parameters = parameters_;
    if (has_dataset_)
        spec.dataset = std::string(dataset_, dataset_size_);
    return spec;
}

std::size_t HeatmapCounts::memory_bytes() const {
    return run_capacity_ * (sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
           (scratch_capacity_ + pending_capacity_) * sizeof(std::uint64_t) +
           weighted_capacity_ * sizeof(Weighted) + participant_capacity_ * sizeof(std::uint64_t) +
           (std::size_t{participant_index_mask_} + 1) * sizeof(std::uint32_t) + dataset_size_ +
           (std::size_t{1} << (64 - recent_shift_)) * sizeof(std::uint64_t);
}

std::uint64_t HeatmapCounts::pairs(const CancelCheck& cancel) {
    compact(cancel);
    return run_size_;
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
        std::memcpy(keys, participant_keys_, std::size_t{participants_} * sizeof(std::uint64_t));
        arena_.put(participant_keys_);
        participant_keys_ = keys;
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

// ---- the pending logs and their compaction ------------------------------------------------------------

int HeatmapCounts::key_bits() const {
    return cell_bits_ + bits_for(participants_);
}

void HeatmapCounts::resize_recent(int bits) {
    auto* recent = static_cast<std::uint64_t*>(arena_.get((std::size_t{1} << bits) * sizeof(std::uint64_t)));
    std::fill(recent, recent + (std::size_t{1} << bits), ~std::uint64_t{0}); // no key is all ones
    arena_.put(recent_);
    recent_ = recent;
    recent_shift_ = 64 - bits;
}

void HeatmapCounts::make_pending_room() {
    if (recent_shift_ == 64 - kSmallRecent && pending_capacity_ >= kMinPendingCompaction)
        resize_recent(kLargeRecent);
    if (pending_capacity_ >= std::max(kMinPendingCompaction, run_size_)) {
        compact(CancelCheck());
        return;
    }
    const std::uint64_t capacity = pending_capacity_ * 2;
    auto* pending = static_cast<std::uint64_t*>(arena_.get(capacity * sizeof(std::uint64_t)));
    std::memcpy(pending, pending_, pending_size_ * sizeof(std::uint64_t));
    arena_.put(pending_);
    pending_ = pending;
    pending_capacity_ = capacity;
}

void HeatmapCounts::push_weighted(std::uint64_t key, std::uint64_t count) {
    if (weighted_size_ == weighted_capacity_) {
        const std::uint64_t capacity = std::max<std::uint64_t>(256, weighted_capacity_ * 2);
        auto* weighted = static_cast<Weighted*>(arena_.get(capacity * sizeof(Weighted)));
        if (weighted_size_ != 0)
            std::memcpy(weighted, weighted_, weighted_size_ * sizeof(Weighted));
        arena_.put(weighted_);
        weighted_ = weighted;
        weighted_capacity_ = capacity;
    }
    weighted_[weighted_size_++] = {key, count};
}

template <typename T> void HeatmapCounts::reserve(T*& buffer, std::uint64_t& capacity, std::uint64_t n) {
    if (capacity >= n)
        return;
    const std::uint64_t grown = std::max<std::uint64_t>(n, capacity + capacity / 2);
    T* fresh = static_cast<T*>(arena_.get(grown * sizeof(T)));
    arena_.put(buffer);
    buffer = fresh;
    capacity = grown;
}

void HeatmapCounts::sorted_pending(std::uint64_t*& keys, std::uint64_t*& counts, std::size_t& size,
                                   const CancelCheck& cancel) const {
    keys = nullptr;
    counts = nullptr;
    size = 0;
    const int bits = key_bits();
    const int cell_bits = cell_bits_;
    const auto sort_key = [cell_bits](std::uint64_t k) {
        return ((k >> 32) << cell_bits) | (k & 0xffffffffu);
    };
    // The points: sorted copy, then equal keys counted.
    std::uint64_t *pk = nullptr, *pc = nullptr;
    std::size_t np = 0;
    if (pending_size_ != 0) {
        pk = static_cast<std::uint64_t*>(arena_.get(pending_size_ * sizeof(std::uint64_t)));
        auto* tmp = static_cast<std::uint64_t*>(arena_.get(pending_size_ * sizeof(std::uint64_t)));
        std::memcpy(pk, pending_, pending_size_ * sizeof(std::uint64_t));
        radix_sort(pk, tmp, pending_size_, bits, sort_key, cancel);
        pc = tmp; // reused for the counts
        for (std::size_t i = 0; i < pending_size_; ++i) {
            if (np > 0 && pk[np - 1] == pk[i]) {
                ++pc[np - 1];
            } else {
                pk[np] = pk[i];
                pc[np++] = 1;
            }
        }
    }
    if (weighted_size_ == 0) {
        keys = pk;
        counts = pc;
        size = np;
        return;
    }
    // The weighted pairs likewise, then both merged.
    auto* a = static_cast<Weighted*>(arena_.get(weighted_size_ * sizeof(Weighted)));
    auto* tmp = static_cast<Weighted*>(arena_.get(weighted_size_ * sizeof(Weighted)));
    std::memcpy(a, weighted_, weighted_size_ * sizeof(Weighted));
    radix_sort(
        a, tmp, weighted_size_, bits, [&](const Weighted& w) { return sort_key(w.key); }, cancel);
    arena_.put(tmp);
    const std::size_t most = np + weighted_size_;
    keys = static_cast<std::uint64_t*>(arena_.get(most * sizeof(std::uint64_t)));
    counts = static_cast<std::uint64_t*>(arena_.get(most * sizeof(std::uint64_t)));
    std::size_t i = 0, j = 0;
    auto emit = [&](std::uint64_t key, std::uint64_t count) {
        if (size > 0 && keys[size - 1] == key) {
            counts[size - 1] += count;
        } else {
            keys[size] = key;
            counts[size++] = count;
        }
    };
    while (i < np || j < weighted_size_) {
        if (j == weighted_size_ || (i < np && pk[i] <= a[j].key)) {
            emit(pk[i], pc[i]);
            ++i;
        } else {
            emit(a[j].key, a[j].count);
            ++j;
        }
    }
    arena_.put(a);
    arena_.put(pk);
    arena_.put(pc);
}

template <typename Count>
void HeatmapCounts::merge_into_run(const std::uint64_t* keys, const Count* counts, std::size_t size) {
    const std::uint64_t total = run_size_ + size;
    if (run_capacity_ < total) { // keys and counts share one capacity
        const std::uint64_t grown = std::max<std::uint64_t>(total, run_capacity_ + run_capacity_ / 2);
        auto* new_keys = static_cast<std::uint64_t*>(arena_.get(grown * sizeof(std::uint64_t)));
        auto* new_counts = static_cast<std::uint32_t*>(arena_.get(grown * sizeof(std::uint32_t)));
        if (run_size_ != 0) {
            std::memcpy(new_keys, run_keys_, run_size_ * sizeof(std::uint64_t));
            std::memcpy(new_counts, run_counts_, run_size_ * sizeof(std::uint32_t));
        }
        arena_.put(run_keys_);
        arena_.put(run_counts_);
        run_keys_ = new_keys;
        run_counts_ = new_counts;
        run_capacity_ = grown;
    }
    // Merge from the back into [0, total): the write position k never falls below the next unread run
    // element i (k >= i + j), so the run is merged in place.
    std::uint64_t i = run_size_, j = size, k = total;
    while (j > 0) {
        --k;
        if (i > 0 && run_keys_[i - 1] > keys[j - 1]) {
            --i;
            run_keys_[k] = run_keys_[i];
            run_counts_[k] = run_counts_[i];
        } else if (i > 0 && run_keys_[i - 1] == keys[j - 1]) {
            --i;
            --j;
            run_counts_[k] = saturate(std::uint64_t{run_counts_[i]} + counts[j]);
            run_keys_[k] = keys[j];
        } else {
            --j;
            run_keys_[k] = keys[j];
            run_counts_[k] = saturate(counts[j]);
        }
    }
    // [0, i) is the untouched head, [k, total) the merged tail; close the gap left by equal keys.
    if (k > i) {
        std::memmove(run_keys_ + i, run_keys_ + k, (total - k) * sizeof(std::uint64_t));
        std::memmove(run_counts_ + i, run_counts_ + k, (total - k) * sizeof(std::uint32_t));
    }
    run_size_ = i + (total - k);
}

void HeatmapCounts::compact(const CancelCheck& cancel) {
    if (pending_size_ != 0 && weighted_size_ == 0) {
        // The row path: sort the points in place, count equal keys, merge.
        const int cell_bits = cell_bits_;
        reserve(scratch_, scratch_capacity_, pending_size_);
        radix_sort(
            pending_, scratch_, pending_size_, key_bits(),
            [cell_bits](std::uint64_t k) { return ((k >> 32) << cell_bits) | (k & 0xffffffffu); }, cancel);
        auto* counts = reinterpret_cast<std::uint32_t*>(scratch_);
        std::size_t n = 0;
        for (std::size_t i = 0; i < pending_size_; ++i) {
            if (n > 0 && pending_[n - 1] == pending_[i]) {
                ++counts[n - 1];
            } else {
                pending_[n] = pending_[i];
                counts[n++] = 1;
            }
        }
        merge_into_run(pending_, counts, n);
        pending_size_ = 0;
        return;
    }
    if (pending_size_ == 0 && weighted_size_ == 0)
        return;
    std::uint64_t* keys = nullptr;
    std::uint64_t* counts = nullptr;
    std::size_t size = 0;
    sorted_pending(keys, counts, size, cancel);
    merge_into_run(keys, counts, size);
    arena_.put(keys);
    arena_.put(counts);
    pending_size_ = 0;
    weighted_size_ = 0;
}

bool HeatmapCounts::compatible(const HeatmapCounts& other) const {
    return aggregate_ == other.aggregate_ && key_kind_ == other.key_kind_ &&
           parameters_ == other.parameters_ && has_dataset_ == other.has_dataset_ &&
           dataset_size_ == other.dataset_size_ &&
           (dataset_size_ == 0 || std::memcmp(dataset_, other.dataset_, dataset_size_) == 0);
}

bool HeatmapCounts::canonical() const {
    if (pending_size_ != 0 || weighted_size_ != 0)
        return false;
    for (std::uint32_t p = 1; p < participants_; ++p)
        if (participant_keys_[p - 1] >= participant_keys_[p])
            return false;
    return true;
}

void HeatmapCounts::merge_canonical(const HeatmapCounts& other, const CancelCheck& cancel) {
    // The union of the two sorted participant lists; each side's index maps monotonically into it.
    std::vector<std::uint64_t> keys;
    keys.reserve(std::size_t{participants_} + other.participants_);
    std::vector<std::uint32_t> mine(participants_), theirs(other.participants_);
    for (std::uint32_t a = 0, b = 0; a < participants_ || b < other.participants_;) {
        const std::uint32_t index = static_cast<std::uint32_t>(keys.size());
        if (b == other.participants_ ||
            (a < participants_ && participant_keys_[a] < other.participant_keys_[b])) {
            mine[a] = index;
            keys.push_back(participant_keys_[a++]);
        } else if (a == participants_ || other.participant_keys_[b] < participant_keys_[a]) {
            theirs[b] = index;
            keys.push_back(other.participant_keys_[b++]);
        } else {
            mine[a++] = index;
            theirs[b] = index;
            keys.push_back(other.participant_keys_[b++]);
        }
    }
    if (keys.size() > kMaxParticipants)
        throw LimitExceeded("a heatmap can count at most " + std::to_string(kMaxParticipants) +
                            " participants");
    // Both runs, renumbered, stay sorted: one linear merge.
    auto renumber = [](const std::vector<std::uint32_t>& map, std::uint64_t key) {
        return (std::uint64_t{map[key >> 32]} << 32) | (key & 0xffffffffu);
    };
    const std::uint64_t most = run_size_ + other.run_size_;
    auto* new_keys =
        static_cast<std::uint64_t*>(arena_.get(std::max<std::uint64_t>(most, 1) * sizeof(std::uint64_t)));
    auto* new_counts =
        static_cast<std::uint32_t*>(arena_.get(std::max<std::uint64_t>(most, 1) * sizeof(std::uint32_t)));
    std::uint64_t n = 0, i = 0, j = 0;
    while (i < run_size_ || j < other.run_size_) {
        cancel.poll(n);
        const std::uint64_t a = i < run_size_ ? renumber(mine, run_keys_[i]) : ~std::uint64_t{0};
        const std::uint64_t b =
            j < other.run_size_ ? renumber(theirs, other.run_keys_[j]) : ~std::uint64_t{0};
        if (a < b) {
            new_keys[n] = a;
            new_counts[n++] = run_counts_[i++];
        } else if (b < a) {
            new_keys[n] = b;
            new_counts[n++] = other.run_counts_[j++];
        } else {
            new_keys[n] = a;
            new_counts[n++] = saturate(std::uint64_t{run_counts_[i++]} + other.run_counts_[j++]);
        }
    }
    arena_.put(run_keys_);
    arena_.put(run_counts_);
    run_keys_ = new_keys;
    run_counts_ = new_counts;
    run_size_ = n;
    run_capacity_ = std::max<std::uint64_t>(most, 1);
    // New participant numbering: rebuild the index, forget everything remembered under the old numbers.
    participants_ = 0;
    std::memset(participant_index_, 0, (std::size_t{participant_index_mask_} + 1) * sizeof(std::uint32_t));
    for (std::uint64_t key : keys)
        participant_slow(key);
    has_last_participant_ = false;
    std::fill(recent_, recent_ + (std::size_t{1} << (64 - recent_shift_)), ~std::uint64_t{0});
}

void HeatmapCounts::merge(const HeatmapCounts& other, const CancelCheck& cancel) {
    if (&other == this)
        throw InternalError("a heatmap state cannot be merged with itself");
    if (!compatible(other))
        throw InvalidArgument("cannot combine heatmap states made with different parameters, aggregates or "
                              "participant types");
    if (canonical() && other.canonical()) {
        merge_canonical(other, cancel);
        return;
    }
    std::vector<std::uint32_t> map(other.participants_);
    for (std::uint32_t p = 0; p < other.participants_; ++p)
        map[p] = participant(other.participant_keys_[p]);
    other.for_each_pair(
        [&](std::uint32_t p, std::uint32_t cell, std::uint32_t count) {
            push_weighted((std::uint64_t{map[p]} << 32) | cell, count);
        },
        cancel);
    if (weighted_size_ >= std::max(kMinPendingCompaction, run_size_))
        compact(cancel);
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

// ---- serialization ------------------------------------------------------------------------------------

std::vector<std::uint8_t> HeatmapCounts::serialize(const CancelCheck& cancel) const {
    // Pairs in (participant index, cell) order, with each participant's range.
    std::vector<std::uint32_t> cells, counts;
    std::vector<std::uint64_t> offsets(std::size_t{participants_} + 1, 0);
    cells.reserve(run_size_ + pending_size_ + weighted_size_);
    counts.reserve(cells.capacity());
    for_each_pair(
        [&](std::uint32_t p, std::uint32_t cell, std::uint32_t count) {
            cells.push_back(cell);
            counts.push_back(count);
            ++offsets[std::size_t{p} + 1];
        },
        cancel);
    for (std::uint32_t p = 0; p < participants_; ++p)
        offsets[p + 1] += offsets[p];
    std::vector<std::uint32_t> order(participants_);
    for (std::uint32_t p = 0; p < participants_; ++p)
        order[p] = p;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return participant_keys_[a] < participant_keys_[b]; });

    Writer w;
    w.data().reserve(64 + dataset_size_ + std::size_t{participants_} * 10 + cells.size() * 3);
    const bool has_spec = aggregate_ != HeatmapAggregate::ExactMap;
    w.u32(kMagic);
    w.u8(kVersion);
    w.u8(static_cast<std::uint8_t>(aggregate_));
    w.u8(static_cast<std::uint8_t>(key_kind_));
    w.u8(static_cast<std::uint8_t>((has_spec ? kFlagSpec : 0) | (has_dataset_ ? kFlagDataset : 0)));
    w.i32(parameters_.grid.width);
    w.i32(parameters_.grid.height);
    w.i32(parameters_.grid.cell_size);
    w.i32(parameters_.cap);
    if (has_spec) {
        w.u8(static_cast<std::uint8_t>(parameters_.mechanism));
        w.u8(calibration_code(parameters_.calibration));
        w.u8(0);
        w.u8(0);
        w.f64(parameters_.epsilon);
        w.f64(parameters_.delta);
        w.f64(parameters_.blur_sigma);
        w.i64(parameters_.observers);
    }
    if (has_dataset_) {
        w.u32(dataset_size_);
        w.bytes(dataset_, dataset_size_);
    }
    w.u32(participants_);
    w.u64(cells.size());
    for (std::uint32_t p : order) {
        cancel.poll(p);
        w.u64(participant_keys_[p]);
        w.varint(offsets[p + 1] - offsets[p]);
        std::uint64_t next = 0; // cells are written as gaps from the previous cell + 1
        for (std::uint64_t j = offsets[p]; j < offsets[p + 1]; ++j) {
            w.varint(cells[j] - next);
            w.varint(counts[j]);
            next = std::uint64_t{cells[j]} + 1;
        }
    }
    w.u32(crc32_of(w.data().data(), w.data().size()));
    return std::move(w.data());
}

void HeatmapCounts::deserialize(const std::uint8_t* data, std::size_t size, MemoryArena arena,
                                const CancelCheck& cancel) {
    if (size < 4 + 4 + 16 + 12 + 4)
        corrupt("it is only " + std::to_string(size) + " bytes long");
    {
        Reader tail(data + size - 4, 4);
        if (tail.u32() != crc32_of(data, size - 4))
            corrupt("its checksum does not match");
    }
    Reader in(data, size - 4);
    if (in.u32() != kMagic)
        corrupt("it does not start with the heatmap state marker");
    const std::uint8_t version = in.u8();
    if (version != kVersion)
        corrupt("unsupported version " + std::to_string(version));
    const std::uint8_t aggregate = in.u8();
    const std::uint8_t key_kind = in.u8();
    const std::uint8_t flags = in.u8();
    if (aggregate < 1 || aggregate > 3)
        corrupt("unknown aggregate code " + std::to_string(aggregate));
    if (key_kind < 1 || key_kind > 2)
        corrupt("unknown participant key code " + std::to_string(key_kind));
    if ((flags & ~(kFlagSpec | kFlagDataset)) != 0)
        corrupt("unknown flags");
    const bool has_spec = (flags & kFlagSpec) != 0;
    if (has_spec != (aggregate != static_cast<std::uint8_t>(HeatmapAggregate::ExactMap)))
        corrupt("the parameters do not match the aggregate");
    if ((flags & kFlagDataset) != 0 && !has_spec)
        corrupt("a dataset name without parameters");

    HeatmapSpec spec;
    HeatmapParameters& p = spec.parameters;
    const std::int32_t width = in.i32(), height = in.i32(), cell_size = in.i32(), cap = in.i32();
    try {
        p.grid = make_grid(width, height, cell_size, kMaxHeatmapCells);
        if (cap < 1)
            corrupt("cap " + std::to_string(cap) + " is below 1");
        p.cap = cap;
        if (has_spec) {
            const std::uint8_t mechanism = in.u8();
            if (mechanism != 1 && mechanism != 2)
                corrupt("unknown mechanism code " + std::to_string(mechanism));
            p.mechanism = static_cast<HeatmapMechanism>(mechanism);
            p.calibration = calibration_from_code(in.u8());
            if (in.u8() != 0 || in.u8() != 0)
                corrupt("reserved bytes are not zero");
            p.epsilon = in.f64();
            p.delta = in.f64();
            p.blur_sigma = in.f64();
            p.observers = in.i64();
            validate_heatmap_parameters(p, kMaxHeatmapCells);
            if ((flags & kFlagDataset) != 0) {
                const std::uint32_t n = in.u32();
                if (n > kMaxDatasetName)
                    corrupt("the dataset name is too long");
                const std::uint8_t* name = in.bytes(n);
                spec.dataset = std::string(reinterpret_cast<const char*>(name), n);
            }
        }
    } catch (const InvalidArgument& e) {
        corrupt(e.what());
    }
    const std::uint32_t participants = in.u32();
    const std::uint64_t pairs = in.u64();
    if (participants > kMaxParticipants || participants > in.left() / 9)
        corrupt("it claims more participants than it holds");
    if (pairs > in.left() / 2 ||
        pairs > std::uint64_t{participants} * static_cast<std::uint64_t>(p.grid.cells()))
        corrupt("it claims more pairs than it holds");

    init(static_cast<HeatmapAggregate>(aggregate), static_cast<ParticipantKeyKind>(key_kind), spec, arena);
    // Participants arrive in key order and get indices 0, 1, ...; their cells ascend: the pairs arrive
    // sorted by (index, cell) and become the run directly.
    run_keys_ = static_cast<std::uint64_t*>(arena_.get(pairs * sizeof(std::uint64_t)));
    run_counts_ = static_cast<std::uint32_t*>(arena_.get(pairs * sizeof(std::uint32_t)));
    run_capacity_ = pairs;
    const std::uint64_t cells = static_cast<std::uint64_t>(p.grid.cells());
    std::uint64_t previous_key = 0;
    for (std::uint32_t k = 0; k < participants; ++k) {
        cancel.poll(k);
        const std::uint64_t key = in.u64();
        if (k > 0 && key <= previous_key)
            corrupt("participants are not sorted and distinct");
        previous_key = key;
        const std::uint32_t index = participant(key);
        const std::uint64_t count_pairs = in.varint();
        if (count_pairs > cells || count_pairs > pairs - run_size_)
            corrupt("a participant's number of cells is out of range");
        std::uint64_t next = 0;
        for (std::uint64_t j = 0; j < count_pairs; ++j) {
            cancel.poll(run_size_);
            const std::uint64_t gap = in.varint();
            if (gap >= cells || next + gap >= cells)
                corrupt("a cell is outside the grid");
            const std::uint64_t cell = next + gap;
            const std::uint64_t count = in.varint();
            if (count == 0 || count > counting_cap_)
                corrupt("a count is outside [1, cap]");
            run_keys_[run_size_] = (std::uint64_t{index} << 32) | cell;
            run_counts_[run_size_++] = static_cast<std::uint32_t>(count);
            next = cell + 1;
        }
    }
    if (run_size_ != pairs)
        corrupt("the number of pairs does not match");
    if (in.left() != 0)
        corrupt("it has trailing bytes");
}

} // namespace gazepriv::core
