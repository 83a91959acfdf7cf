-- TEMPORARY, until the feature extraction of the events issue is merged (then: gazepriv.feature_windows).
-- Windowed feature vectors of the Hoppe et al. recordings in plain SQL, in the canonical shape
-- (participant, task, "window", features float8[]). Tasks: way_out (before entering the shop), shop,
-- way_back (after leaving it), from participants.csv. Samples are grouped into 0.5 s bins (a bin belongs to
-- the task in which it starts); a window is :window_bins consecutive bins of one task, one every
-- :step_bins bins, numbered from 1 per (participant, task). Gaze outside [-1, 2]^2 or missing is invalid;
-- pupil is the mean of the eyes with a diameter above 0. Features (10): mean x, mean y, sd x, sd y of valid
-- gaze, mean and sd of the pupil, fraction of samples without valid gaze, fraction without pupil, fraction
-- labelled saccade and fraction labelled blink by the tracker (SMI BeGaze).
-- psql variables: :table (the result), :window_bins, :step_bins.
DROP TABLE IF EXISTS kanon_bins;
CREATE TEMP TABLE kanon_bins AS
SELECT participant, bin, task, count(*) AS n,
       count(*) FILTER (WHERE valid) AS nv,
       coalesce(sum(x) FILTER (WHERE valid), 0) AS sx, coalesce(sum(y) FILTER (WHERE valid), 0) AS sy,
       coalesce(sum(x * x) FILTER (WHERE valid), 0) AS sxx, coalesce(sum(y * y) FILTER (WHERE valid), 0) AS syy,
       count(pupil) AS np, coalesce(sum(pupil), 0) AS sp, coalesce(sum(pupil * pupil), 0) AS spp,
       count(*) FILTER (WHERE event = 'S') AS ns, count(*) FILTER (WHERE event = 'B') AS nb
FROM (
    SELECT s.participant, floor(s.t_ms / 500)::int AS bin,
           CASE WHEN floor(s.t_ms / 500) * 500 < p.shop_enter_s * 1000 THEN 'way_out'
                WHEN floor(s.t_ms / 500) * 500 < p.shop_leave_s * 1000 THEN 'shop' ELSE 'way_back' END AS task,
           coalesce(s.x BETWEEN -1 AND 2 AND s.y BETWEEN -1 AND 2, false) AS valid, s.x, s.y, s.event,
           (SELECT avg(e) FROM unnest(ARRAY[s.pupil_left, s.pupil_right]) e WHERE e > 0) AS pupil
    FROM hoppe_samples s JOIN hoppe_participants p USING (participant)) b
GROUP BY participant, bin, task;

DROP TABLE IF EXISTS :table;
CREATE TABLE :table AS
SELECT participant, task, (row_number() OVER (PARTITION BY participant, task ORDER BY bin))::int AS "window",
       ARRAY[sx / nv, sy / nv, sqrt(greatest(sxx / nv - (sx / nv) ^ 2, 0)), sqrt(greatest(syy / nv - (sy / nv) ^ 2, 0)),
             sp / np, sqrt(greatest(spp / np - (sp / np) ^ 2, 0)), 1 - nv::float8 / n, 1 - np::float8 / n,
             ns::float8 / n, nb::float8 / n]::float8[]
           AS features
FROM (
    SELECT participant, task, bin, min(bin) OVER t AS first_bin, count(*) OVER w AS bins, max(bin) OVER w AS last_bin,
           sum(n) OVER w AS n, sum(nv) OVER w AS nv, sum(sx) OVER w AS sx, sum(sy) OVER w AS sy,
           sum(sxx) OVER w AS sxx, sum(syy) OVER w AS syy, sum(np) OVER w AS np, sum(sp) OVER w AS sp,
           sum(spp) OVER w AS spp, sum(ns) OVER w AS ns, sum(nb) OVER w AS nb
    FROM kanon_bins
    WINDOW t AS (PARTITION BY participant, task),
           w AS (PARTITION BY participant, task ORDER BY bin ROWS BETWEEN CURRENT ROW AND :window_bins - 1 FOLLOWING)) s
WHERE bins = :window_bins AND last_bin = bin + :window_bins - 1 AND (bin - first_bin) % :step_bins = 0
  AND nv > 0 AND np > 0;
