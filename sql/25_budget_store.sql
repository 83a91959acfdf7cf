-- The release store: every analyst release is kept with its ledger id and returned from the store; a repeat
-- of the same call within the dataset's freshness window is served from it, uncharged; the my_* views give
-- an analyst its datasets' public facts, policies, budgets, ledger rows and released values as plain rows.
CREATE TABLE store_gaze (participant text, stimulus int, t_ms float8, x float8, y float8);
INSERT INTO store_gaze SELECT 'p' || (i % 12), i % 2, i * 10, (i * 37) % 100, (i * 53) % 80
FROM generate_series(1, 600) i;
SELECT gazepriv.register_dataset('store', 'store_gaze', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 12,
                                 bounds => '{"x": [0, 100], "y": [0, 80]}', description => 'store test');
SELECT gazepriv.set_release_policy('store', 'heatmap', '{"cap": 2}');
CREATE ROLE store_ann NOLOGIN IN ROLE gazepriv_analyst;
CREATE ROLE store_ben NOLOGIN IN ROLE gazepriv_analyst;
CREATE ROLE store_cur NOLOGIN IN ROLE gazepriv_curator;
SELECT gazepriv.grant_budget('store', 'store_ann', 20, 1e-5);
SELECT gazepriv.grant_budget('store', 'store_ben', 20, 1e-5);

-- Without a freshness window every call is a new release, charged; each is stored and the function's value is
-- the stored one.
SET ROLE store_ann;
CREATE TEMP TABLE ann_counts AS SELECT gazepriv.release_count('store', 0.5) AS value FROM generate_series(1, 3);
SELECT count(*) AS releases FROM gazepriv.my_ledger WHERE dataset = 'store';
SELECT (SELECT array_agg(value ORDER BY value) FROM ann_counts)
     = (SELECT array_agg(count ORDER BY count) FROM gazepriv.my_released_counts WHERE dataset = 'store')
       AS returned_is_stored;
SELECT ledger_id = (SELECT max(id) FROM gazepriv.my_ledger) AS last_release_has_its_ledger_id, role, dataset,
       mechanism, function, result_rows, served_once
FROM gazepriv.my_releases ORDER BY ledger_id DESC LIMIT 1;
-- Each count carries its accuracy: the discrete Laplace noise's sd and 95 % interval at epsilon 0.5.
SELECT stimulus, epsilon, noise_scale, round(noise_sd::numeric, 4) AS noise_sd, count - ci_low AS below,
       ci_high - count AS above
FROM gazepriv.my_released_counts WHERE dataset = 'store' LIMIT 1;
RESET ROLE;

-- The curator sets a window: a dashboard repeating the same call 100 times is charged once and reads the
-- same values each time; another epsilon, stimulus or spec is a new release.
SELECT gazepriv.set_release_freshness('store', '1 hour');
SET ROLE store_ann;
SELECT count(DISTINCT gazepriv.release_count('store', 0.25, 1)) AS distinct_values FROM generate_series(1, 100);
SELECT count(DISTINCT (gazepriv.release_heatmap('store', 1, gazepriv.heatmap_spec(100, 80, 1.0, cell_size => 20))).values)
       AS distinct_maps FROM generate_series(1, 100);
SELECT mechanism, count(*) AS charges FROM gazepriv.my_ledger WHERE dataset = 'store' GROUP BY mechanism ORDER BY 1;
SELECT count(*) AS still_one FROM (SELECT gazepriv.release_count('store', 0.25, 1)) s,
       gazepriv.my_ledger l WHERE l.dataset = 'store' AND l.parameters = '{"epsilon": 0.25, "stimulus": 1}';
SELECT gazepriv.release_count('store', 0.25, 0) IS NOT NULL AS other_stimulus,
       gazepriv.release_count('store', 0.3, 1) IS NOT NULL AS other_epsilon;
SELECT count(*) AS charges_after FROM gazepriv.my_ledger WHERE dataset = 'store';
-- A dashboard reading the view 100 times spends nothing.
SELECT sum(n) AS cells_read FROM generate_series(1, 100), LATERAL (SELECT count(*) AS n FROM gazepriv.my_heatmap_cells) c;
SELECT count(*) AS charges_after_reading FROM gazepriv.my_ledger WHERE dataset = 'store';
-- The cells of the view are the cells of the returned map, exactly.
SELECT (SELECT array_agg(value ORDER BY y, x) FROM gazepriv.my_heatmap_cells)
     = (SELECT array_agg(c.value ORDER BY c.y, c.x)
        FROM gazepriv.heatmap_cells(gazepriv.release_heatmap('store', 1, gazepriv.heatmap_spec(100, 80, 1.0,
                                                                                               cell_size => 20))) c)
       AS cells_are_the_release,
       (SELECT count(*) FROM gazepriv.my_heatmap_cells) AS cells;
SELECT DISTINCT stimulus, cell_size, mechanism, epsilon, delta, sigma > 0 AS has_sigma, noise_sd = sigma AS sd_is_sigma,
       round((ci_high - value)::numeric, 9) = round((value - ci_low)::numeric, 9) AS symmetric_interval
FROM gazepriv.my_heatmap_cells;
RESET ROLE;

-- A map is stored as itself (column heatmap), not as JSON numbers: the returned map, its free repeat and the
-- cells of the view hold the same float8 values bit for bit (float8send); the JSON row of my_release_rows is the
-- map's JSON, whose numbers read back as the same floats; it is one result row, and one release.
SET ROLE store_ann;
CREATE TEMP TABLE ann_map AS
SELECT gazepriv.release_heatmap('store', 0, gazepriv.heatmap_spec(100, 80, 0.5, cell_size => 5)) AS h;
CREATE TEMP TABLE ann_map_id AS SELECT max(id) AS id FROM gazepriv.my_ledger;
CREATE TEMP TABLE ann_bits AS SELECT array_agg(float8send(v) ORDER BY n) AS bits FROM ann_map, unnest((h).values)
    WITH ORDINALITY u(v, n);
SELECT (SELECT bits FROM ann_bits)
     = (SELECT array_agg(float8send(v) ORDER BY n) FROM unnest((gazepriv.release_heatmap('store', 0,
            gazepriv.heatmap_spec(100, 80, 0.5, cell_size => 5))).values) WITH ORDINALITY u(v, n)) AS repeat_bit_exact,
       (SELECT bits FROM ann_bits)
     = (SELECT array_agg(float8send(value) ORDER BY y, x) FROM gazepriv.my_heatmap_cells
        WHERE ledger_id = (SELECT id FROM ann_map_id)) AS cells_bit_exact,
       (SELECT row::jsonb = jsonb_build_object('value', to_jsonb(h)) FROM gazepriv.my_release_rows, ann_map
        WHERE ledger_id = (SELECT id FROM ann_map_id)) AS row_is_the_maps_json,
       (SELECT bits FROM ann_bits)
     = (SELECT array_agg(float8send(v::float8) ORDER BY n) FROM gazepriv.my_release_rows,
               jsonb_array_elements_text(row::jsonb #> '{value,values}') WITH ORDINALITY e(v, n)
        WHERE ledger_id = (SELECT id FROM ann_map_id)) AS json_numbers_bit_exact;
SELECT function, result_rows, count(*) AS releases FROM gazepriv.my_releases
WHERE parameters::jsonb ->> 'stimulus' = '0' GROUP BY function, result_rows;
SELECT cardinality((gazepriv.release_heatmap('store', 0, gazepriv.heatmap_spec(400, 400, 0.5, mechanism => 'laplace'))).values)
       AS large_map;
RESET ROLE;
-- In the table: no JSON, the map in its own type; a large one compressed by lz4 where the server has it (else
-- stored uncompressed: pglz took about a second on a 16 MB map).
SELECT r.result IS NULL AS no_json, (r.heatmap).width, (r.heatmap).cell_size, (r.heatmap).mechanism
FROM gazepriv.releases r WHERE r.dataset = 'store' AND r.mechanism = 'dp_heatmap' ORDER BY r.ledger_id;
SELECT CASE WHEN a.attcompression = 'l' THEN pg_column_compression(r.heatmap) = 'lz4'
            ELSE a.attstorage = 'e' AND pg_column_compression(r.heatmap) IS NULL END AS lz4_or_uncompressed
FROM gazepriv.releases r JOIN pg_attribute a ON a.attrelid = 'gazepriv.releases'::regclass AND a.attname = 'heatmap'
WHERE r.dataset = 'store' AND (r.heatmap).width = 400;
-- A row holds its result in one form: neither or both is refused.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$INSERT INTO gazepriv.releases (ledger_id, dataset, mechanism, role, parameters, request)
      VALUES (-1, 'store', 'dp_heatmap', 'store_ann', '{}', '{}')$$,
    $$INSERT INTO gazepriv.releases (ledger_id, dataset, mechanism, role, parameters, result, heatmap, request)
      SELECT -1, 'store', 'dp_heatmap', 'store_ann', '{}', '[]', h, '{}' FROM ann_map$$]) q;
-- A map stored as a JSON row {"value": map} is still read: a repeat returns its floats exactly, the views read
-- it.
INSERT INTO gazepriv.releases (ledger_id, dataset, mechanism, role, parameters, result, request)
SELECT -1, r.dataset, r.mechanism, r.role, r.parameters, jsonb_build_array(jsonb_build_object('value', r.heatmap)),
       r.request
FROM gazepriv.releases r WHERE r.ledger_id = (SELECT id FROM ann_map_id);
SET ROLE store_ann;
SELECT (SELECT bits FROM ann_bits)
     = (SELECT array_agg(float8send(v) ORDER BY n) FROM unnest((gazepriv.release_heatmap('store', 0,
            gazepriv.heatmap_spec(100, 80, 0.5, cell_size => 5))).values) WITH ORDINALITY u(v, n))
       AS repeat_from_json_bit_exact,
       (SELECT bits FROM ann_bits)
     = (SELECT array_agg(float8send(value) ORDER BY y, x) FROM gazepriv.my_heatmap_cells WHERE ledger_id = -1)
       AS cells_from_json_bit_exact,
       (SELECT result_rows FROM gazepriv.my_releases WHERE ledger_id = -1) AS result_rows,
       (SELECT count(*) FROM gazepriv.my_ledger WHERE id > (SELECT id FROM ann_map_id)) AS charges_since; -- the large map
RESET ROLE;
DELETE FROM gazepriv.releases WHERE ledger_id = -1;
-- A stored row that is not a result of the function repeated (written around the release functions) is refused
-- as corrupt, not returned: here a map where a count's repeat looks.
INSERT INTO gazepriv.releases (ledger_id, dataset, mechanism, role, parameters, heatmap, request)
SELECT -2, r.dataset, r.mechanism, r.role, r.parameters, (SELECT h FROM ann_map), r.request
FROM gazepriv.releases r
WHERE r.role = 'store_ann'::regrole AND r.request = '{"function": "release_count", "arguments": ["store", 0.25, 1]}'
LIMIT 1;
SET ROLE store_ann;
SELECT gazepriv_test.error_of($$SELECT gazepriv.release_count('store', 0.25, 1)$$) AS map_for_a_count;
RESET ROLE;
DELETE FROM gazepriv.releases WHERE ledger_id = -2;

-- Another analyst sees none of it, and its own repeat is its own release.
SET ROLE store_ben;
SELECT (SELECT count(*) FROM gazepriv.my_releases) AS releases, (SELECT count(*) FROM gazepriv.my_ledger) AS ledger,
       (SELECT count(*) FROM gazepriv.my_heatmap_cells) AS cells, (SELECT count(*) FROM gazepriv.my_release_rows) AS rows;
SELECT gazepriv.release_count('store', 0.25, 1) IS NOT NULL AS released;
SELECT count(*) AS bens_charges FROM gazepriv.my_ledger;
-- The analyst's catalog: public facts, the policy, its budgets with role as text.
SELECT * FROM gazepriv.my_datasets WHERE dataset = 'store';
SELECT dataset, mechanism, policy FROM gazepriv.my_release_policies WHERE dataset = 'store';
SELECT dataset, role, kind, accounting, epsilon_limit, releases, revoked FROM gazepriv.my_budgets;
-- The store and the catalog tables stay closed; writing the store is refused.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.releases$$,
    $$SELECT * FROM gazepriv.datasets$$,
    $$SELECT * FROM gazepriv.release_freshness$$,
    $$INSERT INTO gazepriv.releases (ledger_id, dataset, mechanism, role, parameters, result, request)
      VALUES (1000000, 'store', 'release_count', 'store_ben', '{"epsilon": 9, "stimulus": 1}', '[{"value": 0}]',
              '{"function": "release_count", "arguments": ["store", 9, 1]}')$$,
    $$SELECT gazepriv._store_release(1, 'store', NULL, 'store_ben', '{}', '[]', 'release_count', '{}')$$,
    $$SELECT gazepriv._repeat_release('store_ann', 'store', 'release_count', '{}', '{}')$$,
    $$SELECT * FROM store_gaze$$,
    $$SELECT gazepriv.set_release_freshness('store', '1 day')$$,
    $$SELECT gazepriv.forget_releases('store')$$]) q;
RESET ROLE;

-- Bad windows; only the dataset's owner sets one.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.set_release_freshness('store', '0 seconds')$$,
    $$SELECT gazepriv.set_release_freshness('store', '-1 hour')$$,
    $$SELECT gazepriv.set_release_freshness('store', '400 days')$$,
    $$SELECT gazepriv.set_release_freshness('nope', '1 hour')$$]) q;
SET ROLE store_cur;
SELECT gazepriv_test.error_of($$SELECT gazepriv.set_release_freshness('store', '1 hour')$$) AS not_owner;
SELECT gazepriv_test.error_of($$SELECT gazepriv.forget_releases('store')$$) AS not_owner;
RESET ROLE;

-- Retention: the owner forgets stored results; the charges stay in the ledger and a repeat is charged anew.
SELECT count(*) AS stored FROM gazepriv.releases WHERE dataset = 'store';
SELECT gazepriv.forget_releases('store') AS forgotten;
SELECT count(*) AS stored_after FROM gazepriv.releases WHERE dataset = 'store';
SELECT mechanism, role, parameters ->> 'forgotten' AS forgotten FROM gazepriv.ledger
WHERE dataset = 'store' AND mechanism = 'forget_releases';
SET ROLE store_ann;
SELECT count(*) AS charges_kept FROM gazepriv.my_ledger WHERE dataset = 'store';
SELECT gazepriv.release_count('store', 0.25, 1) IS NOT NULL AS released_again;
-- A forgotten map is gone: the same call is a new map.
SELECT (SELECT bits FROM ann_bits)
    <> (SELECT array_agg(float8send(v) ORDER BY n) FROM unnest((gazepriv.release_heatmap('store', 0,
            gazepriv.heatmap_spec(100, 80, 0.5, cell_size => 5))).values) WITH ORDINALITY u(v, n)) AS a_new_map;
SELECT count(*) AS charged_anew FROM gazepriv.my_ledger WHERE dataset = 'store';
RESET ROLE;
SELECT gazepriv.set_release_freshness('store', NULL);
SELECT count(*) AS windows FROM gazepriv.release_freshness WHERE dataset = 'store';

-- Every column of the analyst views has an ordinary type (what JDBC and R read as base types).
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relnamespace = 'gazepriv'::regnamespace AND c.relname LIKE 'my\_%' AND a.attnum > 0
  AND format_type(a.atttypid, a.atttypmod) NOT IN ('text', 'bigint', 'integer', 'double precision', 'numeric',
                                                   'boolean', 'timestamp with time zone');
SELECT c.relname, c.reloptions FROM pg_class c
WHERE c.relnamespace = 'gazepriv'::regnamespace AND c.relname LIKE 'my\_%' ORDER BY 1;

-- DROP EXTENSION is refused while the ledger holds rows; only a superuser may allow it.
SET client_min_messages = warning;  -- the objects a CASCADE lists depend on the tests run before
SELECT regexp_replace(gazepriv_test.error_of('DROP EXTENSION gazepriv CASCADE'), '\d+ rows', 'N rows')
       AS drop_extension;
SELECT regexp_replace(gazepriv_test.error_of('DROP SCHEMA gazepriv CASCADE'), '\d+ rows', 'N rows') AS drop_schema;
RESET client_min_messages;
SET ROLE store_cur;
SELECT gazepriv_test.error_of('SET gazepriv.allow_ledger_drop = on') AS curator_allows;
RESET ROLE;
SELECT count(*) > 0 AS extension_still_there FROM pg_extension WHERE extname = 'gazepriv';
