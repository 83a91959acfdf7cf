// Dataset releases of feature signals: release_series, release_series_cost, series_sensitivities,
// exponential_dp and exponential_dp_cost. Each body reads its arguments, checks them (before any row
// is read), reads the source with SPI (series_source.cpp), runs the core in a helper whose C++
// objects are gone when it returns, and only then builds the result rows.
//
// Budget: the full cost of a release is computed by the core (SeriesPlan / ExponentialDpPlan) before
// any noise is drawn; the *_cost functions return it, and with a dataset the release charges it there
// first (run_series, run_exponential_dp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/json.hpp"
#include "core/common/validate.hpp"
#include "core/series/exponential_dp.hpp"
#include "core/series/series_release.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/release_cost.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/limits.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/series/series_source.hpp"

extern "C" {
#include "postgres.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type_d.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

// The arguments shared by the dataset functions, as plain data.
struct DatasetArgs {
    Oid source;
    const char* participant_column;
    const char* method; // release_series: lpa | fpa | cfpa | dcfpa; exponential_dp: the variant
    double epsilon;
    int32 k;     // 0: NULL (the public rule)
    int32 chunk; // release_series only
    const char* sensitivity;
    const char* chunk_semantics; // release_series only
    const char* dataset;         // nullptr: charge nothing
    const double* bounds;        // nullptr: NULL
    std::size_t bound_rows, bound_columns;
    int32 length;                 // 0: NULL (the longest signal)
    Datum recordings;             // release_series: a text[] of the recordings to release, or 0 (all)
    bool clamp;                   // release_series: clamp released values into the bounds (post-processing)
    double k_share, bounds_share; // release_series: shares of epsilon for private selection, 0: none
};

// An optional int4 argument that must be >= 1 when given; 0 when NULL.
int32 optional_positive(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_ARGISNULL(i))
        return 0;
    const int32 v = PG_GETARG_INT32(i);
    if (v < 1)
        throw core::InvalidArgument(std::string(name) + " must be at least 1 (or NULL), got " +
                                    std::to_string(v));
    return v;
}

// An optional share of epsilon, in (0, 1) when given; 0 when NULL.
double optional_share(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_NARGS() <= i || PG_ARGISNULL(i))
        return 0;
    const double v = PG_GETARG_FLOAT8(i);
    if (!(v > 0 && v < 1))
        throw core::InvalidArgument(std::string(name) + " must be in (0, 1) (or NULL for none), got " +
                                    core::format_number(v));
    return v;
}

// bounds float8[]: ARRAY[lo, hi] or ARRAY[[lo, hi], ...]; NULL leaves args->bounds empty.
void read_bounds(FunctionCallInfo fcinfo, int i, DatasetArgs* args) {
    args->bounds = nullptr;
    args->bound_rows = args->bound_columns = 0;
    if (PG_ARGISNULL(i))
        return;
    ArrayType* a = PG_GETARG_ARRAYTYPE_P(i);
    if (ARR_HASNULL(a))
        throw core::InvalidArgument("bounds must not contain NULL elements");
    if (ARR_NDIM(a) == 1) {
        args->bound_rows = 1;
        args->bound_columns = static_cast<std::size_t>(ARR_DIMS(a)[0]);
    } else if (ARR_NDIM(a) == 2) {
        args->bound_rows = static_cast<std::size_t>(ARR_DIMS(a)[0]);
        args->bound_columns = static_cast<std::size_t>(ARR_DIMS(a)[1]);
    }
    args->bounds = reinterpret_cast<const double*>(ARR_DATA_PTR(a));
}

std::vector<core::FeatureBounds> bounds_of(const DatasetArgs& args) {
    if (args.bounds == nullptr)
        return {};
    return core::parse_bounds(args.bounds, args.bound_rows, args.bound_columns);
}

// The public padded length, before anything is read or allocated.
int32 require_length_limit(int32 length) {
    core::require_within_limit("length", static_cast<std::uint64_t>(length), "gazepriv.max_series_length",
                               pg::max_series_length());
    return length;
}

core::SeriesReleaseConfig series_config(const DatasetArgs& args) {
    core::SeriesReleaseConfig config;
    config.method = core::parse_series_method(args.method);
    config.epsilon = args.epsilon;
    config.k = static_cast<std::size_t>(args.k);
    config.chunk = static_cast<std::size_t>(args.chunk < 0 ? 0 : args.chunk); // checked for cfpa and dcfpa
    config.sensitivity = core::parse_sensitivity_mode(args.sensitivity);
    config.bounds = bounds_of(args);
    config.length = static_cast<std::size_t>(require_length_limit(args.length));
    config.semantics = core::parse_chunk_semantics(args.chunk_semantics);
    config.clamp = args.clamp;
    config.k_share = args.k_share;
    config.bounds_share = args.bounds_share;
    config.max_values = static_cast<std::uint64_t>(pg::max_series_values());
    core::check_series_release_config(config);
    return config;
}

core::ExponentialDpConfig exponential_config(const DatasetArgs& args) {
    core::ExponentialDpConfig config;
    config.epsilon = args.epsilon;
    config.variant = core::parse_exponential_dp_variant(args.method);
    config.sensitivity = core::parse_sensitivity_mode(args.sensitivity);
    config.bounds = bounds_of(args);
    config.length = static_cast<std::size_t>(require_length_limit(args.length));
    config.max_values = static_cast<std::uint64_t>(pg::max_series_values());
    core::check_exponential_dp_config(config);
    return config;
}

// ---------------------------------------------------------------------------------------------------
// Results as plain palloc'd data.

struct Signals {
    std::size_t count;
    int32* participant;
    int32* recording;
    int32* feature;
    ArrayType** series;
    char* selection; // what was chosen privately (json), or nullptr
};

// The shared cost record, and the two epsilons only the series report.
struct CostRow {
    pg::Charge charge;
    double paper_epsilon, participant_epsilon;
};

template <typename T> T* allocate_array(std::size_t n) {
    return static_cast<T*>(pg::palloc_or_throw(sizeof(T) * (n == 0 ? 1 : n)));
}

void copy_cost(const core::ReleaseCost& cost, double paper_epsilon, double participant_epsilon,
               CostRow* out) {
    out->charge = pg::charge_from_cost(nullptr, cost);
    out->paper_epsilon = paper_epsilon;
    out->participant_epsilon = participant_epsilon;
}

// Signal storage inside new float8[] results, so that the release is written where the rows will
// read it (no second copy of the data).
struct ResultArrays {
    std::vector<std::vector<ArrayType*>> arrays; // [group][feature * participants + p]

    core::SignalStorage storage() {
        return [this](std::size_t g, std::size_t slot, std::size_t length) -> double* {
            if (arrays.size() <= g)
                arrays.resize(g + 1);
            if (arrays[g].size() <= slot)
                arrays[g].resize(slot + 1, nullptr);
            arrays[g][slot] = pg::new_float8_array(length);
            return pg::float8_data(arrays[g][slot]);
        };
    }

    // One result row per group, participant and feature, in that order.
    void collect(const core::SeriesDataset& data, Signals* out) const {
        std::size_t count = 0;
        for (std::size_t g = 0; g < data.groups.size(); ++g) {
            count += data.groups[g].participants.size() * data.features;
            if (g >= arrays.size() || arrays[g].size() != data.groups[g].signals.size())
                throw core::InternalError("released signals are not in the result arrays");
        }
        out->count = count;
        out->participant = allocate_array<int32>(count);
        out->recording = allocate_array<int32>(count);
        out->feature = allocate_array<int32>(count);
        out->series = allocate_array<ArrayType*>(count);
        std::size_t i = 0;
        for (std::size_t g = 0; g < data.groups.size(); ++g) {
            const core::SignalGroup& group = data.groups[g];
            for (std::size_t p = 0; p < group.participants.size(); ++p) {
                for (std::size_t f = 0; f < data.features; ++f, ++i) {
                    out->participant[i] = static_cast<int32>(group.participants[p]);
                    out->recording[i] = static_cast<int32>(group.recording);
                    out->feature[i] = static_cast<int32>(f);
                    out->series[i] = arrays[g][f * group.participants.size() + p];
                }
            }
        }
    }
};

// What a release chose privately, as json: bounds per feature, k per recording (rows) and feature.
std::string selection_json(const core::PreparedSeries& prepared) {
    core::JsonObject json;
    if (!prepared.selection.bounds.empty()) {
        std::vector<std::string> pairs;
        for (const core::FeatureBounds& b : prepared.selection.bounds)
            pairs.push_back(core::json_array(std::vector<double>{b.lo, b.hi}));
        json.add_raw("bounds", core::json_array(pairs));
    }
    if (!prepared.selection.k.empty()) {
        std::vector<std::string> rows;
        const std::size_t features = prepared.data.features;
        for (std::size_t g = 0; g < prepared.data.groups.size(); ++g)
            rows.push_back(core::json_array(
                std::vector<std::size_t>(prepared.selection.k.begin() + g * features,
                                         prepared.selection.k.begin() + (g + 1) * features)));
        json.add_raw("k", core::json_array(rows));
    }
    return json.str();
}

// The core work of release_series and release_series_cost.
void run_series(const DatasetArgs& args, const pg::SeriesSource& source, bool release, Signals* signals,
                CostRow* cost) {
    const core::SeriesReleaseConfig config = series_config(args);
    const core::CancelCheck cancel(pg::interrupt_pending);
    ResultArrays results;
    core::PreparedSeries prepared =
        core::prepare_series_release(source.rows, config, cancel, release ? results.storage() : nullptr);
    copy_cost(prepared.plan.cost, prepared.plan.paper_epsilon, prepared.plan.participant_epsilon, cost);
    if (!release)
        return;
    if (args.dataset != nullptr) // before any noise is drawn
        pg::charge_release(args.dataset, prepared.plan.cost);
    core::release_series(prepared, config, pg::backend_rng(), cancel);
    results.collect(prepared.data, signals);
    signals->selection = nullptr;
    if (config.k_share + config.bounds_share != 0) {
        const std::string note = selection_json(prepared);
        signals->selection = static_cast<char*>(pg::palloc_or_throw(note.size() + 1));
        std::memcpy(signals->selection, note.c_str(), note.size() + 1);
    }
}

void run_exponential_dp(const DatasetArgs& args, const pg::SeriesSource& source, bool release,
                        Signals* signals, CostRow* cost) {
    const core::ExponentialDpConfig config = exponential_config(args);
    const core::CancelCheck cancel(pg::interrupt_pending);
    ResultArrays results;
    core::PreparedExponentialDp prepared =
        core::prepare_exponential_dp(source.rows, config, cancel, release ? results.storage() : nullptr);
    const double participant =
        config.variant == core::ExponentialDpVariant::Laplace ? prepared.plan.cost.epsilon : NAN;
    copy_cost(prepared.plan.cost, prepared.plan.paper_epsilon, participant, cost);
    if (!release)
        return;
    if (args.dataset != nullptr) { // before any noise is drawn
        if (config.variant != core::ExponentialDpVariant::Laplace)
            throw core::InvalidArgument(
                "the paper-literal exponential_dp has no DP proof, so it cannot be charged to a "
                "privacy budget; use variant => 'laplace'");
        pg::charge_release(args.dataset, prepared.plan.cost);
    }
    core::release_exponential_dp(prepared, config, pg::backend_rng(), cancel);
    results.collect(prepared.data, signals);
}

// ---------------------------------------------------------------------------------------------------
// Emitting rows (PostgreSQL calls only; no C++ object is alive).

Datum key_text(const char* const* names, int32 id) {
    return PointerGetDatum(cstring_to_text(names[id]));
}

Datum feature_text(const pg::SeriesSource& source, int32 feature) {
    if (source.feature_names != nullptr)
        return PointerGetDatum(cstring_to_text(source.feature_names[feature]));
    char index[16];
    snprintf(index, sizeof index, "%d", feature + 1);
    return PointerGetDatum(cstring_to_text(index));
}

void emit_signals(FunctionCallInfo fcinfo, const pg::SeriesSource& source, const Signals& signals) {
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < signals.count; ++i) {
        CHECK_FOR_INTERRUPTS();
        Datum values[4] = {key_text(source.rows.participant_names, signals.participant[i]),
                           source.has_recording ? key_text(source.rows.recording_names, signals.recording[i])
                                                : 0,
                           feature_text(source, signals.feature[i]), PointerGetDatum(signals.series[i])};
        bool nulls[4] = {false, !source.has_recording, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
}

void emit_cost(FunctionCallInfo fcinfo, const CostRow& cost) {
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    // The shared columns, then paper_epsilon and participant_epsilon, then total_epsilon and total_delta:
    // the names of epsilon and delta before the cost record was shared, kept for their users.
    constexpr int kShared = pg::kReleaseCostColumns;
    Datum values[kShared + 4];
    bool nulls[kShared + 4] = {};
    pg::release_cost_columns(cost.charge, values, nulls);
    values[kShared] = Float8GetDatum(cost.paper_epsilon);
    nulls[kShared + 1] = std::isnan(cost.participant_epsilon);
    values[kShared + 1] = Float8GetDatum(cost.participant_epsilon);
    values[kShared + 2] = Float8GetDatum(cost.charge.epsilon);
    values[kShared + 3] = Float8GetDatum(cost.charge.delta);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

// release_series(source, method, epsilon, k, chunk, sensitivity, bounds, length, chunk_semantics,
// participant_column); release_series_cost takes the same arguments.
void read_series_args(FunctionCallInfo fcinfo, DatasetArgs* args) {
    const char* names[] = {"source",      "method", "epsilon", nullptr,           "chunk",
                           "sensitivity", nullptr,  nullptr,   "chunk_semantics", "participant_column"};
    for (int i = 0; i < 10; ++i)
        if (names[i] != nullptr)
            pg::require_not_null(fcinfo, i, names[i]);
    args->source = PG_GETARG_OID(0);
    args->method = pg::text_arg(fcinfo, 1);
    args->epsilon = PG_GETARG_FLOAT8(2);
    args->k = optional_positive(fcinfo, 3, "k");
    args->chunk = PG_GETARG_INT32(4);
    args->sensitivity = pg::text_arg(fcinfo, 5);
    read_bounds(fcinfo, 6, args);
    args->length = optional_positive(fcinfo, 7, "length");
    args->chunk_semantics = pg::text_arg(fcinfo, 8);
    args->participant_column = NameStr(*PG_GETARG_NAME(9));
    args->dataset = PG_NARGS() > 10 && !PG_ARGISNULL(10) ? pg::text_arg(fcinfo, 10) : nullptr;
    args->recordings = PG_NARGS() > 11 && !PG_ARGISNULL(11) ? PG_GETARG_DATUM(11) : 0;
    if (PG_NARGS() > 12)
        pg::require_not_null(fcinfo, 12, "clamp");
    args->clamp = PG_NARGS() > 12 ? PG_GETARG_BOOL(12) : true;
    args->k_share = optional_share(fcinfo, 13, "k_share");
    args->bounds_share = optional_share(fcinfo, 14, "bounds_share");
}

// exponential_dp(source, epsilon, variant, sensitivity, bounds, length, participant_column).
void read_exponential_args(FunctionCallInfo fcinfo, DatasetArgs* args) {
    const char* names[] = {"source", "epsilon", "variant",           "sensitivity",
                           nullptr,  nullptr,   "participant_column"};
    for (int i = 0; i < 7; ++i)
        if (names[i] != nullptr)
            pg::require_not_null(fcinfo, i, names[i]);
    args->source = PG_GETARG_OID(0);
    args->epsilon = PG_GETARG_FLOAT8(1);
    args->method = pg::text_arg(fcinfo, 2);
    args->sensitivity = pg::text_arg(fcinfo, 3);
    read_bounds(fcinfo, 4, args);
    args->length = optional_positive(fcinfo, 5, "length");
    args->participant_column = NameStr(*PG_GETARG_NAME(6));
    args->k = args->chunk = 0;
    args->chunk_semantics = "participant";
    args->dataset = PG_NARGS() > 7 && !PG_ARGISNULL(7) ? pg::text_arg(fcinfo, 7) : nullptr;
    args->recordings = 0;
}

void check_series_args(const DatasetArgs& args) {
    series_config(args); // throws for bad parameters, before any row is read
}

enum class Kind { Series, ExponentialDp };

// The four dataset functions: read and check the arguments, read the source, then release (rows of
// signals) or preview (one row of cost).
Datum dataset_function(FunctionCallInfo fcinfo, Kind kind, bool release) {
    DatasetArgs args{};
    if (kind == Kind::Series) {
        read_series_args(fcinfo, &args);
        check_series_args(args);
    } else {
        read_exponential_args(fcinfo, &args);
        exponential_config(args); // throws for bad parameters, before any row is read
    }
    pg::SeriesSource source;
    pg::read_series_source(args.source, args.participant_column, &source, args.recordings);
    Signals signals{};
    CostRow cost;
    if (kind == Kind::Series)
        run_series(args, source, release, &signals, &cost);
    else
        run_exponential_dp(args, source, release, &signals, &cost);
    if (release && kind == Kind::Series && signals.selection != nullptr)
        ereport(NOTICE, (errmsg("release_series chose privately: %s", signals.selection)));
    if (release)
        emit_signals(fcinfo, source, signals);
    else
        emit_cost(fcinfo, cost);
    return static_cast<Datum>(0);
}

} // namespace

GAZEPRIV_FUNCTION(release_series) {
    return dataset_function(fcinfo, Kind::Series, true);
}

GAZEPRIV_FUNCTION(release_series_cost) {
    return dataset_function(fcinfo, Kind::Series, false);
}

GAZEPRIV_FUNCTION(exponential_dp) {
    return dataset_function(fcinfo, Kind::ExponentialDp, true);
}

GAZEPRIV_FUNCTION(exponential_dp_cost) {
    return dataset_function(fcinfo, Kind::ExponentialDp, false);
}

namespace {

// The arguments (method, epsilon, k, chunk, bounds, length) that series_public_cost and series_accuracy
// share: a strict release (clipped sensitivity, participant-level accounting) of a public shape.
DatasetArgs public_shape_args(FunctionCallInfo fcinfo) {
    DatasetArgs args{};
    args.method = pg::text_arg(fcinfo, 0);
    args.epsilon = PG_GETARG_FLOAT8(1);
    args.k = optional_positive(fcinfo, 2, "k");
    args.chunk = PG_GETARG_INT32(3);
    args.sensitivity = "clipped";
    read_bounds(fcinfo, 4, &args);
    args.length = optional_positive(fcinfo, 5, "length");
    args.chunk_semantics = "participant";
    if (args.bound_columns != 2 || args.bound_rows < 1)
        throw core::InvalidArgument("bounds must hold one [lower, upper] row per feature");
    return args;
}

} // namespace

// series_public_cost(method, epsilon, k, chunk, bounds, length, recordings): what release_series costs on any
// data of a public shape (that many recordings per participant, signals of the public length, one feature per
// row of bounds), computed by the same plan over one participant of zeros: the cost of an analyst's release
// from its policy, before any row is read.
GAZEPRIV_FUNCTION(series_public_cost) {
    pg::require_not_null(fcinfo, {"method", "epsilon", nullptr, "chunk", "bounds", "length", "recordings"});
    DatasetArgs args = public_shape_args(fcinfo);
    const int32 recordings = optional_positive(fcinfo, 6, "recordings");
    check_series_args(args);
    const std::size_t features = args.bound_rows;
    const std::size_t rows = static_cast<std::size_t>(recordings);
    // The public shape's values, before its rows of zeros are allocated.
    core::require_within_limit("the number of padded series values (features x recordings x length)",
                               core::saturating_product(core::saturating_product(features, rows),
                                                        static_cast<std::uint64_t>(std::max(args.length, 1))),
                               "gazepriv.max_series_values", pg::max_series_values());
    pg::SeriesSource source{};
    core::SeriesRows& r = source.rows;
    r.count = rows;
    r.width = features;
    auto* participant = allocate_array<int32>(rows);
    auto* recording = allocate_array<int32>(rows);
    auto* t = allocate_array<double>(rows);
    auto* values = allocate_array<double>(rows * features);
    for (std::size_t i = 0; i < rows; ++i) {
        participant[i] = 0;
        recording[i] = static_cast<int32>(i);
        t[i] = 0;
    }
    for (std::size_t i = 0; i < rows * features; ++i)
        values[i] = 0;
    r.participant = participant;
    r.recording = recording;
    r.t = t;
    r.values = values;
    r.participants = 1;
    r.recordings = rows;
    r.features = features;
    Signals signals{};
    CostRow cost;
    run_series(args, source, false, &signals, &cost);
    emit_cost(fcinfo, cost);
    return static_cast<Datum>(0);
}

// ---------------------------------------------------------------------------------------------------
// series_sensitivities(source, method, chunk, sensitivity, bounds, length, participant_column).

namespace {

struct SensitivityRows {
    std::size_t count;
    int32* recording;
    int32* feature;
    int32* chunk;
    int32* first;
    int32* samples;
    double* value;
};

void run_sensitivities(const DatasetArgs& args, const pg::SeriesSource& source, SensitivityRows* out) {
    const core::SeriesReleaseConfig config = series_config(args);
    const core::CancelCheck cancel(pg::interrupt_pending);
    const core::PreparedSeries prepared = core::prepare_series_release(source.rows, config, cancel);
    std::size_t count = 0;
    for (std::size_t g = 0; g < prepared.data.groups.size(); ++g)
        count += prepared.plan.chunks[g] * prepared.data.features;
    out->count = count;
    out->recording = allocate_array<int32>(count);
    out->feature = allocate_array<int32>(count);
    out->chunk = allocate_array<int32>(count);
    out->first = allocate_array<int32>(count);
    out->samples = allocate_array<int32>(count);
    out->value = allocate_array<double>(count);
    std::size_t i = 0;
    for (const core::SignalGroup& group : prepared.data.groups) {
        const std::size_t chunk = core::is_chunked(config.method) ? config.chunk : group.length;
        for (std::size_t f = 0; f < prepared.data.features; ++f) {
            const auto values = core::series_sensitivities(config, prepared.plan, group, f, cancel);
            for (std::size_t c = 0; c < values.size(); ++c, ++i) {
                out->recording[i] = static_cast<int32>(group.recording);
                out->feature[i] = static_cast<int32>(f);
                out->chunk[i] = static_cast<int32>(c + 1);
                out->first[i] = static_cast<int32>(c * chunk + 1);
                out->samples[i] = static_cast<int32>(std::min(chunk, group.length - c * chunk));
                out->value[i] = values[c];
            }
        }
    }
}

} // namespace

GAZEPRIV_FUNCTION(series_sensitivities) {
    const char* names[] = {
        "source", "method", "chunk", "sensitivity", nullptr, nullptr, "participant_column"};
    for (int i = 0; i < 7; ++i)
        if (names[i] != nullptr)
            pg::require_not_null(fcinfo, i, names[i]);
    DatasetArgs args{};
    args.source = PG_GETARG_OID(0);
    args.method = pg::text_arg(fcinfo, 1);
    args.epsilon = 1; // not used: sensitivities do not depend on it
    args.k = 0;
    args.chunk = PG_GETARG_INT32(2);
    args.sensitivity = pg::text_arg(fcinfo, 3);
    read_bounds(fcinfo, 4, &args);
    args.length = optional_positive(fcinfo, 5, "length");
    args.participant_column = NameStr(*PG_GETARG_NAME(6));
    args.chunk_semantics = "participant";
    check_series_args(args);
    pg::SeriesSource source;
    pg::read_series_source(args.source, args.participant_column, &source);
    SensitivityRows rows;
    run_sensitivities(args, source, &rows);

    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < rows.count; ++i) {
        Datum values[6] = {source.has_recording ? key_text(source.rows.recording_names, rows.recording[i])
                                                : 0,
                           feature_text(source, rows.feature[i]),
                           Int32GetDatum(rows.chunk[i]),
                           Int32GetDatum(rows.first[i]),
                           Int32GetDatum(rows.samples[i]),
                           Float8GetDatum(rows.value[i])};
        bool nulls[6] = {!source.has_recording, false, false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return static_cast<Datum>(0);
}

// ---------------------------------------------------------------------------------------------------
// series_accuracy(method, epsilon, k, chunk, bounds, length, confidence, k_share, bounds_share): per feature,
// the noise of a strict release of that public shape (core::series_accuracy). Reads no data.

namespace {

struct AccuracyRows {
    std::size_t count;
    double* noise_sd;
    double* half_width;
    bool* exact;
};

void run_series_accuracy(const DatasetArgs& args, double confidence, AccuracyRows* out) {
    const core::SeriesReleaseConfig config = series_config(args);
    const std::vector<core::FeatureBounds> bounds = bounds_of(args);
    out->count = bounds.size();
    out->noise_sd = allocate_array<double>(bounds.size());
    out->half_width = allocate_array<double>(bounds.size());
    out->exact = allocate_array<bool>(bounds.size());
    for (std::size_t f = 0; f < bounds.size(); ++f) {
        const core::SeriesAccuracy a =
            core::series_accuracy(config, bounds[f], static_cast<std::size_t>(args.length), confidence);
        out->noise_sd[f] = a.noise_sd;
        out->half_width[f] = a.half_width;
        out->exact[f] = a.exact;
    }
}

} // namespace

GAZEPRIV_FUNCTION(series_accuracy) {
    pg::require_not_null(fcinfo, {"method", "epsilon", nullptr, "chunk", "bounds", "length", "confidence"});
    DatasetArgs args = public_shape_args(fcinfo);
    const double confidence = PG_GETARG_FLOAT8(6);
    args.k_share = optional_share(fcinfo, 7, "k_share");
    args.bounds_share = optional_share(fcinfo, 8, "bounds_share");
    AccuracyRows rows;
    run_series_accuracy(args, confidence, &rows);

    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t f = 0; f < rows.count; ++f) {
        Datum values[4] = {Int32GetDatum(static_cast<int32>(f + 1)), Float8GetDatum(rows.noise_sd[f]),
                           Float8GetDatum(rows.half_width[f]), BoolGetDatum(rows.exact[f])};
        bool nulls[4] = {false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return static_cast<Datum>(0);
}
