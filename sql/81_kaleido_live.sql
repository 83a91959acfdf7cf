-- Kaleido live: a trigger releases inserted samples into a published table, continuing each stream's
-- state across statements and transactions; the raw table can be hidden. Concurrency: test/isolation.
CREATE SCHEMA kaleido_live;
SET search_path = kaleido_live, public;
CREATE TABLE hoppe (participant text, t_ms float8, x float8, y float8, pupil_right float8, pupil_left float8,
                    event text);
\copy hoppe FROM 'test/data/hoppe2018_everyday/participant_00_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe FROM 'test/data/hoppe2018_everyday/participant_02_first_minute.csv' WITH (FORMAT csv, HEADER true)

-- The live system inserts into gaze; kaleido_attach creates gaze_released and the trigger.
CREATE TABLE gaze (participant text, t_ms float8, x float8, y float8);
SELECT gazepriv.kaleido_attach('gaze', 'gaze_released', 'participant', epsilon => 1, w => 60, r => 0.05);
\d gaze_released
SELECT pg_get_triggerdef(oid) AS trigger FROM pg_trigger WHERE tgrelid = 'gaze'::regclass;

-- One stream fed by many statements in several transactions gives exactly the batch release under the
-- same seed: the same samples, in the same order, the same noise draws.
SET gazepriv.seed = 7101;
INSERT INTO gaze SELECT participant, t_ms, x, y FROM hoppe WHERE participant = '0' ORDER BY t_ms LIMIT 1;
BEGIN;
INSERT INTO gaze SELECT participant, t_ms, x, y FROM hoppe WHERE participant = '0' ORDER BY t_ms OFFSET 1 LIMIT 1;
INSERT INTO gaze SELECT participant, t_ms, x, y FROM hoppe WHERE participant = '0' ORDER BY t_ms OFFSET 2 LIMIT 98;
COMMIT;
BEGIN;
INSERT INTO gaze SELECT participant, t_ms, x, y FROM hoppe WHERE participant = '0' ORDER BY t_ms OFFSET 100 LIMIT 900;
COMMIT;
INSERT INTO gaze SELECT participant, t_ms, x, y FROM hoppe WHERE participant = '0' ORDER BY t_ms OFFSET 1000;
SET gazepriv.seed = 7101;
CREATE TABLE batch AS
SELECT k.* FROM (SELECT array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x, array_agg(y ORDER BY t_ms) y
                 FROM hoppe WHERE participant = '0') s,
               gazepriv.kaleido(s.t, s.x, s.y, 1, 60, 0.05, t_skip => 50, max_tests => 20) k;
SELECT (SELECT count(*) FROM gaze_released) AS live_rows, (SELECT count(*) FROM batch) AS batch_rows,
       (SELECT count(*) FROM (SELECT t_ms, x, y, published, action, epsilon_spent, noise_radius FROM gaze_released
                              EXCEPT SELECT * FROM batch) d) AS rows_that_differ,
       (SELECT count(*) FILTER (WHERE published) FROM batch) > 100 AS many_releases;
SELECT stream, samples, releases = (SELECT count(*) FILTER (WHERE published) FROM batch) AS releases_counted,
       last_t_ms = (SELECT max(t_ms) FROM batch) AS last_t_ms_kept
FROM gazepriv.kaleido_streams WHERE source = 'gaze'::regclass;

-- A rolled-back insert leaves neither releases nor state behind; the stream goes on afterwards.
BEGIN;
INSERT INTO gaze VALUES ('0', 100000, 0.5, 0.5), ('0', 100100, 0.9, 0.9);
SELECT count(*) AS released_inside_the_transaction FROM gaze_released WHERE t_ms >= 100000;
ROLLBACK;
SELECT (SELECT count(*) FROM gaze_released WHERE t_ms >= 100000) AS released_after_rollback,
       (SELECT samples FROM gazepriv.kaleido_streams WHERE stream = '0') AS samples_after_rollback;
INSERT INTO gaze VALUES ('0', 100000, 0.5, 0.5);
SELECT samples FROM gazepriv.kaleido_streams WHERE stream = '0';

-- Bad input fails the statement and leaves the stream as it was (never a stuck state).
SELECT gazepriv_test.error_of(q) AS error FROM unnest(ARRAY[
    $$INSERT INTO kaleido_live.gaze VALUES ('0', 99999, 0.5, 0.5)$$,
    $$INSERT INTO kaleido_live.gaze VALUES ('0', 'NaN', 0.5, 0.5)$$,
    $$INSERT INTO kaleido_live.gaze VALUES ('0', NULL, 0.5, 0.5)$$,
    $$INSERT INTO kaleido_live.gaze VALUES (NULL, 100001, 0.5, 0.5)$$,
    $$INSERT INTO kaleido_live.gaze VALUES ('0', 110000, 0.5, 0.5), ('0', 109999, 0.5, 0.5)$$,
    $$SELECT gazepriv.kaleido_publish()$$,
    $$SELECT gazepriv.kaleido_attach('kaleido_live.gaze', 'x', 'nope', 1, 60, 1)$$,
    $$SELECT gazepriv.kaleido_attach('kaleido_live.gaze', 'x', 'participant', 1, 0, 1)$$,
    $$SELECT gazepriv.kaleido_attach('kaleido_live.gaze', 'a.b.c', 'participant', 1, 60, 1)$$,
    $$SELECT gazepriv.kaleido_attach('kaleido_live.gaze', 'hoppe', 'participant', 1, 60, 1)$$]) q;
SELECT samples FROM gazepriv.kaleido_streams WHERE stream = '0';
-- Missing positions are released as repeats.
INSERT INTO gaze VALUES ('0', 100200, NULL, 0.5), ('0', 100300, 'NaN', 0.5);
SELECT t_ms, action, epsilon_spent FROM gaze_released WHERE t_ms > 100100 ORDER BY t_ms;

-- The trigger must be a statement-level AFTER INSERT trigger with a transition table.
CREATE TABLE wrong (participant text, t_ms float8, x float8, y float8);
CREATE TRIGGER per_row AFTER INSERT ON wrong FOR EACH ROW
    EXECUTE FUNCTION gazepriv.kaleido_publish('published=kaleido_live.gaze_released', 'stream=participant',
                                              'epsilon=1', 'w=60', 'r=1');
SELECT gazepriv_test.error_of($$INSERT INTO kaleido_live.wrong VALUES ('a', 1, 1, 1)$$) AS error;
DROP TRIGGER per_row ON wrong;
CREATE TRIGGER unknown_argument AFTER INSERT ON wrong REFERENCING NEW TABLE AS n FOR EACH STATEMENT
    EXECUTE FUNCTION gazepriv.kaleido_publish('published=kaleido_live.gaze_released', 'stream=participant',
                                              'epsilon=1', 'w=60', 'r=1', 'radius=3');
SELECT gazepriv_test.error_of($$INSERT INTO kaleido_live.wrong VALUES ('a', 1, 1, 1)$$) AS error;
DROP TABLE wrong;

-- Several streams in one statement (COPY-like bulk insert): each keeps its own window accounting.
INSERT INTO gaze SELECT participant, t_ms, x, y FROM hoppe WHERE participant = '2' ORDER BY t_ms, participant;
INSERT INTO gaze SELECT 'extra', t_ms, x, y FROM hoppe WHERE participant = '2' ORDER BY t_ms;
WITH r AS (SELECT *, row_number() OVER (PARTITION BY participant ORDER BY t_ms) AS i FROM gaze_released),
windows AS (SELECT participant, sum(epsilon_spent) OVER w AS spent FROM r
            WINDOW w AS (PARTITION BY participant ORDER BY i ROWS BETWEEN 59 PRECEDING AND CURRENT ROW))
SELECT participant, count(*) AS samples, bool_and(spent <= 1) AS every_window_within_epsilon FROM windows
GROUP BY participant ORDER BY participant;

-- Each published row carries kaleido()'s noise_radius (NULL exactly when there is no point yet; repeats keep
-- the radius of the point they repeat). A published table made without the column keeps working.
SELECT bool_and((noise_radius IS NULL) = (x IS NULL)) AS radius_exactly_when_a_point,
       bool_and(noise_radius > 0) FILTER (WHERE published) AS published_rows_have_one
FROM gaze_released;
CREATE TABLE no_radius (participant text, t_ms float8, x float8, y float8);
CREATE TABLE no_radius_released (participant text NOT NULL, t_ms float8 NOT NULL, x float8, y float8,
                                 published boolean NOT NULL, action text NOT NULL, epsilon_spent float8 NOT NULL);
SELECT gazepriv.kaleido_attach('no_radius', 'no_radius_released', 'participant', epsilon => 1, w => 60, r => 0.05);
INSERT INTO no_radius VALUES ('a', 0, 0.5, 0.5), ('a', 100, 0.9, 0.1);
SELECT count(*) AS released_without_the_column FROM no_radius_released;
DROP TABLE no_radius, no_radius_released;

-- Other parameters for a running stream fail closed until the stream is reset by the table's owner.
DROP TRIGGER kaleido_publish ON gaze;
SELECT gazepriv.kaleido_attach('gaze', 'gaze_released', 'participant', epsilon => 2, w => 60, r => 0.05);
SELECT gazepriv_test.error_of($$INSERT INTO kaleido_live.gaze VALUES ('0', 200000, 0.5, 0.5)$$) AS error;
INSERT INTO gaze VALUES ('new stream', 1, 0.5, 0.5);
SELECT gazepriv.kaleido_reset('gaze', '0') AS streams_forgotten;
INSERT INTO gaze VALUES ('0', 200000, 0.5, 0.5);
SELECT action, round(epsilon_spent::numeric, 6) AS epsilon_spent FROM gaze_released WHERE t_ms = 200000;

-- Roles: the device inserts raw samples, the analyst reads only releases; neither touches the state.
CREATE ROLE kaleido_device;
CREATE ROLE kaleido_analyst;
GRANT gazepriv_test_user TO kaleido_device, kaleido_analyst; -- for gazepriv_test.error_of
GRANT USAGE ON SCHEMA kaleido_live TO kaleido_device, kaleido_analyst;
GRANT INSERT ON gaze, gaze_released TO kaleido_device;
GRANT SELECT ON gaze_released TO kaleido_analyst;
SET ROLE kaleido_device;
INSERT INTO gaze VALUES ('0', 200100, 0.4, 0.4);
SELECT gazepriv_test.error_of(q) AS device_cannot FROM unnest(ARRAY[
    $$SELECT count(*) FROM kaleido_live.gaze$$,
    $$SELECT count(*) FROM gazepriv.kaleido_streams$$,
    $$UPDATE gazepriv.kaleido_streams SET samples = 0$$,
    $$SELECT gazepriv.kaleido_reset('kaleido_live.gaze')$$]) q;
RESET ROLE;
SET ROLE kaleido_analyst;
SELECT count(*) > 0 AS analyst_reads_releases FROM gaze_released;
SELECT gazepriv_test.error_of(q) AS analyst_cannot FROM unnest(ARRAY[
    $$SELECT count(*) FROM kaleido_live.gaze$$,
    $$INSERT INTO kaleido_live.gaze VALUES ('0', 300000, 0.5, 0.5)$$,
    $$SELECT count(*) FROM gazepriv.kaleido_streams$$]) q;
RESET ROLE;
SELECT samples FROM gazepriv.kaleido_streams WHERE stream = '0';

SELECT gazepriv.kaleido_reset('gaze') AS streams_forgotten;
RESET gazepriv.seed;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA kaleido_live CASCADE;
RESET client_min_messages;
DROP ROLE kaleido_device;
DROP ROLE kaleido_analyst;
