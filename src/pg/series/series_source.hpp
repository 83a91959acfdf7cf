// Reads a relation of feature signals for the dataset releases (release_series, exponential_dp).
//
// Accepted shapes, by column name:
//  - feature arrays: <participant_column>, [recording | task], t | window, features (a numeric array,
//    one element per feature), as the canonical feature-window table (participant, task, window, features);
//  - long form: <participant_column>, [recording | task], feature, t | window, value.
// Any column type that casts to text (keys), float8 (t, value) or float8[] (features) works. Rows whose
// participant, recording, feature or t is NULL (or t not finite) cannot be placed and are dropped; NULL
// values and array elements are missing values (see core/series/series_dataset.hpp). Errors are raised with
// ereport: call this with no C++ object alive.
#pragma once

#include "core/series/series_dataset.hpp"

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

struct SeriesSource {
    core::SeriesRows rows;            // pointers into palloc'd memory
    const char* const* feature_names; // long form: the feature keys; nullptr for arrays (1-based indices)
    bool has_recording;               // false: one unnamed recording (results show NULL)
};

// Reads the relation with the caller's privileges (SELECT on it is required). only (a text[] datum, or 0):
// only the rows of these recordings (the relation must have a recording or task column).
void read_series_source(Oid relation, const char* participant_column, SeriesSource* out, Datum only = 0);

} // namespace gazepriv::pg
