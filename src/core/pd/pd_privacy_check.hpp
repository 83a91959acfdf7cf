// The (k, gamma) plausible-deniability privacy tests (Bindschaedler et al. 2017, Privacy
// Tests 1-2; ETRA 2022 supplement §1; doc/privacy/pd.md §2-3), in log space.
//
// Band: the unique integer i with gamma^(-i-1) < p <= gamma^(-i), i.e. i = floor(-ln p / ln gamma), any
// integer (densities above 1 give negative bands); p = 0 has no band and never matches. Two records in one
// band have probabilities within a factor gamma of each other, which is all (k, gamma)-PD asks.
//  * Record test (Privacy Test 1): k' = records d_a of the task (the seed included) whose Pr{y = M(d_a)} is
//    in the seed's band; pass iff k' >= k.
//  * Identity test (supplement of David-John et al. 2023, PD Event Privacy Test): k' = participants other
//    than the seed's with at least one record in the band, each counted once; pass iff k' >= k - 1.
//  * Randomized test (Privacy Test 2): the record test against the threshold k + Z with Z fresh discrete
//    Laplace noise of scale 1 / epsilon0 per candidate (pd_cost.hpp has its (epsilon, delta)).
// gamma = 1 is allowed with its limiting meaning: plausible seeds have exactly the seed's probability.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/common/cancel.hpp"
#include "core/pd/pd_model.hpp"

namespace gazepriv::core::pd {

enum class TestKind { Record, Identity };
TestKind parse_test_kind(const std::string& name); // "record", "identity"
const char* to_string(TestKind kind);

// floor(-log_p / log_gamma) (an integer held in a double); NaN for log_p = -inf (no band) or log_gamma = 0.
double band_index(double log_p, double log_gamma);

// Whether a log-probability lies in the seed's band; log_gamma = 0 (gamma = 1) means equal log-probability.
class BandMatcher {
public:
    BandMatcher(double seed_log_p, double log_gamma);
    bool operator()(double log_p) const {
        if (log_p == kNoBand)
            return false;
        return log_gamma_ > 0 ? std::floor(-log_p / log_gamma_) == band_ : log_p == seed_log_p_;
    }

private:
    double seed_log_p_;
    double log_gamma_;
    double band_;
};

// The seed records of one task, prepared for counting the plausible seeds of candidates.
class SeedIndex {
public:
    // codes: rows x stride bytes, rows sorted by participant; participant: dense id per row. Keeps pointers:
    // the arrays and the model must outlive the index.
    SeedIndex(const Model& model, const std::uint8_t* codes, std::size_t stride,
              const std::int32_t* participant, std::size_t rows);

    std::size_t rows() const { return rows_; }
    std::size_t stride() const { return stride_; }
    const std::uint8_t* row(std::size_t r) const { return codes_ + r * stride_; }
    std::int32_t participant(std::size_t r) const { return participant_[r]; }
    std::size_t participants() const { return ranges_.size() - 1; }

    // True when every candidate generated from one seed has the same k' (seedless models and
    // Resample::Last): a deterministic test that fails once fails for every candidate of that seed.
    bool count_fixed_per_seed() const { return model_.seedless() || model_.resample() == Resample::Last; }

    // k' of candidate y generated from seed row `seed` (see the header comment). Counting may stop once
    // `need` are found: the result is k' when k' < need and at least need otherwise. y is padded with zeros
    // to the stride. O(1) for seedless models and Resample::Last (precomputed per seed). Resample::Random
    // scans the task's distinct code rows (records with identical codes have identical probabilities: counted
    // once, with their multiplicity), 16 rows per step in a column-major layout, to find the rows that agree
    // with y on at least m - omega features (every other row has probability 0); only those are scored,
    // through the candidate's memo; the scan stops at `need`.
    std::size_t count(CandidateScorer& scorer, const std::uint8_t* y, std::size_t seed, TestKind test,
                      double log_gamma, std::size_t need, const CancelCheck& cancel) const;

    // The same k', computed the straightforward way: Model::log_prob for every record, the band by floor,
    // one record per participant for the identity test, no early exit. The reference for tests and benches.
    std::size_t count_straightforward(const std::uint8_t* y, std::size_t seed, TestKind test,
                                      double log_gamma) const;

private:
    void build_distinct_rows();
    std::size_t scan_random(CandidateScorer& scorer, const std::uint8_t* y, std::size_t seed, TestKind test,
                            double log_gamma, std::size_t need, const CancelCheck& cancel) const;

    const Model& model_;
    const std::uint8_t* codes_;
    std::size_t stride_;
    const std::int32_t* participant_;
    std::size_t rows_;
    std::vector<std::size_t> ranges_;       // runs of one participant: [ranges_[i], ranges_[i + 1])
    std::vector<std::uint32_t> key_rows_;   // Last: rows sharing this row's copied features
    std::vector<std::uint32_t> key_people_; // Last: participants with a row sharing them
    // Random: the distinct code rows of each participant (in participant order) with their multiplicity,
    // row-major (to compute a row's mask) and in blocks of 16 rows x features x 16 lanes (to test 16 rows
    // per step).
    std::vector<std::uint8_t> distinct_;
    std::vector<std::uint32_t> weight_;
    std::vector<std::int32_t> distinct_participant_;
    std::vector<std::uint8_t> blocks_;
    // Per candidate (generation stamps, so nothing is cleared): the participants already counted (identity
    // test), and for m <= 16 features the in-band decision of each mask of differing features.
    mutable std::vector<std::uint32_t> counted_;
    mutable std::vector<std::uint32_t> decided_;
    mutable std::vector<char> decision_;
    mutable std::uint32_t stamp_ = 0;
};

// Bit j set where a and b differ, over the first `stride` bytes (stride a multiple of 16, at most 64).
inline std::uint64_t mismatch_mask(const std::uint8_t* a, const std::uint8_t* b, std::size_t stride) {
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

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
