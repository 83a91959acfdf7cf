// Kalεido live: the statement-level trigger kaleido_publish() releases every inserted sample into a
// published table, continuing each stream's state from gazepriv.kaleido_streams, and kaleido_reset()
// forgets a stream.
//
// One statement: (1) the distinct stream keys of the transition table, in byte order (from its first
// chunk of rows when that is all of it, else by a separate scan); (2) for each, in that order, its state
// row is locked (SELECT ... FOR UPDATE, created by INSERT ... ON CONFLICT DO NOTHING when new) and
// restored; (3) the rows are released in insertion order and written to the published table in chunks;
// (4) the states are stored back. Everything happens in the inserting transaction, so a rollback undoes
// the releases and the state together, and a concurrent statement on the same stream waits for the row
// lock and then continues from the committed state. Each stream also has a transaction lock, taken first in
// one global order by a transaction's first feed statement and only tried by its later ones (40001 when
// held elsewhere: retry), so neither statements nor multi-statement transactions deadlock on each other's
// streams (lock_streams). The state table is read and
// written as its owner (as PostgreSQL's foreign-key triggers do), so inserting roles need no privilege
// on it and cannot rewind a stream's budget; the published table is written as the feed's owner (the
// source table's owner), so inserting roles need INSERT on the source only.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"
#include "core/kaleido/kaleido.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/limits.hpp"
#include "pg/kaleido/kaleido_args.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "commands/event_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

using namespace gazepriv;

static_assert(std::is_trivially_destructible_v<core::KaleidoPlan>,
              "the plan stays alive across PostgreSQL calls in the trigger");

namespace {

constexpr int kChunkRows = 8192;

// The trigger's arguments ("name=value"); pointers into the trigger's own argument strings.
struct Feed {
    const char* published = nullptr;
    const char* stream = nullptr;
    const char* t = "t_ms";
    const char* x = "x";
    const char* y = "y";
    core::KaleidoParams params{};
    bool clamped = false;
    core::ClampBox box{};
    char* parameters = nullptr; // canonical parameters (palloc'd), compared with the stored ones
    double max_gap = INFINITY;  // the owner's bound on a jump of t within a stream (max_gap=)
};

const char* value_of(const char* arg, const char* key) {
    const std::size_t n = std::strlen(key);
    return std::strncmp(arg, key, n) == 0 && arg[n] == '=' ? arg + n + 1 : nullptr;
}

void parse_box(const char* text, core::ClampBox& box) {
    double v[4];
    const char* p = text;
    for (int i = 0; i < 4; ++i) {
        char* end = nullptr;
        v[i] = std::strtod(p, &end);
        if (end == p || !std::isfinite(v[i]) || (i < 3 ? *end != ',' : *end != '\0'))
            throw core::InvalidArgument(std::string("clamp_to must be XMIN,YMIN,XMAX,YMAX, got \"") + text +
                                        "\"");
        p = end + 1;
    }
    box = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
}

Feed parse_feed(const Trigger* trigger) {
    Feed f;
    const char *epsilon = nullptr, *w = nullptr, *r = nullptr, *l_thresh = nullptr, *t_skip = nullptr,
               *h = nullptr, *max_tests = nullptr;
    struct Key {
        const char* name;
        const char** target;
    };
    const Key keys[] = {{"published", &f.published},
                        {"stream", &f.stream},
                        {"t", &f.t},
                        {"x", &f.x},
                        {"y", &f.y},
                        {"epsilon", &epsilon},
                        {"w", &w},
                        {"r", &r},
                        {"l_thresh", &l_thresh},
                        {"t_skip", &t_skip},
                        {"h", &h},
                        {"max_tests", &max_tests}};
    for (int i = 0; i < trigger->tgnargs; ++i) {
        const char* arg = trigger->tgargs[i];
        bool known = false;
        for (const Key& k : keys)
            if (const char* v = value_of(arg, k.name)) {
                *k.target = v;
                known = true;
            }
        if (const char* v = value_of(arg, "clamp_to")) {
            parse_box(v, f.box);
            f.clamped = known = true;
        }
        if (const char* v = value_of(arg, "max_gap")) {
            char* end = nullptr;
            f.max_gap = std::strtod(v, &end);
            if (end == v || *end != '\0' || !(f.max_gap > 0) || !std::isfinite(f.max_gap))
                throw core::InvalidArgument(
                    std::string("max_gap must be a finite number greater than 0, got \"") + v + "\"");
            known = true;
        }
        if (!known)
            throw core::InvalidArgument(
                std::string("unknown kaleido_publish argument \"") + arg +
                "\" (expected name=value with published, stream, t, x, y, epsilon, w, r, "
                "l_thresh, t_skip, h, max_tests, clamp_to, max_gap)");
    }
    if (f.published == nullptr || f.stream == nullptr)
        throw core::InvalidArgument("kaleido_publish needs published= and stream= arguments");
    f.params = pg::kaleido_params_from_text(epsilon, w, r, l_thresh, t_skip, h, max_tests);
    const std::string text = core::kaleido_parameters_text(f.params);
    f.parameters = static_cast<char*>(pg::palloc_or_throw(text.size() + 1));
    std::memcpy(f.parameters, text.c_str(), text.size() + 1);
    return f;
}

// A stream key (the text form of the stream column) and its restored state.
struct Stream {
    const char* key;
    int key_length;
    void* block;
};

// Byte order, as COLLATE "C" sorts the keys.
int compare_keys(const char* a, int a_length, const char* b, int b_length) {
    const int c = std::memcmp(a, b, static_cast<std::size_t>(std::min(a_length, b_length)));
    return c != 0 ? c : (a_length < b_length ? -1 : (a_length > b_length ? 1 : 0));
}

int find_stream(const Stream* streams, int n, const char* key, int length) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        const int c = compare_keys(streams[mid].key, streams[mid].key_length, key, length);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    throw core::InternalError("kaleido_publish: a stream key of the second scan was not in the first");
}

// Restores a stored state; the stored parameters must be the trigger's.
void restore_stream(const core::KaleidoPlan& plan, const Feed& feed, const Stream& s,
                    const char* stored_parameters, const bytea* state, const char* source_name) {
    if (std::strcmp(stored_parameters, feed.parameters) != 0)
        throw core::InvalidArgument(std::string("stream \"") + std::string(s.key, s.key_length) + "\" of " +
                                    source_name + " was started with other parameters (" + stored_parameters +
                                    ", now " + feed.parameters +
                                    "); keep them, or forget the stream with gazepriv.kaleido_reset()");
    core::kaleido_stream_deserialize(plan, reinterpret_cast<const unsigned char*>(VARDATA_ANY(state)),
                                     VARSIZE_ANY_EXHDR(state), s.block);
}

bytea* serialize_stream(const void* block) {
    const std::size_t size = core::kaleido_stream_serialized_size(block);
    auto* b = static_cast<bytea*>(pg::palloc_or_throw(VARHDRSZ + size));
    SET_VARSIZE(b, VARHDRSZ + size);
    core::kaleido_stream_serialize(block, reinterpret_cast<unsigned char*>(VARDATA(b)));
    return b;
}

// The state table's statements, prepared once per backend (fully qualified, search_path-proof).
struct StatePlans {
    SPIPlanPtr select = nullptr;
    SPIPlanPtr insert = nullptr;
    SPIPlanPtr update = nullptr;
    SPIPlanPtr remove_one = nullptr;
    SPIPlanPtr remove_all = nullptr;
    SPIPlanPtr streams_of = nullptr;
    SPIPlanPtr count = nullptr;
};
StatePlans state_plans;

SPIPlanPtr keep(const char* schema, const char* format, int nargs, Oid* types) {
    char sql[1024];
    snprintf(sql, sizeof sql, format, schema);
    SPIPlanPtr plan = SPI_prepare(sql, nargs, types);
    if (plan == nullptr || SPI_keepplan(plan) != 0)
        elog(ERROR, "kaleido: could not prepare \"%s\": %s", sql, SPI_result_code_string(SPI_result));
    return plan;
}

void prepare_state_plans(const char* schema) {
    static const Oid key[2] = {REGCLASSOID, TEXTOID};
    static const Oid insert[4] = {REGCLASSOID, TEXTOID, TEXTOID, BYTEAOID};
    static const Oid update[6] = {REGCLASSOID, TEXTOID, INT8OID, INT8OID, FLOAT8OID, BYTEAOID};
    struct Spec {
        SPIPlanPtr* plan;
        const char* sql;
        int nargs;
        const Oid* types;
    };
    const Spec specs[] = {
        {&state_plans.select,
         "SELECT parameters, state FROM %s.kaleido_streams WHERE source OPERATOR(pg_catalog.=) $1 AND stream "
         "OPERATOR(pg_catalog.=) $2 FOR UPDATE",
         2, key},
        {&state_plans.insert,
         "INSERT INTO %s.kaleido_streams (source, stream, parameters, samples, releases, last_t_ms, state) "
         "VALUES ($1, $2, $3, 0, 0, NULL, $4) ON CONFLICT DO NOTHING",
         4, insert},
        {&state_plans.update,
         "UPDATE %s.kaleido_streams SET samples = $3, releases = $4, last_t_ms = $5, state = $6 WHERE source "
         "OPERATOR(pg_catalog.=) $1 AND stream OPERATOR(pg_catalog.=) $2",
         6, update},
        {&state_plans.remove_one,
         "DELETE FROM %s.kaleido_streams WHERE source OPERATOR(pg_catalog.=) $1 AND stream "
         "OPERATOR(pg_catalog.=) $2",
         2, key},
        {&state_plans.remove_all, "DELETE FROM %s.kaleido_streams WHERE source OPERATOR(pg_catalog.=) $1", 1,
         key},
        {&state_plans.streams_of,
         "SELECT stream FROM %s.kaleido_streams WHERE source OPERATOR(pg_catalog.=) $1", 1, key},
        {&state_plans.count,
         "SELECT pg_catalog.count(*) FROM %s.kaleido_streams WHERE source OPERATOR(pg_catalog.=) $1", 1,
         key}};
    for (const Spec& spec : specs)
        if (*spec.plan == nullptr)
            *spec.plan = keep(schema, spec.sql, spec.nargs, const_cast<Oid*>(spec.types));
}

// Runs state-table statements as the table's owner; PostgreSQL restores the user on error.
class AsStateOwner {
public:
    explicit AsStateOwner(Oid owner) {
        GetUserIdAndSecContext(&user_, &context_);
        SetUserIdAndSecContext(owner,
                               context_ | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
    }
    void restore() const { SetUserIdAndSecContext(user_, context_); }

private:
    Oid user_;
    int context_;
};
static_assert(std::is_trivially_destructible_v<AsStateOwner>);

Oid relation_owner(Oid relid) {
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
    if (!HeapTupleIsValid(tuple))
        elog(ERROR, "cache lookup failed for relation %u", relid);
    const Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
    ReleaseSysCache(tuple);
    return owner;
}

// Locks the stream's state row (creating it when new) and restores its state into s.block.
// The feed's stream-state rows: counted once per statement, when its first new stream is created, and
// bounded by gazepriv.max_kaleido_streams before each new row is written (issue 14, D3).
struct StateRows {
    std::int64_t existing = -1; // -1: not counted yet
    std::int64_t created = 0;
};

void require_state_row(Oid source, StateRows& rows) {
    if (rows.existing < 0) {
        Datum key[1] = {ObjectIdGetDatum(source)};
        bool null = false;
        if (SPI_execute_plan(state_plans.count, key, nullptr, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
            elog(ERROR, "kaleido: could not count the stream states");
        rows.existing = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null));
    }
    core::require_within_limit("the number of streams of this live feed",
                               static_cast<std::uint64_t>(rows.existing + rows.created + 1),
                               "gazepriv.max_kaleido_streams", pg::max_kaleido_streams());
    ++rows.created;
}

void lock_stream(const core::KaleidoPlan& plan, const Feed& feed, Oid source, const char* source_name,
                 Stream& s, Oid state_owner, StateRows& rows) {
    Datum key[2] = {ObjectIdGetDatum(source), PointerGetDatum(cstring_to_text_with_len(s.key, s.key_length))};
    const AsStateOwner as_owner(state_owner);
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (SPI_execute_plan(state_plans.select, key, nullptr, false, 1) != SPI_OK_SELECT)
            elog(ERROR, "kaleido: could not read the stream state");
        if (SPI_processed == 1)
            break;
        if (attempt == 0)
            require_state_row(source, rows);
        // A new stream: insert its initial state; a concurrent insert of the same stream wins the race
        // and this one waits for it, then reads its committed row.
        core::kaleido_stream_init(plan, s.block);
        Datum row[4] = {key[0], key[1], CStringGetTextDatum(feed.parameters),
                        PointerGetDatum(serialize_stream(s.block))};
        if (SPI_execute_plan(state_plans.insert, row, nullptr, false, 0) != SPI_OK_INSERT)
            elog(ERROR, "kaleido: could not create the stream state");
    }
    if (SPI_processed != 1)
        elog(ERROR, "kaleido: the state of stream \"%s\" vanished while it was being created", s.key);
    bool null = false;
    char* stored_parameters = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
    const Datum state = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &null);
    const bytea* state_bytes = DatumGetByteaPP(state);
    as_owner.restore();
    restore_stream(plan, feed, s, stored_parameters, state_bytes, source_name);
}

void store_stream(Oid source, const Stream& s, Oid state_owner) {
    const auto* h = static_cast<const core::KaleidoStreamHeader*>(s.block);
    Datum row[6] = {ObjectIdGetDatum(source),
                    PointerGetDatum(cstring_to_text_with_len(s.key, s.key_length)),
                    Int64GetDatum(static_cast<std::int64_t>(h->samples)),
                    Int64GetDatum(static_cast<std::int64_t>(h->published)),
                    Float8GetDatum(h->last_t),
                    PointerGetDatum(serialize_stream(s.block))};
    const char nulls[6] = {' ', ' ', ' ', ' ', std::isnan(h->last_t) ? 'n' : ' ', ' '};
    const AsStateOwner as_owner(state_owner);
    if (SPI_execute_plan(state_plans.update, row, nulls, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
        elog(ERROR, "kaleido: could not store the state of stream \"%s\"", s.key);
    as_owner.restore();
}

// Released rows waiting to be inserted into the published table.
struct Pending {
    int n = 0;
    int* stream;
    double* t;
    double* x;
    double* y;
    core::KaleidoAction* action;
    double* spent;
    double* radius;
};

Datum float8_array(const double* v, int n, bool nan_is_null) {
    Datum* d = static_cast<Datum*>(palloc(sizeof(Datum) * n + 1));
    bool* nulls = static_cast<bool*>(palloc(n + 1));
    for (int i = 0; i < n; ++i) {
        d[i] = Float8GetDatum(v[i]);
        nulls[i] = nan_is_null && std::isnan(v[i]);
    }
    int dims[1] = {n}, lbs[1] = {1};
    return PointerGetDatum(
        construct_md_array(d, nulls, 1, dims, lbs, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

void flush(SPIPlanPtr insert, const Stream* streams, Pending& p, MemoryContext scratch) {
    if (p.n == 0)
        return;
    const MemoryContext caller = MemoryContextSwitchTo(scratch);
    Datum* keys = static_cast<Datum*>(palloc(sizeof(Datum) * p.n));
    Datum* actions = static_cast<Datum*>(palloc(sizeof(Datum) * p.n));
    Datum* published = static_cast<Datum*>(palloc(sizeof(Datum) * p.n));
    for (int i = 0; i < p.n; ++i) {
        keys[i] = PointerGetDatum(
            cstring_to_text_with_len(streams[p.stream[i]].key, streams[p.stream[i]].key_length));
        actions[i] = CStringGetTextDatum(core::to_string(p.action[i]));
        published[i] = BoolGetDatum(p.action[i] == core::KaleidoAction::Published);
    }
    Datum args[8] = {PointerGetDatum(construct_array(keys, p.n, TEXTOID, -1, false, TYPALIGN_INT)),
                     float8_array(p.t, p.n, false),
                     float8_array(p.x, p.n, true),
                     float8_array(p.y, p.n, true),
                     PointerGetDatum(construct_array(published, p.n, BOOLOID, 1, true, TYPALIGN_CHAR)),
                     PointerGetDatum(construct_array(actions, p.n, TEXTOID, -1, false, TYPALIGN_INT)),
                     float8_array(p.spent, p.n, false),
                     float8_array(p.radius, p.n, true)}; // read only by plans that write noise_radius
    if (SPI_execute_plan(insert, args, nullptr, false, 0) != SPI_OK_INSERT)
        elog(ERROR, "kaleido: could not insert into the published table");
    p.n = 0;
    MemoryContextSwitchTo(caller);
    MemoryContextReset(scratch);
}

SPIPlanPtr prepare(const char* sql, int nargs, Oid* types) {
    SPIPlanPtr plan = SPI_prepare(sql, nargs, types);
    if (plan == nullptr)
        elog(ERROR, "kaleido: could not prepare \"%s\": %s", sql, SPI_result_code_string(SPI_result));
    return plan;
}

// The statements of one trigger, prepared on its first statement in this backend and kept (a few
// hundred microseconds of planning saved per statement, most of the cost of a single-row INSERT).
struct TriggerPlans {
    Oid trigger = InvalidOid;
    SPIPlanPtr read = nullptr;    // the inserted rows, in insertion order
    SPIPlanPtr streams = nullptr; // their distinct stream keys, in byte order
    SPIPlanPtr publish = nullptr; // INSERT of released rows into the published table
};
constexpr int kCachedTriggers = 16;
TriggerPlans trigger_plans[kCachedTriggers];
int next_trigger_slot = 0;

const TriggerPlans& plans_for(const Trigger* trigger, const Feed& feed, Oid published) {
    for (const TriggerPlans& p : trigger_plans)
        if (p.trigger == trigger->tgoid)
            return p;
    const AttrNumber stream_column = get_attnum(published, feed.stream);
    if (stream_column == InvalidAttrNumber)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN), errmsg("published table %s has no column \"%s\"",
                                                                  get_rel_name(published), feed.stream)));
    const char* stream = quote_identifier(feed.stream);
    const char* transition = quote_identifier(trigger->tgnewtable);
    TriggerPlans fresh;
    fresh.trigger = trigger->tgoid;
    fresh.read =
        prepare(psprintf("SELECT (%s)::pg_catalog.text, (%s)::pg_catalog.float8, (%s)::pg_catalog.float8, "
                         "(%s)::pg_catalog.float8 FROM %s",
                         stream, quote_identifier(feed.t), quote_identifier(feed.x), quote_identifier(feed.y),
                         transition),
                0, nullptr);
    fresh.streams = prepare(psprintf("SELECT DISTINCT (%s)::pg_catalog.text COLLATE \"C\" FROM %s ORDER BY 1",
                                     stream, transition),
                            0, nullptr);
    Oid types[8] = {TEXTARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID,
                    BOOLARRAYOID, TEXTARRAYOID,   FLOAT8ARRAYOID, FLOAT8ARRAYOID};
    // noise_radius is written when the published table has the column (kaleido_attach creates it; tables
    // made before, or by hand without it, keep working).
    const bool radius = get_attnum(published, "noise_radius") != InvalidAttrNumber;
    fresh.publish = prepare(
        psprintf(
            "INSERT INTO %s (%s, %s, %s, %s, published, action, epsilon_spent%s) "
            "SELECT u.s::%s, u.t, u.x, u.y, u.p, u.a, u.e%s FROM ROWS FROM (pg_catalog.unnest($1), "
            "pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5), "
            "pg_catalog.unnest($6), pg_catalog.unnest($7)%s) AS u(s, t, x, y, p, a, e%s)",
            quote_qualified_identifier(get_namespace_name(get_rel_namespace(published)),
                                       get_rel_name(published)),
            stream, quote_identifier(feed.t), quote_identifier(feed.x), quote_identifier(feed.y),
            radius ? ", noise_radius" : "", format_type_be_qualified(get_atttype(published, stream_column)),
            radius ? ", u.r" : "", radius ? ", pg_catalog.unnest($8)" : "", radius ? ", r" : ""),
        radius ? 8 : 7, types);
    // Only now replace a slot, so that a failure above leaves the cache as it was.
    TriggerPlans& slot = trigger_plans[next_trigger_slot];
    next_trigger_slot = (next_trigger_slot + 1) % kCachedTriggers;
    for (SPIPlanPtr old : {slot.read, slot.streams, slot.publish})
        if (old != nullptr)
            SPI_freeplan(old);
    slot = TriggerPlans();
    if (SPI_keepplan(fresh.read) != 0 || SPI_keepplan(fresh.streams) != 0 || SPI_keepplan(fresh.publish) != 0)
        elog(ERROR, "kaleido: could not keep the trigger's plans");
    slot = fresh;
    return slot;
}

// A stream key read from the inserted rows (text in a tuple of the SPI result).
struct KeyRef {
    const char* data;
    int length;
};

int compare_key_refs(const void* a, const void* b) {
    const auto* x = static_cast<const KeyRef*>(a);
    const auto* y = static_cast<const KeyRef*>(b);
    return compare_keys(x->data, x->length, y->data, y->length);
}

[[noreturn]] void null_stream_error(const Feed& feed, const char* source_name) {
    ereport(ERROR,
            (errcode(ERRCODE_NOT_NULL_VIOLATION),
             errmsg("kaleido: the stream column \"%s\" of %s must not be NULL", feed.stream, source_name)));
}

Stream make_stream(const char* data, int length, std::size_t block_bytes) {
    char* copy = static_cast<char*>(palloc(length + 1));
    std::memcpy(copy, data, length);
    copy[length] = '\0';
    return {copy, length, palloc(block_bytes)};
}

void require_statement_trigger(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("kaleido_publish() must be called as a trigger")));
    const TriggerData* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    if (!TRIGGER_FIRED_AFTER(td->tg_event) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
        !TRIGGER_FIRED_BY_INSERT(td->tg_event) || td->tg_newtable == nullptr ||
        td->tg_trigger->tgnewtable == nullptr)
        ereport(ERROR,
                (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                 errmsg("kaleido_publish() must be an AFTER INSERT ... REFERENCING NEW TABLE AS ... FOR "
                        "EACH STATEMENT trigger"),
                 errhint("Use gazepriv.kaleido_attach() to create it.")));
}

} // namespace

namespace {

// The published table is written as the feed's owner (the source table's owner), so a device needs INSERT on
// the source only and cannot write "published" rows itself (issue 14, D1).
void publish_as_owner(SPIPlanPtr insert, const Stream* streams, Pending& p, MemoryContext scratch,
                      Oid owner) {
    const AsStateOwner as_owner(owner);
    flush(insert, streams, p, scratch);
    as_owner.restore();
}

// Multi-statement transactions cannot deadlock on streams (issue 14, D4). Each stream has a transaction-level
// lock (an advisory lock tag of its own space: source, hash of the key), taken before its state row. A
// transaction's first feed statement takes its locks in one global order (by tag) and may wait; any later
// statement of the same transaction, which already holds locks it took in an earlier order, only tries: a
// stream held by another transaction fails the statement with 40001 (serialization_failure; retry the
// transaction), so no transaction ever waits while holding stream locks out of order, and no cycle forms.
constexpr uint16 kStreamLockSpace = 0x4b4c; // "KL": not one of PostgreSQL's or Citus's advisory spaces
LocalTransactionId streams_locked_in = InvalidLocalTransactionId;

struct StreamLock {
    uint32 hash;
    int stream;
};

int compare_stream_locks(const void* a, const void* b) {
    const uint32 x = static_cast<const StreamLock*>(a)->hash, y = static_cast<const StreamLock*>(b)->hash;
    return x < y ? -1 : (x > y ? 1 : 0);
}

void lock_streams(Oid source, const Stream* streams, int n_streams) {
    const bool may_wait = streams_locked_in != MyProc->lxid;
    StreamLock* order = static_cast<StreamLock*>(palloc(sizeof(StreamLock) * n_streams + 1));
    for (int i = 0; i < n_streams; ++i)
        order[i] = {hash_bytes(reinterpret_cast<const unsigned char*>(streams[i].key), streams[i].key_length),
                    i};
    qsort(order, n_streams, sizeof(StreamLock), compare_stream_locks);
    for (int i = 0; i < n_streams; ++i) {
        CHECK_FOR_INTERRUPTS();
        LOCKTAG tag;
        SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, source, order[i].hash, kStreamLockSpace);
        if (LockAcquire(&tag, ExclusiveLock, false, !may_wait) == LOCKACQUIRE_NOT_AVAIL) {
            const Stream& s = streams[order[i].stream];
            ereport(ERROR,
                    (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                     errmsg("kaleido: stream \"%.*s\" is held by another transaction, and this transaction "
                            "already holds streams of an earlier statement",
                            s.key_length, s.key),
                     errhint("Retry the transaction; a transaction that inserts into a live feed in one "
                             "statement never waits.")));
        }
    }
    streams_locked_in = MyProc->lxid;
    pfree(order);
}

// One statement touches at most gazepriv.max_kaleido_streams_per_statement streams, counted before any
// stream's state is allocated or locked (issue 14, D3).
void require_statement_streams(int streams) {
    core::require_within_limit(
        "the number of distinct streams in one statement", static_cast<std::uint64_t>(streams),
        "gazepriv.max_kaleido_streams_per_statement", pg::max_kaleido_streams_per_statement());
}

// A sample whose t jumps past the owner's max_gap is refused before the stream's state changes; the statement
// fails, so the stream continues from its committed state (issue 14, D2).
void require_within_gap(const Feed& feed, const Stream& stream, double t, const char* source_name) {
    const double last = static_cast<const core::KaleidoStreamHeader*>(stream.block)->last_t;
    if (std::isfinite(last) && std::isfinite(t) && t - last > feed.max_gap)
        throw core::InvalidArgument(
            std::string("kaleido: a sample of ") + source_name + " jumps " + core::format_number(t - last) +
            " after the last one, more than max_gap " + core::format_number(feed.max_gap));
}

} // namespace

GAZEPRIV_FUNCTION(kaleido_publish) {
    require_statement_trigger(fcinfo);
    TriggerData* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    const Feed feed = parse_feed(td->tg_trigger);
    const core::KaleidoPlan plan(feed.params);
    const Oid source = RelationGetRelid(td->tg_relation);
    const char* source_name = RelationGetRelationName(td->tg_relation);
    const Oid published =
        RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(feed.published)), NoLock, false);
    if (published == source)
        throw core::InvalidArgument("the published table must not be the source table");
    const Oid schema = get_func_namespace(fcinfo->flinfo->fn_oid);
    const char* schema_name = quote_identifier(get_namespace_name(schema));
    const Oid state_owner = relation_owner(get_relname_relid("kaleido_streams", schema));
    const Oid feed_owner = relation_owner(source);

    if (SPI_connect() != SPI_OK_CONNECT || SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
        elog(ERROR, "kaleido: could not connect to SPI");
    prepare_state_plans(schema_name);
    const TriggerPlans& plans = plans_for(td->tg_trigger, feed, published);
    const std::size_t block_bytes = core::kaleido_stream_bytes(plan);

    // (1) The first rows; when they are all, their stream keys come from them, otherwise from a scan.
    Portal rows = SPI_cursor_open(nullptr, plans.read, nullptr, nullptr, true);
    SPI_cursor_fetch(rows, true, kChunkRows);
    SPITupleTable* batch = SPI_tuptable;
    int n = static_cast<int>(SPI_processed);
    Stream* streams = nullptr;
    int n_streams = 0;
    if (n < kChunkRows) {
        KeyRef* keys = static_cast<KeyRef*>(palloc(sizeof(KeyRef) * n + 1));
        for (int r = 0; r < n; ++r) {
            bool null = false;
            const Datum key = SPI_getbinval(batch->vals[r], batch->tupdesc, 1, &null);
            if (null)
                null_stream_error(feed, source_name);
            const text* k = DatumGetTextPP(key);
            keys[r] = {VARDATA_ANY(k), static_cast<int>(VARSIZE_ANY_EXHDR(k))};
        }
        qsort(keys, n, sizeof(KeyRef), compare_key_refs);
        int distinct = 0;
        for (int r = 0; r < n; ++r)
            distinct += r == 0 || compare_key_refs(&keys[r - 1], &keys[r]) != 0;
        require_statement_streams(distinct);
        streams = static_cast<Stream*>(palloc(sizeof(Stream) * n + 1));
        for (int r = 0; r < n; ++r)
            if (r == 0 || compare_key_refs(&keys[r - 1], &keys[r]) != 0)
                streams[n_streams++] = make_stream(keys[r].data, keys[r].length, block_bytes);
    } else {
        if (SPI_execute_plan(plans.streams, nullptr, nullptr, true, 0) != SPI_OK_SELECT)
            elog(ERROR, "kaleido: could not read the inserted samples");
        n_streams = static_cast<int>(SPI_processed);
        require_statement_streams(n_streams);
        streams = static_cast<Stream*>(palloc(sizeof(Stream) * n_streams + 1));
        for (int i = 0; i < n_streams; ++i) {
            bool null = false;
            const Datum key = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &null);
            if (null)
                null_stream_error(feed, source_name);
            const text* k = DatumGetTextPP(key);
            streams[i] = make_stream(VARDATA_ANY(k), static_cast<int>(VARSIZE_ANY_EXHDR(k)), block_bytes);
        }
        SPI_freetuptable(SPI_tuptable);
    }

    // (2) Take the streams' transaction locks (one order across the transaction, see lock_streams), then lock
    // and restore every stream's state row, in key order.
    lock_streams(source, streams, n_streams);
    StateRows state_rows;
    for (int i = 0; i < n_streams; ++i)
        lock_stream(plan, feed, source, source_name, streams[i], state_owner, state_rows);

    // (3) Release the samples in insertion order.
    const MemoryContext scratch =
        AllocSetContextCreate(CurrentMemoryContext, "kaleido published rows", ALLOCSET_DEFAULT_SIZES);
    Pending pending;
    pending.stream = static_cast<int*>(palloc(sizeof(int) * kChunkRows));
    pending.t = static_cast<double*>(palloc(sizeof(double) * kChunkRows));
    pending.x = static_cast<double*>(palloc(sizeof(double) * kChunkRows));
    pending.y = static_cast<double*>(palloc(sizeof(double) * kChunkRows));
    pending.action = static_cast<core::KaleidoAction*>(palloc(kChunkRows));
    pending.spent = static_cast<double*>(palloc(sizeof(double) * kChunkRows));
    pending.radius = static_cast<double*>(palloc(sizeof(double) * kChunkRows));
    core::Rng& rng = pg::backend_rng();
    while (n > 0) {
        for (int r = 0; r < n; ++r) {
            CHECK_FOR_INTERRUPTS();
            bool null[4] = {false, false, false, false};
            Datum v[4];
            for (int c = 0; c < 4; ++c)
                v[c] = SPI_getbinval(batch->vals[r], batch->tupdesc, c + 1, &null[c]);
            if (null[0])
                null_stream_error(feed, source_name);
            if (null[1])
                ereport(ERROR, (errcode(ERRCODE_NOT_NULL_VIOLATION),
                                errmsg("kaleido: the time column \"%s\" of %s must not be NULL", feed.t,
                                       source_name)));
            const text* k = DatumGetTextPP(v[0]);
            const int s =
                find_stream(streams, n_streams, VARDATA_ANY(k), static_cast<int>(VARSIZE_ANY_EXHDR(k)));
            const double t = DatumGetFloat8(v[1]);
            require_within_gap(feed, streams[s], t, source_name);
            const core::KaleidoOutput o =
                core::kaleido_step(plan, streams[s].block, t, null[2] ? NAN : DatumGetFloat8(v[2]),
                                   null[3] ? NAN : DatumGetFloat8(v[3]), rng);
            const int at = pending.n++;
            pending.stream[at] = s;
            pending.t[at] = t;
            pending.x[at] = o.x;
            pending.y[at] = o.y;
            if (feed.clamped)
                core::clamp_into(feed.box, pending.x[at], pending.y[at]);
            pending.action[at] = o.action;
            pending.spent[at] = o.epsilon_spent;
            pending.radius[at] = o.noise_radius;
            if (pending.n == kChunkRows)
                publish_as_owner(plans.publish, streams, pending, scratch, feed_owner);
        }
        SPI_freetuptable(batch);
        if (n < kChunkRows)
            break;
        SPI_cursor_fetch(rows, true, kChunkRows);
        batch = SPI_tuptable;
        n = static_cast<int>(SPI_processed);
    }
    SPI_cursor_close(rows);
    publish_as_owner(plans.publish, streams, pending, scratch, feed_owner);

    // (4) Store the states.
    for (int i = 0; i < n_streams; ++i)
        store_stream(source, streams[i], state_owner);
    SPI_finish();
    return PointerGetDatum(nullptr);
}

GAZEPRIV_FUNCTION(kaleido_reset) {
    if (PG_ARGISNULL(0))
        throw core::InvalidArgument("source must not be NULL");
    const Oid source = PG_GETARG_OID(0);
    const char relkind = get_rel_relkind(source);
    if (relkind == '\0')
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", source)));
    if (!pg_class_ownercheck(source, GetUserId()))
        aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(relkind), get_rel_name(source));
    const Oid schema = get_func_namespace(fcinfo->flinfo->fn_oid);
    const Oid state_owner = relation_owner(get_relname_relid("kaleido_streams", schema));
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "kaleido: could not connect to SPI");
    prepare_state_plans(quote_identifier(get_namespace_name(schema)));
    Datum key[2] = {ObjectIdGetDatum(source), PG_ARGISNULL(1) ? Datum(0) : PG_GETARG_DATUM(1)};
    const AsStateOwner as_owner(state_owner);
    // The streams' transaction locks first, as a feed's statement takes them, so a reset never deadlocks with
    // inserts into the feed (D4).
    if (!PG_ARGISNULL(1)) {
        const text* k = PG_GETARG_TEXT_PP(1);
        const Stream one{VARDATA_ANY(k), static_cast<int>(VARSIZE_ANY_EXHDR(k)), nullptr};
        lock_streams(source, &one, 1);
    } else {
        if (SPI_execute_plan(state_plans.streams_of, key, nullptr, true, 0) != SPI_OK_SELECT)
            elog(ERROR, "kaleido: could not read the source's streams");
        const int n = static_cast<int>(SPI_processed);
        Stream* all = static_cast<Stream*>(palloc(sizeof(Stream) * n + 1));
        for (int i = 0; i < n; ++i) {
            bool null = false;
            const text* k =
                DatumGetTextPP(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &null));
            all[i] = {VARDATA_ANY(k), static_cast<int>(VARSIZE_ANY_EXHDR(k)), nullptr};
        }
        lock_streams(source, all, n);
    }
    if (SPI_execute_plan(PG_ARGISNULL(1) ? state_plans.remove_all : state_plans.remove_one, key, nullptr,
                         false, 0) != SPI_OK_DELETE)
        elog(ERROR, "kaleido: could not forget the stream state");
    as_owner.restore();
    const std::int64_t forgotten = static_cast<std::int64_t>(SPI_processed);
    SPI_finish();
    PG_RETURN_INT64(forgotten);
}

// Event trigger on sql_drop: the state of every live feed whose source table was dropped goes with it, so
// dropped feeds leave no rows behind (issue 14, D3). Runs as the state table's owner, like the trigger.
GAZEPRIV_FUNCTION(_kaleido_forget_dropped) {
    if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("_kaleido_forget_dropped() must be called as an event trigger")));
    const Oid schema = get_func_namespace(fcinfo->flinfo->fn_oid);
    const Oid state_table = get_relname_relid("kaleido_streams", schema);
    if (state_table == InvalidOid) // the extension itself is being dropped
        PG_RETURN_NULL();
    char sql[512];
    snprintf(
        sql, sizeof sql,
        "DELETE FROM %s.kaleido_streams WHERE source OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT "
        "d.objid::pg_catalog.regclass FROM pg_catalog.pg_event_trigger_dropped_objects() d WHERE d.classid "
        "OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid "
        "OPERATOR(pg_catalog.=) 0))",
        quote_identifier(get_namespace_name(schema)));
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "kaleido: could not connect to SPI");
    const AsStateOwner as_owner(relation_owner(state_table));
    if (SPI_execute(sql, false, 0) != SPI_OK_DELETE)
        elog(ERROR, "kaleido: could not forget the state of dropped feeds");
    as_owner.restore();
    SPI_finish();
    PG_RETURN_NULL();
}
