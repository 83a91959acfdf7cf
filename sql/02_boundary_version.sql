-- A library never runs under SQL objects of another version (a library installed over an older catalog would
-- read argument lists and aggregate states of another layout): every function refuses with 55000 in a session
-- whose first call finds pg_extension.extversion different from the library's version.
SELECT extversion = gazepriv.version() AS objects_match_library FROM pg_extension WHERE extname = 'gazepriv';
UPDATE pg_extension SET extversion = '0.1.0' WHERE extname = 'gazepriv';
\c -
\set VERBOSITY sqlstate
SELECT gazepriv.version();
SELECT gazepriv.discrete_laplace_noise(1);
SELECT gazepriv.make_trace(t, x, y) FROM (VALUES (1.0::float8, 2.0::float8, 3.0::float8)) v(t, x, y);
\set VERBOSITY default
SELECT gazepriv.version();
-- objects and library agree again: the next session runs
UPDATE pg_extension SET extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'gazepriv')
 WHERE extname = 'gazepriv';
\c -
SELECT extversion = gazepriv.version() AS objects_match_library FROM pg_extension WHERE extname = 'gazepriv';
