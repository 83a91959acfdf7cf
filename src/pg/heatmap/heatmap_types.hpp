// The composite types gazepriv.heatmap_spec and gazepriv.heatmap, read into plain structs and built from
// them. Reading and building call PostgreSQL (and may raise
// its errors); converting to core types is pure C++ (and may throw). Keep the two apart in bodies.
#pragma once

#include <cstdint>

#include "core/heatmap/heatmap_spec.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "access/htup.h"
#include "utils/array.h"
}

namespace gazepriv::pg {

// The fields of a heatmap_spec, or the arguments of heatmap_spec(). Strings are palloc'd or static;
// nullptr means NULL. Numbers that are NULL carry a *_null flag. The initialisers are the defaults of every
// optional field, for heatmap_spec()'s omitted arguments and for NULL fields of a composite alike.
struct SpecFields {
    std::int64_t width = 0, height = 0, cap = 1, cell_size = 1, observers = 0;
    bool width_null = false, height_null = false, epsilon_null = false, observers_null = true;
    double epsilon = 0, delta = 1e-5, blur_sigma = 0;
    const char* mechanism = "gaussian";
    const char* calibration = "analytic";
    const char* dataset = nullptr;
};

// Reads a heatmap_spec composite (NULL fields other than width, height and epsilon take the documented
// defaults).
void read_spec_fields(HeapTupleHeader tuple, SpecFields* fields);
// Validates (InvalidArgument naming the field) against the current gazepriv.max_heatmap_cells.
core::HeatmapSpec spec_from_fields(const SpecFields& fields);
// Builds a heatmap_spec composite for the calling function's result type.
Datum spec_datum(FunctionCallInfo fcinfo, const SpecFields& fields);

// The fields of a gazepriv.heatmap. Optional numbers are NaN when NULL; calibration nullptr when NULL.
struct HeatmapFields {
    std::int32_t width = 0, height = 0, cell_size = 1, columns = 0, rows = 0;
    ArrayType* values = nullptr;
    std::int64_t n = 0;
    std::int32_t cap = 1;
    const char* mechanism = "none";
    const char* calibration = nullptr;
    double epsilon, delta, rho, sigma, scale; // NaN = NULL
    double blur_sigma = 0;
    HeatmapFields();
};

// Reads a heatmap composite (the values array detoasted). Checks nothing.
void read_heatmap_fields(HeapTupleHeader tuple, HeatmapFields* fields);

// A validated view of a heatmap: the grid agrees with columns and rows, values has one non-NULL element
// per cell, n >= 1. Throws InvalidArgument naming `what`.
struct HeatmapView {
    core::GazeGrid grid;
    const double* values;
    std::size_t cells;
    std::int64_t n;
    std::int32_t cap;
    bool exact; // mechanism 'none': a noise-free capped map from gaze_map
    double blur_sigma;
};
HeatmapView heatmap_view(const HeatmapFields& fields, const char* what);

// Builds a heatmap composite for the calling function's result type.
Datum heatmap_datum(FunctionCallInfo fcinfo, const HeatmapFields& fields);

// A HeatmapFields for a new map on `grid` (values to be filled by the caller).
HeatmapFields heatmap_fields_for(const core::GazeGrid& grid, ArrayType* values);

} // namespace gazepriv::pg
