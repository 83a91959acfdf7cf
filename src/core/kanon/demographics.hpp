// k-anonymous generalisation of demographics (David-John, Butler, Jain, TVCG 2023 supplement section 1;
// doc/privacy/kanon.md §3): age becomes a range and gender either stays or becomes the merged value
// "M/F", so that every combination (equivalence class) has at least k rows.
//
// The model is the paper's (its Table 2): gender is kept for everyone or merged for everyone; age ranges
// are chosen separately for each kept gender (or once for the merged population) and are labelled by the
// smallest and largest age of the rows they hold. Among all such generalisations the chosen one
//   1. maximises the number of classes (the paper's criterion), then
//   2. minimises the information loss, the normalised certainty penalty summed over rows (Xu et al. 2006):
//      (largest - smallest age of the row's class) / (largest - smallest age of the population), plus 1 for
//      a merged gender (0 when the data has a single gender), then
//   3. keeps gender rather than merging it; remaining ties are broken deterministically (towards larger
//      later ranges).
// Ages per gender are cut optimally by dynamic programming over the sorted distinct ages (exact, O(m^2)
// for m distinct ages).
//
// The paper's Table 2 is reproduced at k = 6 and k = 15. At k = 8 the paper's ranges have as many classes
// as ours but a larger loss (276 vs 274 row-years); at k = 4 they have 5 classes where 6 exist
// ((M, 23-27) splits into (M, 23-24) and (M, 26-27)): the paper's table does not meet its own criterion
// there. apply_demographic_ranges releases any given ranges, e.g. the paper's, or public age bands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"

namespace gazepriv::core::kanon {

struct DemographicRows {
    std::size_t rows = 0;
    const char* const* participant = nullptr; // NUL-terminated, never null, distinct
    const char* const* gender = nullptr;      // NUL-terminated, never null
    const std::int32_t* age = nullptr;
};

struct DemographicClass {
    std::string gender;               // "F", "M", or the merged label ("M/F")
    std::vector<std::string> genders; // the original values it covers
    std::int32_t age_from;            // inclusive
    std::int32_t age_to;              // inclusive
    std::size_t rows;
};

struct Generalization {
    std::vector<DemographicClass> classes; // by gender label, then age
    std::vector<std::uint32_t> class_of_row;
    std::vector<std::size_t> row_order; // rows by class, then participant name (byte-wise)
    std::int64_t loss_row_years = 0;    // sum over rows of the class's age span
    bool gender_merged = false;
};

// Ages must lie in [-kMaxAge, kMaxAge] (keeps the loss arithmetic exact in 64 bits).
constexpr std::int32_t kMaxAge = 1000000;

// The optimal generalisation described above. InvalidArgument for k < 2, no rows, k above the number of
// rows, duplicate participants or ages out of range; LimitExceeded above 20,000 distinct ages.
Generalization generalize_demographics(const DemographicRows& input, int k, const CancelCheck& cancel);

// Releases given ranges, each "<gender>:<from>-<to>" or "<gender>:<age>", where <gender> is a value or
// values joined by '/' ("M/F:32-52"). Ranges of one gender must not overlap, every row must fall in one,
// and every range that holds rows must hold at least k (InvalidArgument otherwise, naming the range).
// Ranges holding no row are left out of the result. The labels keep the given bounds.
Generalization apply_demographic_ranges(const DemographicRows& input, int k,
                                        const std::vector<std::string>& ranges, const CancelCheck& cancel);

} // namespace gazepriv::core::kanon

#include "core/common/no_postgres.hpp"
