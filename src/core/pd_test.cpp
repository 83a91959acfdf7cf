#include "core/pd_test.hpp"

#include <string>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/errors.hpp"

namespace gazepriv::core::pd {

double band_index(double log_p, double log_gamma) {
    if (log_p == kNoBand || !(log_gamma > 0))
        return std::nan("");
    return std::floor(-log_p / log_gamma);
}

BandMatcher::BandMatcher(double seed_log_p, double log_gamma)
    : seed_log_p_(seed_log_p), log_gamma_(log_gamma), band_(band_index(seed_log_p, log_gamma)) {}

std::uint64_t mismatch_mask(const std::uint8_t* a, const std::uint8_t* b, std::size_t stride) {
    std::uint64_t mask = 0;
#if defined(__SSE2__)
    for (std::size_t c = 0; c < stride; c += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + c));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + c));
        const unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
        mask |= static_cast<std::uint64_t>(~equal & 0xFFFFu) << c;
    }
#else
    for (std::size_t j = 0; j < stride; ++j)
        if (a[j] != b[j])
            mask |= std::uint64_t{1} << j;
#endif
    return mask;
}

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
    if (model.seedless() || model.resample() != Resample::Last)
        return;
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

std::size_t SeedIndex::scan_random(CandidateScorer& scorer, const std::uint8_t* y, std::size_t seed,
                                   TestKind test, double log_gamma, std::size_t need,
                                   const CancelCheck& cancel) const {
    if (need == 0)
        return 0;
    scorer.set_candidate(y);
    const std::size_t omega = model_.omega();
    // The seed's probability through the same memoised formula as every other record's, so that the seed
    // and records with its mask get bit-identical log-probabilities.
    const BandMatcher in_band(scorer.log_prob_for_mask(mismatch_mask(y, row(seed), stride_)), log_gamma);
    std::size_t found = 0;
    if (test == TestKind::Record) {
        for (std::size_t r = 0; r < rows_; ++r) {
            cancel.poll(r);
            const std::uint64_t mask = mismatch_mask(y, row(r), stride_);
            if (static_cast<std::size_t>(__builtin_popcountll(mask)) > omega)
                continue; // Pr = 0: more features differ than were resampled
            if (in_band(scorer.log_prob_for_mask(mask)) && ++found >= need)
                break;
        }
        return found;
    }
    const std::int32_t own = participant_[seed];
    for (std::size_t p = 0; p + 1 < ranges_.size(); ++p) {
        cancel.poll(p);
        if (participant_[ranges_[p]] == own)
            continue;
        for (std::size_t r = ranges_[p]; r < ranges_[p + 1]; ++r) {
            const std::uint64_t mask = mismatch_mask(y, row(r), stride_);
            if (static_cast<std::size_t>(__builtin_popcountll(mask)) > omega)
                continue;
            if (in_band(scorer.log_prob_for_mask(mask))) {
                ++found; // this participant counts once
                break;
            }
        }
        if (found >= need)
            break;
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
