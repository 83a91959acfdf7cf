-- Exact capped gaze maps (gaze_map) on hand-made inputs: capping, grid edges, dropped points, cell sizes.
CREATE TABLE gazepriv_test.hm_points (participant text, pid bigint, x float8, y float8);
INSERT INTO gazepriv_test.hm_points VALUES
    ('a', 1, 0.5, 0.5), ('a', 1, 0.9, 0.1), ('a', 1, 0.0, 0.0),   -- three points of a in cell (0,0)
    ('a', 1, 1.5, 0.5),                                            -- one in (1,0)
    ('b', 2, 0.5, 0.5),                                            -- b in (0,0)
    ('b', 2, 3.999, 3.999),                                        -- the last cell, just inside
    ('b', 2, 4.0, 0.5), ('b', 2, 0.5, 4.0),                        -- on the far edges: outside, dropped
    ('b', 2, -0.001, 1.0), ('b', 2, 1.0, -1e9),                    -- negative: dropped
    ('c', 3, 'NaN', 1.0), ('c', 3, 1.0, 'Infinity'), ('c', 3, '-Infinity', 1.0), -- c has no usable point
    ('d', 4, NULL, 2.5),                                           -- a NULL coordinate: point dropped
    (NULL, NULL, 2.5, 2.5);                                        -- no participant: row ignored

-- 4 x 4 grid of 1 px cells, cap 1: cell (0,0) has a and b -> 2 / n, n = 4 participants (a, b, c, d).
SELECT (m).n, (m).cap, (m).columns, (m).rows, (m).mechanism, (m).epsilon IS NULL AS no_epsilon,
       (m).values AS "values" FROM (SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 1) m FROM gazepriv_test.hm_points) s;
-- Cap 2: a contributes min(3, 2) = 2 to cell (0,0); cap 5: all 3.
SELECT cap, (gazepriv.gaze_map(participant, x, y, 4, 4, cap)).values[1] * 4 AS capped_sum_of_cell_0
FROM gazepriv_test.hm_points, (VALUES (1), (2), (5)) c(cap) GROUP BY cap ORDER BY cap;
-- 2 px cells on a 5 x 3 grid: 3 x 2 cells; (3.999, 3.999) is outside the 3 px high grid.
SELECT (m).columns, (m).rows, (m).values FROM (
    SELECT gazepriv.gaze_map(participant, x, y, 5, 3, 1, 2) m FROM gazepriv_test.hm_points) s;
-- bigint participants give the same map.
SELECT (SELECT (gazepriv.gaze_map(pid, x, y, 4, 4, 2)).values FROM gazepriv_test.hm_points)
     = (SELECT (gazepriv.gaze_map(participant, x, y, 4, 4, 2)).values FROM gazepriv_test.hm_points) AS bigint_equals_text;
-- No rows: NULL (nothing to release).
SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 1) IS NULL AS empty_is_null FROM gazepriv_test.hm_points WHERE false;
-- Groups are separate maps.
SELECT participant, (gazepriv.gaze_map(participant, x, y, 2, 1, 3)).values FROM gazepriv_test.hm_points
WHERE participant IN ('a', 'b') GROUP BY participant ORDER BY participant;

-- Bad parameters: 22023 naming the parameter; they cannot change between the rows of a group.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.gaze_map(participant, x, y, 0, 4, 1) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 4, -1, 1) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 0) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 1, 0) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, NULL, 4, 1) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 100000, 100000, 1) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 4, 4, (x > 1)::int + 1) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 1) OVER () FROM gazepriv_test.hm_points$$]) q;
-- The cell limit is a setting.
SET gazepriv.max_heatmap_cells = 15;
SELECT gazepriv_test.error_of($$SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 1) FROM gazepriv_test.hm_points$$);
SELECT (gazepriv.gaze_map(participant, x, y, 4, 4, 1, 2)).columns AS coarser_grid_fits FROM gazepriv_test.hm_points;
RESET gazepriv.max_heatmap_cells;
