-- From raw samples to fixations, saccades and feature windows (curator-side preprocessing, no noise)
\echo 'One trace per participant (make_trace), then events per trace (detect_events, LATERAL).'
\echo 'Uniss-FGD: 1280 x 1024 px screen of 1040 x 580 mm (non-square pixels) seen from 1.37 m;'
\echo 'I-VT at 30 deg/s over a 20 ms window, gaps up to 75 ms bridged: the settings of Tobii''s filter.'
CREATE TABLE uniss_traces AS
SELECT participant, stimulus, gazepriv.make_trace(t_ms, x, y, (pupil_left + pupil_right) / 2) AS trace
FROM uniss_samples GROUP BY participant, stimulus;
\set tobii_ivt 'gazepriv.ivt(30, velocity_window_ms => 20, gap_fill_ms => 75, geometry => gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))'

\echo
\echo 'Participant 03 on face image 2: positions in screen pixels, amplitudes in degrees, velocities in deg/s;'
\echo 'saccades carry the Gaussian velocity profile v(tau) = a exp(-(tau - b)^2 / 2c^2) (tau in ms from the start).'
SELECT e.event_index AS "#", e.type, e.start_ms - min(e.start_ms) OVER () AS start_ms, e.duration_ms AS ms,
       round(e.centroid_x) AS x, round(e.centroid_y) AS y, round(e.sigma_x::numeric, 1) AS sd_x,
       round(e.amplitude::numeric, 2) AS amplitude, round(e.peak_velocity) AS peak_v,
       round(e.profile_a) AS a, round(e.profile_b::numeric, 1) AS b, round(e.profile_c::numeric, 1) AS c
FROM uniss_traces s, gazepriv.detect_events(s.trace, :tobii_ivt) e
WHERE s.participant = '03' ORDER BY e.event_index LIMIT 12;

\echo
\echo 'Per participant: how long they fixate and how far they jump.'
SELECT s.participant, count(*) FILTER (WHERE type = 'fixation') AS fixations,
       round(avg(duration_ms) FILTER (WHERE type = 'fixation')) AS mean_fixation_ms,
       count(*) FILTER (WHERE type = 'saccade') AS saccades,
       round(avg(amplitude) FILTER (WHERE type = 'saccade')::numeric, 1) AS mean_amplitude_deg,
       round(avg(peak_velocity) FILTER (WHERE type = 'saccade')) AS mean_peak_deg_s
FROM uniss_traces s, gazepriv.detect_events(s.trace, :tobii_ivt) e
GROUP BY s.participant ORDER BY s.participant LIMIT 8;

\echo
\echo 'How often our sample labels agree with Tobii''s own (label_samples, materialised, then joined):'
WITH ours AS MATERIALIZED (
        SELECT s.participant, s.stimulus, l.t_ms, l.label FROM uniss_traces s, gazepriv.label_samples(s.trace, :tobii_ivt) l)
SELECT u.event AS tobii, count(*) FILTER (WHERE o.label = 'fixation') AS our_fixation,
       count(*) FILTER (WHERE o.label = 'saccade') AS our_saccade,
       count(*) FILTER (WHERE o.label IN ('missing', 'unclassified')) AS our_other
FROM ours o JOIN uniss_samples u USING (participant, stimulus, t_ms) GROUP BY u.event ORDER BY u.event;

\echo
\echo 'Hoppe 2018 (head-mounted, 60 Hz): split each recording at the shop''s enter and leave times into tasks,'
\echo 'then 30 s feature windows every 0.5 s (MPIIDPEye layout) with I-DT at 3 degrees in a 60 x 46 degree scene camera.'
\echo 'This is the table shape the k-same, plausible-deniability and FPA releases read: (participant, task, window, features).'
SELECT participant, task, count(*) AS windows, cardinality(min(features)) AS features_per_window
FROM hoppe_features GROUP BY 1, 2 ORDER BY 1, 2;

\echo
\echo 'The first window of participant 0, feature by feature (gazepriv.feature_catalog() documents each):'
SELECT c.feature AS "#", c.name, round(f.features[c.feature]::numeric, 3) AS value, c.unit
FROM hoppe_features f, gazepriv.feature_catalog() c
WHERE f.participant = '0' AND f.window = 1 ORDER BY c.feature;

\echo
\echo 'A feature over time: the fixation rate of each participant in the windows starting at 0, 15 and 30 s.'
SELECT participant, string_agg(round(features[2]::numeric, 1)::text, '  ' ORDER BY f.window) AS fixation_rate_per_s
FROM hoppe_features f WHERE f.window IN (1, 31, 61) GROUP BY participant ORDER BY participant;
