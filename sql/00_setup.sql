-- Shared helpers for the regression tests (the database persists across the test files of one run).
CREATE SCHEMA gazepriv_test;

-- Runs a statement and returns 'SQLSTATE: message' for its error, or 'no error'.
CREATE FUNCTION gazepriv_test.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- The helpers are for every test role; gazepriv_test_user is a role without privileges.
GRANT USAGE ON SCHEMA gazepriv_test TO PUBLIC;
CREATE ROLE gazepriv_test_user NOLOGIN;

SELECT extname, extversion, nspname AS schema
FROM pg_extension JOIN pg_namespace n ON n.oid = extnamespace WHERE extname = 'gazepriv';
