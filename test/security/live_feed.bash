# Shared by the live-feed scripts d1..d4 (sourced after roles_and_data.bash): curator_a's feed
# sandbox_curator_a.gaze -> gaze_released, and a device role that holds INSERT on the source only.
psql -c "CREATE ROLE device LOGIN NOSUPERUSER" -c "GRANT USAGE ON SCHEMA sandbox_curator_a TO device" >/dev/null
# attach_feed [ARGS]: (re)creates the feed with kaleido_attach's extra named ARGS.
attach_feed() {
    as curator_a <<SQL >/dev/null
SET client_min_messages = warning;
DROP TABLE IF EXISTS sandbox_curator_a.gaze, sandbox_curator_a.gaze_released;
CREATE TABLE sandbox_curator_a.gaze (participant text, t_ms float8, x float8, y float8);
SELECT gazepriv.kaleido_attach('sandbox_curator_a.gaze', 'gaze_released', 'participant', epsilon => 1, w => 10,
                               r => 0.05 ${1:-});
GRANT INSERT ON sandbox_curator_a.gaze TO device;
GRANT SELECT ON sandbox_curator_a.gaze_released TO analyst_a;
SQL
}
released() { psql -At -c "SELECT count(*) FROM sandbox_curator_a.gaze_released ${1:-}"; }
states() { psql -At -c "SELECT count(*) FROM gazepriv.kaleido_streams ${1:-}"; }
