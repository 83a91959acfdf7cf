-- A live Kalεido feed on Citus (issue 16.4): devices insert their samples through the coordinator into a
-- plain table there, whose trigger releases each sample into a published table distributed by the stream
-- column. The published stream is what a local feed publishes under the same seed, it lands in the shards
-- of its devices, and streams continue across statements.
CREATE TABLE citus_test.feed_local (device text, t_ms float8, x float8, y float8);
CREATE TABLE citus_test.feed_local_out (device text NOT NULL, t_ms float8 NOT NULL, x float8, y float8,
                                        published boolean NOT NULL, action text NOT NULL, epsilon_spent float8 NOT NULL);
CREATE TABLE citus_test.feed (LIKE citus_test.feed_local);
SELECT citus_test.copy_distributed('citus_test.feed_local_out', 'citus_test.feed_out', 'device');
SELECT gazepriv.kaleido_attach('citus_test.feed_local', 'citus_test.feed_local_out', 'device', 1, 30, 20);
SELECT gazepriv.kaleido_attach('citus_test.feed', 'citus_test.feed_out', 'device', 1, 30, 20);
-- Three devices' real samples (participants 00, 01, 02 of the Uniss-FGD slice), in two batches each.
CREATE FUNCTION citus_test.feed(tab text, seed int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('gazepriv.seed', seed::text, true);
    FOR batch IN 0..1 LOOP
        EXECUTE format('INSERT INTO %s SELECT participant, t_ms, x, y FROM citus_test.gaze_local
                        WHERE participant IN (''00'', ''01'', ''02'') AND (stimulus < 7) = ($1 = 0) ORDER BY participant, t_ms',
                       tab) USING batch;
    END LOOP;
END $$;
SELECT citus_test.feed('citus_test.feed_local', 21), citus_test.feed('citus_test.feed', 21);
SELECT (SELECT count(*) FROM citus_test.feed_out) AS published_rows,
       (SELECT count(*) FROM citus_test.feed_out WHERE published) AS releases,
       NOT EXISTS (SELECT * FROM citus_test.feed_out EXCEPT SELECT * FROM citus_test.feed_local_out)
       AND NOT EXISTS (SELECT * FROM citus_test.feed_local_out EXCEPT SELECT * FROM citus_test.feed_out) AS same_as_local;
-- Each device's releases are in the shard of that device.
SELECT bool_and(get_shard_id_for_distribution_column('citus_test.feed_out', d) = p.shardid) AS in_their_shards,
       count(*) AS devices
FROM run_command_on_placements('citus_test.feed_out', $$SELECT string_agg(DISTINCT device, ',') FROM %s$$) p,
     unnest(string_to_array(p.result, ',')) d;
