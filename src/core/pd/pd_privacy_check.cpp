#include "core/pd/pd_privacy_check.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"

namespace gazepriv::core::pd {

namespace {
constexpr Named<TestKind> kTestKinds[] = {{TestKind::Record, "record"}, {TestKind::Identity, "identity"}};
} // namespace

TestKind parse_test_kind(const std::string& name) {
    return parse_name(kTestKinds, "test", name);
}

const char* to_string(TestKind kind) {
    return name_of(kTestKinds, kind);
}

double band_index(double log_p, double log_gamma) {
    if (log_p == kNoBand || !(log_gamma > 0))
        return std::nan("");
    return std::floor(-log_p / log_gamma);
}

BandMatcher::BandMatcher(double seed_log_p, double log_gamma)
    : seed_log_p_(seed_log_p), log_gamma_(log_gamma), band_(band_index(seed_log_p, log_gamma)) {}

SeedIndex::SeedIndex(const Model& model, const std::uint8_t* codes, std::size_t stride,
                     const std::int32_t* participant, std::size_t rows)
    : model_(model), codes_(codes), stride_(stride), participant_(participant), rows_(rows) {
    if (stride != code_stride(model.features()))
        throw InternalError("SeedIndex: stride does not match the model's features");
    ranges_.push_back(0);
    for (std::size_t r = 1; r < rows; ++r) {
        if (participant[r] < participant[r - 1])
            throw InternalError("SeedIndex: rows must be sorted by participant");
        if (participant[r] != participant[r - 1])
            ranges_.push_back(r);
    }
    if (rows > 0)
        ranges_.push_back(rows);
    if (model.seedless())
        return;
    if (model.resample() == Resample::Random) {
        build_distinct_rows();
        return;
    }
    // Resample::Last: a candidate copies the seed's first m - omega features, and exactly the records that
    // share them have Pr > 0, all the same Pr. Count them once per key.
    struct Key {
        std::uint32_t rows = 0;
        std::uint32_t people = 0;
        std::int32_t last_participant = -1;
    };
    const std::size_t copied = model.features() - model.omega();
    std::unordered_map<std::string, Key> keys;
    keys.reserve(rows);
    std::string key(copied, '\0');
    for (std::size_t r = 0; r < rows; ++r) {
        key.assign(reinterpret_cast<const char*>(row(r)), copied);
        Key& k = keys[key];
        ++k.rows;
        if (k.last_participant != participant[r]) { // rows are sorted by participant
            ++k.people;
            k.last_participant = participant[r];
        }
    }
    key_rows_.resize(rows);
    key_people_.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
        key.assign(reinterpret_cast<const char*>(row(r)), copied);
        const Key& k = keys[key];
        key_rows_[r] = k.rows;
        key_people_[r] = k.people;
    }
}

std::size_t SeedIndex::count(CandidateScorer& scorer, const std::uint8_t* y, std::size_t seed, TestKind test,
                             double log_gamma, std::size_t need, const CancelCheck& cancel) const {
    if (model_.seedless()) // every record has the candidate's probability
        return test == TestKind::Record ? rows_ : participants() - 1;
    if (model_.resample() == Resample::Last)
        return test == TestKind::Record ? key_rows_[seed] : key_people_[seed] - 1;
    return scan_random(scorer, y, seed, test, log_gamma, need, cancel);
}

void SeedIndex::build_distinct_rows() {
    const std::size_t m = model_.features();
    std::vector<std::size_t> order;
    for (std::size_t p = 0; p + 1 < ranges_.size(); ++p) {
        order.resize(ranges_[p + 1] - ranges_[p]);
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = ranges_[p] + i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return std::memcmp(row(a), row(b), m) < 0; });
        for (std::size_t i = 0; i < order.size(); ++i) {
            if (i > 0 && std::memcmp(row(order[i]), row(order[i - 1]), m) == 0) {
                ++weight_.back();
                continue;
            }
            distinct_.insert(distinct_.end(), row(order[i]), row(order[i]) + stride_);
            weight_.push_back(1);
            distinct_participant_.push_back(participant_[order[i]]);
        }
    }
    const std::size_t n = weight_.size(), blocks = (n + 15) / 16;
    blocks_.assign(blocks * m * 16, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j)
            blocks_[(i / 16) * m * 16 + j * 16 + i % 16] = distinct_[i * stride_ + j];
    std::int32_t largest = 0;
    for (std::size_t r = 0; r < rows_; ++r)
        largest = std::max(largest, participant_[r]);
    counted_.assign(static_cast<std::size_t>(largest) + 1, 0);
    if (m <= 16) {
        decided_.assign(std::size_t{1} << m, 0);
        decision_.assign(std::size_t{1} << m, 0);
    }
}

namespace {

// Bit i set when row i of a block of 16 agrees with y on at least `min_agree` features. `wanted` holds each
// y_j broadcast to 16 lanes (prepared once per candidate).
#if defined(__SSE2__)
inline unsigned agreeing_rows(const std::uint8_t* block, const __m128i* wanted, std::size_t m,
                              int min_agree) {
    __m128i agree = _mm_setzero_si128();
    for (std::size_t j = 0; j < m; ++j) { // cmpeq gives -1 per equal byte
        const __m128i column = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * j));
        agree = _mm_sub_epi8(agree, _mm_cmpeq_epi8(column, wanted[j]));
    }
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_cmpgt_epi8(agree, _mm_set1_epi8(static_cast<char>(min_agree - 1)))));
}
#else
inline unsigned agreeing_rows(const std::uint8_t* block, const std::uint8_t* y, std::size_t m,
                              int min_agree) {
    unsigned hits = 0;
    for (int lane = 0; lane < 16; ++lane) {
        int agree = 0;
        for (std::size_t j = 0; j < m; ++j)
            agree += block[16 * j + lane] == y[j];
        hits |= static_cast<unsigned>(agree >= min_agree) << lane;
    }
    return hits;
}
#endif

} // namespace

std::size_t SeedIndex::scan_random(CandidateScorer& scorer, const std::uint8_t* y, std::size_t seed,
                                   TestKind test, double log_gamma, std::size_t need,
                                   const CancelCheck& cancel) const {
    if (need == 0)
        return 0;
    scorer.set_candidate(y);
    // The seed's probability through the same memoised formula as every other record's, so that the seed
    // and records with its mask get bit-identical log-probabilities.
    const BandMatcher in_band(scorer.log_prob_for_mask(mismatch_mask(y, row(seed), stride_)), log_gamma);
    const std::size_t m = model_.features(), n = weight_.size();
    const int min_agree = static_cast<int>(m - model_.omega()); // >= 1: the model is not seedless
    const std::int32_t own = participant_[seed];
    const bool identity = test == TestKind::Identity;
    if (++stamp_ == 0) { // wrapped: forget every old entry
        std::fill(counted_.begin(), counted_.end(), 0);
        std::fill(decided_.begin(), decided_.end(), 0);
        stamp_ = 1;
    }
    const bool direct = !decided_.empty();
#if defined(__SSE2__)
    __m128i wanted[kMaxRandomFeatures];
    for (std::size_t j = 0; j < m; ++j)
        wanted[j] = _mm_set1_epi8(static_cast<char>(y[j]));
#else
    const std::uint8_t* wanted = y;
#endif
    std::size_t found = 0;
    for (std::size_t first = 0; first < n; first += 16) {
        cancel.poll(first);
        unsigned hits = agreeing_rows(&blocks_[first * m], wanted, m, min_agree);
        if (n - first < 16)
            hits &= (1u << (n - first)) - 1;
        for (; hits != 0; hits &= hits - 1) {
            const std::size_t i = first + static_cast<std::size_t>(__builtin_ctz(hits));
            if (identity && (distinct_participant_[i] == own || counted_[distinct_participant_[i]] == stamp_))
                continue; // the seed's own participant, or one already counted
            const std::uint64_t mask = mismatch_mask(y, &distinct_[i * stride_], stride_);
            bool plausible;
            if (direct && decided_[mask] == stamp_) {
                plausible = decision_[mask];
            } else {
                plausible = in_band(scorer.log_prob_for_mask(mask));
                if (direct) {
                    decided_[mask] = stamp_;
                    decision_[mask] = plausible;
                }
            }
            if (!plausible)
                continue;
            if (identity) {
                counted_[distinct_participant_[i]] = stamp_;
                ++found;
            } else {
                found += weight_[i];
            }
            if (found >= need)
                return found;
        }
    }
    return found;
}

std::size_t SeedIndex::count_straightforward(const std::uint8_t* y, std::size_t seed, TestKind test,
                                             double log_gamma) const {
    const BandMatcher in_band(model_.log_prob(y, row(seed)), log_gamma);
    std::size_t found = 0;
    if (test == TestKind::Record) {
        for (std::size_t r = 0; r < rows_; ++r)
            if (in_band(model_.log_prob(y, row(r))))
                ++found;
        return found;
    }
    for (std::size_t p = 0; p + 1 < ranges_.size(); ++p) {
        if (participant_[ranges_[p]] == participant_[seed])
            continue;
        for (std::size_t r = ranges_[p]; r < ranges_[p + 1]; ++r)
            if (in_band(model_.log_prob(y, row(r)))) {
                ++found;
                break;
            }
    }
    return found;
}

} // namespace gazepriv::core::pd
