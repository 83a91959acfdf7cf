-- Progress of long calls (src/pg/boundary/progress.hpp) ---------------------------------------------------

CREATE FUNCTION @extschema@.progress_of_calls(OUT pid int4, OUT function text, OUT phase text, OUT done int8,
                                             OUT total int8, OUT started timestamptz)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'gazepriv_progress_of_calls' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION @extschema@.progress_of_calls() IS
    'The rows of the view progress (read that). Privacy: as the view''s; shows no data of a release.';

CREATE VIEW @extschema@.progress AS SELECT * FROM @extschema@.progress_of_calls();
COMMENT ON VIEW @extschema@.progress IS
    'One row per backend running a long gazepriv call (plausible-deniability synthesis so far): pid, function, '
    'phase, done of total units of that phase, started. Like pg_stat_activity, a role sees the calls of roles '
    'it has the privileges of (all with pg_read_all_stats). done and total are NULL for a call running as a '
    'dataset''s owner on an analyst''s behalf (they describe data the analyst may not see) unless the reader '
    'has pg_read_all_stats. NOTICEs at gazepriv.progress_notice_interval are the fallback. Privacy: shows '
    'counts of the caller''s own call; nothing of an analyst release''s data.';
GRANT SELECT ON @extschema@.progress TO PUBLIC;
