-- Last fragment: internal functions (names starting with "_") are not callable by PUBLIC. Release
-- functions call them as the extension's owner; aggregates check their support functions against the
-- aggregate's owner.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = '@extschema@'::regnamespace AND p.proname LIKE '\_%' LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END $$;
