-- The analyst's catalog and the release store as plain rows (README, "What an analyst sees"): views that any
-- client (psql, psycopg/pandas, JDBC, R, BI tools) reads as rows of ordinary types (text, bigint, float8,
-- numeric, boolean, timestamptz; jsonb only as text). Each shows the rows of the roles the caller is a member
-- of (pg_has_role ... 'MEMBER', as budget_status), and of a dataset only its public facts: never its relation,
-- its column names or its rows. The views are owned by the extension's owner and are security barriers, so a
-- caller's own function in a WHERE clause runs only on rows the view already lets it see. Reading them is
-- post-processing of releases already made: it costs nothing.

CREATE VIEW @extschema@.my_datasets WITH (security_barrier) AS
SELECT d.name AS dataset, d.description, d.observers, d.bounds::text AS bounds,
       d.stimulus_column IS NOT NULL AS has_stimulus,
       (SELECT pg_catalog.string_agg(b.kind, ',' ORDER BY b.kind) FROM @extschema@.budgets b
        WHERE b.dataset = d.name AND pg_catalog.pg_has_role(b.role, 'MEMBER') AND NOT b.revoked) AS budget_kinds,
       extract(epoch FROM f.fresh_for)::float8 AS fresh_for_seconds
FROM @extschema@.datasets d LEFT JOIN @extschema@.release_freshness f ON f.dataset = d.name
WHERE EXISTS (SELECT FROM @extschema@.budgets b WHERE b.dataset = d.name AND pg_catalog.pg_has_role(b.role, 'MEMBER'));
COMMENT ON VIEW @extschema@.my_datasets IS
    'The datasets the caller holds a budget on (revoked or not), with their public facts: description, observers '
    '(the public number of participants), bounds (JSON text), whether releases may name a stimulus, the unrevoked '
    'budget kinds, and the freshness window of repeats in seconds (NULL: every call is a new release). Privacy: '
    'public facts only; no relation or column names.';

CREATE VIEW @extschema@.my_release_policies WITH (security_barrier) AS
SELECT p.dataset, p.mechanism, p.policy::text AS policy, p.set_at
FROM @extschema@.release_policies p
WHERE EXISTS (SELECT FROM @extschema@.budgets b WHERE b.dataset = p.dataset AND pg_catalog.pg_has_role(b.role, 'MEMBER'));
COMMENT ON VIEW @extschema@.my_release_policies IS
    'The release policies of the datasets the caller holds a budget on: what the owner fixed for each mechanism '
    '(JSON text; table release_policies lists the keys). Privacy: parameters only.';

CREATE VIEW @extschema@.my_budgets WITH (security_barrier) AS
SELECT s.dataset, pg_catalog.pg_get_userbyid(s.role)::text AS role, s.kind, s.accounting, s.epsilon_limit,
       s.delta_limit, s.epsilon_spent, s.epsilon_remaining, s.delta_remaining, s.basic_epsilon_spent,
       s.basic_delta_spent, s.zcdp_rho_spent, s.zcdp_epsilon_spent, s.releases, s.revoked
FROM @extschema@.budget_status s
WHERE pg_catalog.pg_has_role(s.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_budgets IS
    'The caller''s own budgets (of the roles it is a member of) as in budget_status, with role as text. Privacy: '
    'shows spending, never data.';

CREATE VIEW @extschema@.my_ledger WITH (security_barrier) AS
SELECT l.id, l.at, pg_catalog.pg_get_userbyid(l.role)::text AS role, l.dataset, l.mechanism,
       l.parameters::text AS parameters, l.epsilon, l.delta, l.rho, l.guarantee, l.non_private, l.accounting
FROM @extschema@.ledger l
WHERE pg_catalog.pg_has_role(l.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_ledger IS
    'The caller''s own ledger rows: every charge of its releases (parameters as JSON text). Privacy: shows '
    'spending, never data.';

CREATE VIEW @extschema@.my_releases WITH (security_barrier) AS
SELECT r.ledger_id, r.stored_at, pg_catalog.pg_get_userbyid(r.role)::text AS role, r.dataset, r.mechanism,
       r.request ->> 'function' AS function, r.parameters::text AS parameters,
       coalesce(pg_catalog.jsonb_array_length(r.result), 1) AS result_rows,  -- a stored heatmap is one row
       r.served_once IS NOT NULL AS served_once
FROM @extschema@.releases r
WHERE pg_catalog.pg_has_role(r.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_releases IS
    'The caller''s stored releases, one row each, with the ledger id of the charge: function, parameters as '
    'charged (JSON text), number of result rows. Read their values through my_release_rows, my_released_counts, '
    'my_heatmap_cells, my_series_points and my_kaleido_points. Privacy: released values only; free to read.';

CREATE VIEW @extschema@.my_release_rows WITH (security_barrier) AS
SELECT r.ledger_id, r.dataset, r.request ->> 'function' AS function, e.n::int4 AS row_number, e.row::text AS row
FROM @extschema@.releases r,
     -- A stored heatmap is written as the JSON row it would have been stored as: {"value": map}.
     LATERAL pg_catalog.jsonb_array_elements(coalesce(r.result, pg_catalog.jsonb_build_array(
                 pg_catalog.jsonb_build_object('value', r.heatmap)))) WITH ORDINALITY AS e(row, n)
WHERE pg_catalog.pg_has_role(r.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_release_rows IS
    'Every row of the caller''s stored releases as JSON text, in the order the release function returned them. '
    'Privacy: released values only; free to read.';

CREATE VIEW @extschema@.my_released_counts WITH (security_barrier) AS
SELECT r.ledger_id, r.stored_at, r.dataset, (r.request #>> '{arguments,2}')::int8 AS stimulus,
       c.epsilon, 1 / c.epsilon AS noise_scale, c.count, a.noise_sd, c.count - a.half_width AS ci_low,
       c.count + a.half_width AS ci_high
FROM @extschema@.releases r,
     LATERAL (SELECT (r.request #>> '{arguments,1}')::float8 AS epsilon, (r.result #>> '{0,value}')::int8 AS count) c,
     LATERAL @extschema@.noise_accuracy('discrete_laplace', 1 / c.epsilon, 0.95) a
WHERE r.request ->> 'function' = 'release_count' AND pg_catalog.pg_has_role(r.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_released_counts IS
    'The caller''s stored release_count results: the noisy count with its epsilon, the scale of its discrete '
    'Laplace noise (1/epsilon), the noise''s sd and the 95 % interval [ci_low, ci_high] that holds the exact count '
    'with probability >= 0.95 (noise_accuracy). Privacy: released values only; free to read.';

CREATE VIEW @extschema@.my_heatmap_cells WITH (security_barrier) AS
SELECT r.ledger_id, r.stored_at, r.dataset, (r.request #>> '{arguments,1}')::int8 AS stimulus, c.x, c.y, c.value,
       h.cell_size, h.mechanism, h.epsilon, h.delta, h.sigma, h.scale, a.noise_sd, c.value - a.half_width AS ci_low,
       c.value + a.half_width AS ci_high
FROM @extschema@.releases r,
     -- The stored map, read once per release rather than once per cell (a map stored as a JSON row is read
     -- from it).
     LATERAL pg_catalog.jsonb_populate_record(r.heatmap, coalesce(r.result -> 0 -> 'value', '{}')) h,
     LATERAL @extschema@.heatmap_accuracy(h, 0.95) a,
     LATERAL @extschema@.heatmap_cells(h) c
WHERE r.request ->> 'function' = 'release_heatmap' AND pg_catalog.pg_has_role(r.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_heatmap_cells IS
    'The cells of the caller''s stored release_heatmap results, one row each (x, y = the cell''s top-left pixel, '
    'value), with the noise of the map (mechanism, epsilon, delta, sigma or scale), each cell''s noise sd and '
    '95 % interval [ci_low, ci_high] (heatmap_accuracy). Privacy: released values only; free to read.';

CREATE VIEW @extschema@.my_series_points WITH (security_barrier) AS
SELECT r.ledger_id, r.stored_at, r.dataset, r.request #>> '{arguments,1}' AS method, e.participant, e.recording,
       e.feature, p.t::int4 AS t, v.value, a.noise_sd, v.value - a.half_width AS ci_low, v.value + a.half_width AS ci_high
FROM @extschema@.releases r,
     LATERAL pg_catalog.jsonb_to_recordset(r.result) AS e(participant text, recording text, feature text, series jsonb),
     -- The accuracy of the signal's feature, from the call and its charged (public) parameters.
     LATERAL (SELECT s.noise_sd, s.half_width
              FROM @extschema@.series_accuracy(r.request #>> '{arguments,1}', (r.request #>> '{arguments,2}')::float8,
                       (r.request #>> '{arguments,3}')::int4, (r.request #>> '{arguments,4}')::int4,
                       pg_catalog.translate(r.parameters ->> 'bounds', '[]', '{}')::float8[],
                       (r.parameters ->> 'length')::int4, 0.95,
                       (r.parameters #>> '{private_selection,k_share}')::float8,
                       (r.parameters #>> '{private_selection,bounds_share}')::float8) s
              WHERE s.feature::text = e.feature) a,
     LATERAL pg_catalog.jsonb_array_elements(e.series) WITH ORDINALITY AS p(v, t),
     LATERAL (SELECT (p.v #>> '{}')::float8 AS value) v
WHERE r.request ->> 'function' = 'release_feature_series' AND pg_catalog.pg_has_role(r.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_series_points IS
    'The points of the caller''s stored release_feature_series results: one row per participant, recording, '
    'feature and position t (from 1), with the accuracy of its feature (series_accuracy of the call: noise_sd and '
    'the 95 % interval [ci_low, ci_high] of the clipped truth; a bound with private selection). Privacy: released '
    'values only; free to read.';

CREATE VIEW @extschema@.my_kaleido_points WITH (security_barrier) AS
SELECT r.ledger_id, r.stored_at, r.dataset, r.request #>> '{arguments,1}' AS participant, e.t_ms, e.x, e.y,
       e.published, e.action, e.epsilon_spent, e.noise_radius
FROM @extschema@.releases r,
     LATERAL pg_catalog.jsonb_to_recordset(r.result) AS e(t_ms float8, x float8, y float8, published boolean,
                                                          action text, epsilon_spent float8, noise_radius float8)
WHERE r.request ->> 'function' = 'release_kaleido' AND pg_catalog.pg_has_role(r.role, 'MEMBER');
COMMENT ON VIEW @extschema@.my_kaleido_points IS
    'The points of the caller''s stored release_kaleido streams, each with its noise_radius (the released point '
    'lies within it of the true position at its publishing sample with probability >= 95 %; NULL in streams '
    'stored before it existed). Privacy: released values only; free to read.';

REVOKE ALL ON @extschema@.my_datasets, @extschema@.my_release_policies, @extschema@.my_budgets, @extschema@.my_ledger,
              @extschema@.my_releases, @extschema@.my_release_rows, @extschema@.my_released_counts,
              @extschema@.my_heatmap_cells, @extschema@.my_series_points, @extschema@.my_kaleido_points FROM PUBLIC;
GRANT SELECT ON @extschema@.my_datasets, @extschema@.my_release_policies, @extschema@.my_budgets, @extschema@.my_ledger,
                @extschema@.my_releases, @extschema@.my_release_rows, @extschema@.my_released_counts,
                @extschema@.my_heatmap_cells, @extschema@.my_series_points, @extschema@.my_kaleido_points
    TO gazepriv_analyst, gazepriv_curator;
