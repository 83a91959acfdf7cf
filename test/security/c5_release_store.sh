#!/usr/bin/env bash
# C5: the release store and the analyst's views. An analyst reads only its own stored releases, budgets and
# ledger rows, and of a dataset only its public facts: never another analyst's release, never a raw row or a
# column name, not even through its own leaky function in a WHERE clause of a view (security barriers). It
# cannot forge a stored release (write the store, call the internal store functions) to be served a repeat
# it did not pay for, nor make a repeat free by changing what the curator fixed. The DROP EXTENSION guard
# cannot be switched off by a curator who owns the database.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.register_dataset('uniss', 'public.uniss_samples', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20,
                                 description => 'Uniss-FGD image 2');
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 10, 1e-5);
SELECT gazepriv.grant_budget('uniss', 'analyst_b', 10, 1e-5);
SELECT gazepriv.set_release_policy('uniss', 'heatmap', '{"cap": 1}');
SELECT gazepriv.set_release_freshness('uniss', '1 hour');
SQL
heatmap="gazepriv.release_heatmap('uniss', 2, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 64))"
as analyst_a -c "SELECT (h).n FROM (SELECT $heatmap AS h) s" >/dev/null
as analyst_a -c "SELECT gazepriv.release_count('uniss', 0.5)" >/dev/null
charges() { psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE role = '$1'::regrole"; }

# Another analyst's releases.
check "analyst_b sees none of analyst_a's stored releases" "$(as analyst_b -c "
    SELECT (SELECT count(*) FROM gazepriv.my_releases) + (SELECT count(*) FROM gazepriv.my_release_rows)
         + (SELECT count(*) FROM gazepriv.my_heatmap_cells) + (SELECT count(*) FROM gazepriv.my_released_counts)
         + (SELECT count(*) FROM gazepriv.my_ledger)")" 0
check "nor reads the store table" "$(sqlstate analyst_b "SELECT count(*) FROM gazepriv.releases")" 42501
check "analyst_a sees its own" "$(as analyst_a -c "SELECT count(*) FROM gazepriv.my_releases")" 2
# A leaky function in a WHERE clause sees only the rows the view lets through (security_barrier).
as analyst_b <<'SQL' >/dev/null
CREATE TABLE sandbox_analyst_b.leaked (v text);
CREATE FUNCTION sandbox_analyst_b.leak(v text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
    INSERT INTO sandbox_analyst_b.leaked VALUES (v);
    RETURN true;
END $$;
SELECT count(*) FROM gazepriv.my_releases WHERE sandbox_analyst_b.leak(role || ' ' || parameters);
SELECT count(*) FROM gazepriv.my_release_rows WHERE sandbox_analyst_b.leak(row);
SELECT count(*) FROM gazepriv.my_ledger WHERE sandbox_analyst_b.leak(role || ' ' || parameters);
SELECT count(*) FROM gazepriv.my_heatmap_cells WHERE sandbox_analyst_b.leak(value::text);
SELECT count(*) FROM gazepriv.my_datasets WHERE sandbox_analyst_b.leak(dataset);
SQL
check "a leaky function in WHERE saw no other role's row" "$(as analyst_b -c "
    SELECT count(*) FROM sandbox_analyst_b.leaked WHERE v <> 'uniss'")" 0

# Forging the store: a row claiming a cheap release, or calling the internal functions.
forged="INSERT INTO gazepriv.releases (ledger_id, dataset, mechanism, role, parameters, result, request)
        VALUES (999, 'uniss', 'release_count', 'analyst_b', '{\"epsilon\": 5, \"stimulus\": null}',
                '[{\"value\": 20}]', '{\"function\": \"release_count\", \"arguments\": [\"uniss\", 5, null]}')"
check "an analyst cannot write the store" "$(sqlstate analyst_b "$forged")" 42501
check "nor a curator" "$(sqlstate curator_a "$forged")" 42501
check "nor call _store_release" "$(sqlstate analyst_b "SELECT gazepriv._store_release(999, 'uniss', NULL, 'analyst_b',
    '{}', '[]', 'release_count', '{}')")" 42501
check "nor _repeat_release" "$(sqlstate analyst_b "SELECT gazepriv._repeat_release('analyst_a', 'uniss',
    'release_count', '{}', '{}')")" 42501
check "nor change the freshness window" "$(sqlstate analyst_b "SELECT gazepriv.set_release_freshness('uniss', '366 days')")" 42501
check "nor forget releases" "$(sqlstate analyst_b "SELECT gazepriv.forget_releases('uniss')")" 42501

# analyst_b repeating analyst_a's call is a new release of its own, charged.
as analyst_b -c "SELECT gazepriv.release_count('uniss', 0.5)" >/dev/null
check "analyst_b's repeat of analyst_a's call is charged to analyst_b" "$(charges analyst_b)" 1
# analyst_a's repeats are free and identical; a repeat with another parameter is charged.
before=$(charges analyst_a)
same=$(as analyst_a -c "SELECT count(DISTINCT gazepriv.release_count('uniss', 0.5)) FROM generate_series(1, 50)")
check "50 repeats within the window: one value" "$same" 1
check "and no charge" "$(charges analyst_a)" "$before"
as analyst_a -c "SELECT gazepriv.release_count('uniss', 0.5, stimulus => 2)" >/dev/null
check "another stimulus is a new release, charged" "$(charges analyst_a)" $((before + 1))
# The heatmap cells of the view are the released map's, and reading them 100 times is free.
check "the view's cells are the repeat's cells" "$(as analyst_a -c "
    SELECT (SELECT array_agg(value ORDER BY y, x) FROM gazepriv.my_heatmap_cells)
         = (SELECT array_agg(value ORDER BY y, x) FROM gazepriv.heatmap_cells($heatmap))")" t
for i in $(seq 1 100); do echo "SELECT count(*) FROM gazepriv.my_heatmap_cells;"; done | as analyst_a >/dev/null
check "100 dashboard reads later, still the same charges" "$(charges analyst_a)" $((before + 1))

# The analyst's catalog: public facts only.
check "my_datasets names no relation or column" "$(as analyst_a -c "SELECT * FROM gazepriv.my_datasets" |
    grep -ciE 'uniss_samples|participant|t_ms|pupil')" 0
check "its columns" "$(as analyst_a -c "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute
    WHERE attrelid = 'gazepriv.my_datasets'::regclass AND attnum > 0")" \
    "dataset,description,observers,bounds,has_stimulus,budget_kinds,fresh_for_seconds"
check "the raw rows stay closed" "$(sqlstate analyst_a "SELECT count(*) FROM public.uniss_samples")" 42501
check "analyst_a's budgets, role as text" "$(as analyst_a -c "SELECT dataset, role, kind FROM gazepriv.my_budgets")" \
    "$(printf 'uniss\tanalyst_a\tdp')"

# The DROP guard: the database's curator cannot allow it, nor drop the extension.
check "a curator cannot allow dropping the ledger" "$(as curator_a -c "SET gazepriv.allow_ledger_drop = on" \
    -c "SELECT gazepriv.version()" -c "SHOW gazepriv.allow_ledger_drop" 2>/dev/null | tail -1)" off
check "once the library is loaded, the setting is refused" "$(sqlstate curator_a "SELECT gazepriv.version();
    SET gazepriv.allow_ledger_drop = on")" 42501
check "DROP EXTENSION with a ledger is refused" "$(sqlstate postgres "DROP EXTENSION gazepriv CASCADE")" 2BP01
finish
