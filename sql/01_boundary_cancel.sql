-- Long loops in the C++ core poll PostgreSQL's interrupt flags: statement_timeout (and Ctrl-C) stop them
-- promptly with the server's own error (57014), after every C++ frame has been unwound.
-- choose_k below would release a 200,000-sample series 10,000 times per candidate k: minutes of work.
CREATE TEMP TABLE cancel_started AS SELECT clock_timestamp() AS started;
SET statement_timeout = '500ms';
SELECT count(*) FROM gazepriv.choose_k(array_fill(1.0::float8, ARRAY[200000]), 1, ARRAY[1.0], runs => 10000);
RESET statement_timeout;
SELECT clock_timestamp() - started < interval '10 s' AS cancelled_promptly FROM cancel_started;
-- The backend is fine afterwards: the next statements run normally.
SELECT round(gazepriv.gaussian_sigma(1, 1, 1e-5)::numeric, 4) AS still_working;
