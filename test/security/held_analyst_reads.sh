#!/usr/bin/env bash
# What held before the trust-boundary work and must keep holding: an analyst reads no raw row of a registered
# dataset by any route (SELECT, COPY, pg_dump, pg_stats), no catalog table (datasets, budgets, ledger,
# policies, stored releases), cannot set the test seed or call internal functions, and every SECURITY DEFINER
# function of the extension pins its search_path.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
as curator_a -c "SELECT gazepriv.register_dataset('uniss', 'public.uniss_samples', 'participant', observers => 20)" \
             -c "SELECT gazepriv.grant_budget('uniss', 'analyst_a', 1, 0, accounting => 'basic')" >/dev/null
psql -c "ANALYZE public.uniss_samples" >/dev/null
as analyst_a -c "SELECT gazepriv.release_count('uniss', 0.5)" >/dev/null

check "SELECT raw rows" "$(sqlstate analyst_a "SELECT count(*) FROM public.uniss_samples")" 42501
check "COPY raw rows" "$(sqlstate analyst_a "COPY public.uniss_samples TO STDOUT")" 42501
check "pg_dump raw rows" "$("$BIN/pg_dump" -U analyst_a -a -t public.uniss_samples postgres >/dev/null 2>&1 && echo dumped || echo refused)" refused
check "pg_stats of raw columns" "$(as analyst_a -c "SELECT count(*) FROM pg_stats WHERE tablename = 'uniss_samples'")" 0
for t in datasets budgets ledger; do
    check "read gazepriv.$t" "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.$t")" 42501
done
check "write the ledger" "$(sqlstate analyst_a "DELETE FROM gazepriv.ledger")" 42501
check "set the test seed" "$(sqlstate analyst_a "SELECT gazepriv.version(); SET gazepriv.seed = 1")" 42501
check "execute the charge worker's function" "$(psql -At -c "SELECT bool_or(has_function_privilege('analyst_a', p.oid,
    'EXECUTE')) FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname = '_apply_charge'")" f
check "an internal function callable by PUBLIC" "$(psql -At -c "SELECT count(*) FROM pg_proc p
    WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname LIKE '\\_%' AND has_function_privilege('public', p.oid, 'EXECUTE')")" 0
check "a SECURITY DEFINER function without a pinned search_path" "$(psql -At -c "SELECT count(*) FROM pg_proc p
    WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.prosecdef
      AND NOT EXISTS (SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%')")" 0
finish
