// What k-anonymity releases record in the privacy ledger. They are not differentially private and spend no
// epsilon or delta: the ledger keeps them (guarantee "k-anonymity", with k) so that every release of a
// dataset is accounted for. Computed from the parameters alone, before any data is read.
#pragma once

#include <string>
#include <vector>

#include "core/common/release_cost.hpp"

namespace gazepriv::core::kanon {

// k-same-select sequence: the grouping is random, so no choice depends on the data. class_column may be
// null; across_tasks: one grouping for all tasks (Grouping::AcrossTasks, the default), else one per task
// (the paper's variant), named in the parameters' "grouping". Validates k (>= 2).
ReleaseCost k_same_select_cost(int k, const char* class_column, bool across_tasks, const char* source);

// Demographic generalisation (mechanism "generalize_demographics" or "generalize_demographics_ranges" for
// the mapping alone). Ranges optimised on the data are a data-dependent (non-private) choice; given ranges
// (public bands, or the paper's) are not. Validates k (>= 2).
ReleaseCost generalize_demographics_cost(const char* mechanism, int k, const char* gender_column,
                                         const char* age_column, const std::vector<std::string>* ranges,
                                         const char* source);

} // namespace gazepriv::core::kanon

#include "core/common/no_postgres.hpp"
