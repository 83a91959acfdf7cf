-- Loading real gaze data: Uniss-FGD face image 2 (20 people, 300 Hz) and a minute of Hoppe 2018
CREATE EXTENSION gazepriv;

-- Raw samples in the canonical shape (participant, stimulus, t_ms, x, y), screen pixels.
\ir uniss_tables.psql
\copy uniss_samples FROM 'test/data/uniss_fgd/img_002.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE uniss_participants (participant text PRIMARY KEY, gender text, recording_date date, screen text);
\copy uniss_participants FROM 'test/data/uniss_fgd/participants.csv' WITH (FORMAT csv, HEADER true)

-- Head-mounted recordings (Hoppe 2018).
\ir hoppe_tables.psql
\copy hoppe_samples FROM 'test/data/hoppe2018_everyday/participant_00_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe_samples FROM 'test/data/hoppe2018_everyday/participant_02_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe_samples FROM 'test/data/hoppe2018_everyday/participant_05_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe_samples FROM 'test/data/hoppe2018_everyday/participant_09_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe_participants FROM 'test/data/hoppe2018_everyday/participants.csv' WITH (FORMAT csv, HEADER true)
-- Their feature windows (participant, task, window, features), built with the events functions: the events
-- demo (50_events.sql) explains them; the series, k-anonymity and plausible-deniability demos release them.
\ir hoppe_features.psql

SELECT 'uniss_samples' AS "table", count(*) AS rows, count(DISTINCT participant) AS participants FROM uniss_samples
UNION ALL SELECT 'hoppe_samples', count(*), count(DISTINCT participant) FROM hoppe_samples
UNION ALL SELECT 'hoppe_participants', count(*), count(*) FROM hoppe_participants;
