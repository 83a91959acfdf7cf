// The saccade C-VAE and event-synth-PD (core/pd/saccade_cvae.hpp, core/pd/event_synth.hpp) over a relation of
// events (participant, task and detect_events' columns):
//   fit_saccade_model(source, ...): trains a model on the source's saccades and returns it (curator-side).
//   event_synth_pd(source, model, k, gamma, sampling_rate_hz, ...): the synthetic sample streams.
// train_saccade_model and the model table are SQL (extension/install/70_pd.sql).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/json.hpp"
#include "core/common/validate.hpp"
#include "core/pd/event_synth.hpp"
#include "core/pd/saccade_cvae.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/limits.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/identity.hpp"
#include "pg/pd/pd_source.hpp"

extern "C" {
#include "postgres.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;
namespace pd = gazepriv::core::pd;

namespace {

enum Number { StartMs, EndMs, CentroidX, CentroidY, SigmaX, SigmaY, Amplitude, ProfileA, ProfileB, ProfileC };

pd::SaccadeShape shape_of(const pg::EventSource& src, std::size_t r) {
    return {src.number[Amplitude][r], src.number[EndMs][r] - src.number[StartMs][r], src.number[ProfileA][r],
            src.number[ProfileB][r], src.number[ProfileC][r]};
}

// ---- fit_saccade_model ----

struct FitResult {
    std::size_t training, validation;
    double validation_loss;
    double* epoch_loss;
    int epochs;
    std::uint8_t* blob;
    std::size_t blob_size;
    const char* parameters; // JSON
};

FitResult fit(const pg::EventSource& src, const pd::CvaeSettings& settings) {
    std::vector<pd::SaccadeShape> shapes;
    for (std::size_t r = 0; r < src.rows; ++r) {
        if (!src.saccade[r])
            continue;
        shapes.push_back(shape_of(src, r));
        pd::validate_saccade(shapes.back(), ("event " + std::to_string(src.event_index[r]) +
                                             " of participant " + src.participant[r])
                                                .c_str());
    }
    pd::TrainingReport report;
    const pd::SaccadeCvae model =
        pd::SaccadeCvae::train(shapes.data(), shapes.size(), settings, pg::backend_rng(),
                               core::CancelCheck(pg::interrupt_pending), report);
    const std::vector<std::uint8_t> bytes = model.serialize();
    FitResult out{};
    out.training = report.training;
    out.validation = report.validation;
    out.validation_loss = report.validation_loss;
    out.epochs = static_cast<int>(report.epoch_loss.size());
    out.epoch_loss =
        static_cast<double*>(pg::palloc_or_throw(sizeof(double) * (report.epoch_loss.size() + 1)));
    std::copy(report.epoch_loss.begin(), report.epoch_loss.end(), out.epoch_loss);
    out.blob_size = bytes.size();
    out.blob = static_cast<std::uint8_t*>(pg::palloc_or_throw(bytes.size()));
    std::memcpy(out.blob, bytes.data(), bytes.size());
    core::JsonObject json;
    json.add("profile_length", static_cast<std::int64_t>(settings.profile_length));
    json.add("encoder_hidden", static_cast<std::int64_t>(settings.encoder_hidden));
    json.add("latent", static_cast<std::int64_t>(settings.latent));
    json.add("decoder_hidden", static_cast<std::int64_t>(settings.decoder_hidden));
    json.add("learning_rate", settings.learning_rate);
    json.add("batch_size", static_cast<std::int64_t>(settings.batch_size));
    json.add("epochs", static_cast<std::int64_t>(settings.epochs));
    json.add("validation_share", settings.validation_share);
    json.add("training_saccades", report.training);
    json.add("validation_saccades", report.validation);
    const std::string text = json.str();
    char* copy = static_cast<char*>(pg::palloc_or_throw(text.size() + 1));
    std::memcpy(copy, text.c_str(), text.size() + 1);
    out.parameters = copy;
    return out;
}

std::size_t count_saccades(const pg::EventSource& src) {
    std::size_t n = 0;
    for (std::size_t r = 0; r < src.rows; ++r)
        n += src.saccade[r] ? 1 : 0;
    return n;
}

// ---- event_synth_pd ----

// The stored model's blob, read with the caller's rights (the table's row-level security shows curators
// their datasets' models only), and its dataset. 22023 for a model the caller cannot see.
struct StoredModel {
    bytea* blob;
    char* dataset;
};

StoredModel read_model(const char* name) {
    if (SPI_connect() != SPI_OK_CONNECT)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("SPI_connect failed")));
    const char* query =
        psprintf("SELECT model, dataset FROM %s.saccade_models WHERE name = $1", pg::catalog_schema());
    Oid types[1] = {TEXTOID};
    Datum values[1] = {CStringGetTextDatum(name)};
    if (SPI_execute_with_args(query, 1, types, values, nullptr, true, 1) != SPI_OK_SELECT)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("could not read saccade_models")));
    if (SPI_processed == 0)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("unknown saccade model \"%s\"", name),
                 errhint("train_saccade_model stores one; curators see their own datasets' models.")));
    bool isnull;
    const Datum blob = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    const Datum dataset = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
    StoredModel out;
    out.blob = reinterpret_cast<bytea*>(
        DatumGetPointer(SPI_datumTransfer(PointerGetDatum(PG_DETOAST_DATUM_COPY(blob)), false, -1)));
    out.dataset = static_cast<char*>(SPI_palloc(VARSIZE_ANY_EXHDR(DatumGetTextPP(dataset)) + 1));
    std::strcpy(out.dataset, TextDatumGetCString(dataset));
    SPI_finish();
    return out;
}

// The output sample limit is synthesize_samples' (gazepriv.max_synthesized_samples).
std::size_t max_samples() {
    const char* value = GetConfigOption("gazepriv.max_synthesized_samples", true, false);
    return value != nullptr ? static_cast<std::size_t>(std::strtoll(value, nullptr, 10)) : 10000000;
}

pd::EventSynthParams params_of(int k, double gamma, double rate, int max_attempts, bool include_failed) {
    pd::EventSynthParams p;
    p.k = k;
    p.gamma = gamma;
    p.sampling_rate_hz = rate;
    p.max_attempts = max_attempts;
    p.include_failed = include_failed;
    return p;
}

struct Rows {
    pd::SynthEventRows view;
    std::size_t participants;
};

Rows rows_of(const pg::EventSource& src) {
    Rows out{};
    pd::SynthEventRows& v = out.view;
    v.rows = src.rows;
    const std::int32_t* participant = pg::dense_ids(src.participant, src.rows);
    v.participant = participant;
    v.task = pg::dense_ids(src.task, src.rows);
    v.event_index = src.event_index;
    auto* type = static_cast<pd::SynthEventType*>(pg::palloc_or_throw(src.rows + 1));
    for (std::size_t r = 0; r < src.rows; ++r) {
        type[r] = src.saccade[r] ? pd::SynthEventType::Saccade : pd::SynthEventType::Fixation;
        out.participants =
            std::max<std::size_t>(out.participants, static_cast<std::size_t>(participant[r]) + 1);
    }
    v.type = type;
    v.start_ms = src.number[StartMs];
    v.end_ms = src.number[EndMs];
    v.centroid_x = src.number[CentroidX];
    v.centroid_y = src.number[CentroidY];
    v.sigma_x = src.number[SigmaX];
    v.sigma_y = src.number[SigmaY];
    v.amplitude = src.number[Amplitude];
    v.profile_a = src.number[ProfileA];
    v.profile_b = src.number[ProfileB];
    v.profile_c = src.number[ProfileC];
    return out;
}

// Built in a helper, so that no C++ object is alive when the charge may raise a PostgreSQL error.
pg::Charge cost_of(const pd::EventSynthParams& params, const char* model, const char* dataset) {
    return pg::charge_from_cost(dataset, pd::event_synth_cost(params, model));
}

struct SynthResult {
    std::size_t* source_row;
    std::int32_t* attempts;
    bool* passed;
    std::size_t* first;
    std::size_t* samples;
    double* t_ms;
    double* x;
    double* y;
    std::size_t count;
};

SynthResult run(const pd::SynthEventRows& rows, const bytea* blob, const pd::EventSynthParams& params,
                const bytea* secret) {
    const std::size_t capacity = pd::event_synth_capacity(rows, params.sampling_rate_hz, max_samples(),
                                                          "gazepriv.max_synthesized_samples");
    SynthResult r{};
    const std::size_t n = rows.rows + 1;
    r.source_row = static_cast<std::size_t*>(pg::palloc_or_throw(n * sizeof(std::size_t)));
    r.attempts = static_cast<std::int32_t*>(pg::palloc_or_throw(n * sizeof(std::int32_t)));
    r.passed = static_cast<bool*>(pg::palloc_or_throw(n * sizeof(bool)));
    r.first = static_cast<std::size_t*>(pg::palloc_or_throw(n * sizeof(std::size_t)));
    r.samples = static_cast<std::size_t*>(pg::palloc_or_throw(n * sizeof(std::size_t)));
    r.t_ms = static_cast<double*>(pg::palloc_or_throw((capacity + 1) * sizeof(double)));
    r.x = static_cast<double*>(pg::palloc_or_throw((capacity + 1) * sizeof(double)));
    r.y = static_cast<double*>(pg::palloc_or_throw((capacity + 1) * sizeof(double)));
    const pd::SaccadeCvae model = pd::SaccadeCvae::deserialize(
        reinterpret_cast<const std::uint8_t*>(VARDATA_ANY(blob)), VARSIZE_ANY_EXHDR(blob));
    pd::EventSynthOutput out{r.source_row, r.attempts, r.passed, r.first, r.samples, r.t_ms, r.x, r.y, 0};
    pd::synthesize_events(rows, model, params, pg::backend_rng(), core::CancelCheck(pg::interrupt_pending),
                          out);
    r.count = out.count;
    return r;
}

} // namespace

// fit_saccade_model(source regclass, profile_length, epochs, batch_size, learning_rate)
//   -> (parameters jsonb, training_saccades, validation_saccades, epoch_loss float8[], validation_loss,
//   model)
GAZEPRIV_FUNCTION(fit_saccade_model) {
    pg::require_not_null(fcinfo, {"source", "profile_length", "epochs", "batch_size", "learning_rate"});
    const Oid relation = PG_GETARG_OID(0);
    pd::CvaeSettings settings;
    settings.profile_length = PG_GETARG_INT32(1);
    settings.epochs = PG_GETARG_INT32(2);
    settings.batch_size = PG_GETARG_INT32(3);
    settings.learning_rate = PG_GETARG_FLOAT8(4);
    pd::validate(settings); // 22023 before any row is read
    const pg::EventSource src = pg::read_event_source(relation);
    const std::size_t saccades = count_saccades(src);
    core::require_within_limit("the source's saccades", saccades, "gazepriv.max_training_saccades",
                               pg::max_training_saccades());
    const FitResult r = fit(src, settings);

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    Datum* losses = static_cast<Datum*>(palloc(sizeof(Datum) * (r.epochs + 1)));
    for (int e = 0; e < r.epochs; ++e)
        losses[e] = Float8GetDatum(r.epoch_loss[e]);
    bytea* blob = static_cast<bytea*>(palloc(VARHDRSZ + r.blob_size));
    SET_VARSIZE(blob, VARHDRSZ + r.blob_size);
    std::memcpy(VARDATA(blob), r.blob, r.blob_size);
    Datum values[6] = {DirectFunctionCall1(jsonb_in, CStringGetDatum(r.parameters)),
                       Int32GetDatum(static_cast<int>(r.training)),
                       Int32GetDatum(static_cast<int>(r.validation)),
                       PointerGetDatum(construct_array(losses, r.epochs, FLOAT8OID, 8, FLOAT8PASSBYVAL, 'd')),
                       Float8GetDatum(r.validation_loss),
                       PointerGetDatum(blob)};
    bool nulls[6] = {};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return static_cast<Datum>(0);
}

// The stored blob's profile length; CorruptData (XX001) naming what is wrong. In a helper, so that the
// model is gone before the result is returned.
int checked_profile_length(const bytea* blob) {
    return pd::SaccadeCvae::deserialize(reinterpret_cast<const std::uint8_t*>(VARDATA_ANY(blob)),
                                        VARSIZE_ANY_EXHDR(blob))
        .profile_length();
}

// _check_saccade_model(model bytea) -> int: store_saccade_model refuses a blob that is not a model.
GAZEPRIV_FUNCTION(check_saccade_model) {
    pg::require_not_null(fcinfo, {"model"});
    PG_RETURN_INT32(checked_profile_length(PG_GETARG_BYTEA_PP(0)));
}

// event_synth_pd(source regclass, model text, k, gamma, sampling_rate_hz, max_attempts, include_failed,
// dataset)
//   -> (participant, task, event_index, type, passed, t_ms, x, y, attempts)
GAZEPRIV_FUNCTION(event_synth_pd) {
    pg::require_not_null(
        fcinfo, {"source", "model", "k", "gamma", "sampling_rate_hz", "max_attempts", "include_failed"});
    const Oid relation = PG_GETARG_OID(0);
    const char* model_name = pg::text_arg(fcinfo, 1);
    const pd::EventSynthParams params = params_of(PG_GETARG_INT32(2), PG_GETARG_FLOAT8(3),
                                                  PG_GETARG_FLOAT8(4), PG_GETARG_INT32(5), PG_GETARG_BOOL(6));
    const char* dataset = PG_ARGISNULL(7) ? nullptr : pg::text_arg(fcinfo, 7);
    const bytea* secret = PG_ARGISNULL(8) ? nullptr : PG_GETARG_BYTEA_PP(8);
    pd::validate(params); // 22023 before any row is read
    const StoredModel stored = read_model(model_name);
    if (dataset != nullptr && std::strcmp(dataset, stored.dataset) != 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("saccade model \"%s\" belongs to dataset \"%s\", not \"%s\"", model_name,
                               stored.dataset, dataset)));
    const pg::EventSource src = pg::read_event_source(relation);
    const Rows rows = rows_of(src);
    pd::validate_rows(rows.view, params, rows.participants);
    if (dataset != nullptr) {
        const pg::Charge charge = cost_of(params, model_name, dataset);
        pg::charge_own_release(charge);
    }
    const SynthResult r = run(rows.view, stored.blob, params, secret);

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    const MemoryContext row_context =
        AllocSetContextCreate(CurrentMemoryContext, "gazepriv event synth", ALLOCSET_SMALL_SIZES);
    const Datum fixation = CStringGetTextDatum("fixation"), saccade = CStringGetTextDatum("saccade");
    for (std::size_t e = 0; e < r.count; ++e) {
        CHECK_FOR_INTERRUPTS();
        const MemoryContext previous = MemoryContextSwitchTo(row_context);
        const std::size_t s = r.source_row[e];
        Datum values[9];
        bool nulls[9] = {};
        values[0] = CStringGetTextDatum(src.participant[s]);
        values[1] = CStringGetTextDatum(src.task[s]);
        values[2] = Int32GetDatum(src.event_index[s]);
        values[3] = src.saccade[s] ? saccade : fixation;
        values[4] = BoolGetDatum(r.passed[e]);
        values[8] = Int32GetDatum(r.attempts[e]);
        if (r.samples[e] == 0) {
            nulls[5] = nulls[6] = nulls[7] = true;
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        }
        for (std::size_t i = r.first[e]; i < r.first[e] + r.samples[e]; ++i) {
            values[5] = Float8GetDatum(r.t_ms[i]);
            values[6] = Float8GetDatum(r.x[i]);
            values[7] = Float8GetDatum(r.y[i]);
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        }
        MemoryContextSwitchTo(previous);
        MemoryContextReset(row_context);
    }
    return static_cast<Datum>(0);
}
