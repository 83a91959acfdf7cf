-- release_k_same_synth: analysts receive k-same-synth streams of a registered events table under the owner's
-- policy (k, grouping, sampling rate), served once and logged as k_same_synth (epsilon 0), on the real-data
-- slice of 53_events_real_data (Uniss-FGD image 2, 20 participants, 300 Hz).
CREATE TABLE synth_release_events AS
SELECT t.participant AS person, 'img_002' AS image, e.*
FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y) AS trace FROM gazepriv_test.uniss GROUP BY 1) t,
     gazepriv.detect_events(t.trace, gazepriv.ivt(30, 0, 20, 75, 75,
                                                  gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e;
SELECT gazepriv.register_dataset('synth_rel', 'synth_release_events', 'person', task_column => 'image',
                                 observers => 20);
SELECT gazepriv.register_dataset('synth_no_events', 'gazepriv_test.uniss', 'participant', task_column => 'stimulus');
CREATE ROLE synth_analyst NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('synth_rel', 'synth_analyst', epsilon => 0, accounting => 'basic');

-- The owner's policy: validated, defaults filled in.
SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 4, "sampling_rate_hz": 300}');
SELECT policy FROM gazepriv.release_policies WHERE dataset = 'synth_rel';
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 4}')$$,
    $$SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 4, "sampling_rate_hz": 0}')$$,
    $$SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 4, "sampling_rate_hz": "300"}')$$,
    $$SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 4, "sampling_rate_hz": 300, "seed": 1}')$$,
    $$SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 4, "sampling_rate_hz": 300, "across_tasks": 1}')$$,
    $$SELECT gazepriv.set_release_policy('synth_no_events', 'k_same_synth', '{"k": 4, "sampling_rate_hz": 300}')$$]) q;
SELECT * FROM gazepriv.k_same_synth_cost(4, 300, source => 'synth_release_events');

-- The analyst cannot read the events, but receives every participant's stream, synthesised from groups of 4.
SET ROLE synth_analyst;
SELECT gazepriv_test.error_of($$SELECT count(*) FROM synth_release_events$$);
CREATE TEMP TABLE received AS SELECT * FROM gazepriv.release_k_same_synth('synth_rel');
WITH g AS (SELECT group_id, count(DISTINCT participant) AS members FROM received GROUP BY 1)
SELECT (SELECT count(DISTINCT participant) FROM received) AS participants, count(*) AS groups,
       min(members) AS smallest_group, max(members) AS largest_group,
       (SELECT bool_and(abs(t_ms * 0.3 - round(t_ms * 0.3)) < 1e-9) FROM received) AS on_the_300_hz_grid
FROM g;
-- Served once: a repeat, with or without the policy's own values, is the identical release.
SELECT count(*) AS differing_rows
FROM ((TABLE received EXCEPT ALL SELECT * FROM gazepriv.release_k_same_synth('synth_rel', 4, true, 300))
      UNION ALL (SELECT * FROM gazepriv.release_k_same_synth('synth_rel') EXCEPT ALL TABLE received)) d;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.release_k_same_synth('synth_rel', 2)$$,
    $$SELECT * FROM gazepriv.release_k_same_synth('synth_rel', across_tasks => false)$$,
    $$SELECT * FROM gazepriv.release_k_same_synth('synth_rel', sampling_rate_hz => 1000)$$,
    $$SELECT * FROM gazepriv.release_k_same_synth('synth_no_events')$$]) q;
RESET ROLE;
-- One ledger row, the analyst's, before the data was read; one stored release every analyst is served.
SELECT role, mechanism, guarantee, epsilon, delta, parameters FROM gazepriv.ledger
WHERE dataset = 'synth_rel' AND mechanism = 'k_same_synth';
SELECT mechanism, served_once, role, jsonb_array_length(result) = (SELECT count(*) FROM received) AS all_rows_stored
FROM gazepriv.releases WHERE dataset = 'synth_rel';
-- Only after a deliberate reset does a new policy (the paper's per-task variant) apply.
SELECT gazepriv_test.error_of($$SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth', '{"k": 5, "sampling_rate_hz": 300}')$$);
SELECT gazepriv.reset_release('synth_rel', 'k_same_synth') > 0 AS reset;
SELECT gazepriv.set_release_policy('synth_rel', 'k_same_synth',
                                   '{"k": 5, "sampling_rate_hz": 300, "across_tasks": false}');
SET ROLE synth_analyst;
SELECT count(DISTINCT participant) AS participants, max(group_id) AS groups
FROM gazepriv.release_k_same_synth('synth_rel');
RESET ROLE;
SELECT string_agg(format('%s %s', mechanism, coalesce(parameters ->> 'grouping', parameters ->> 'mechanism')), '; '
                  ORDER BY id) AS ledger
FROM gazepriv.ledger WHERE dataset = 'synth_rel' AND mechanism IN ('k_same_synth', 'reset_release');

-- Labels, frozen.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('k_same_synth', 'k_same_synth_cost', 'release_k_same_synth', 'synthesize_samples')
ORDER BY (p.oid::regprocedure)::text;

SELECT gazepriv.drop_dataset('synth_rel'), gazepriv.drop_dataset('synth_no_events');
DROP TABLE synth_release_events;
DROP OWNED BY synth_analyst;
DROP ROLE synth_analyst;
