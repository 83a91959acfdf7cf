#!/usr/bin/env bash
# D1: only the trigger writes a live feed's published table. Before, the device needed (and so held) INSERT on
# the published table and could insert raw positions marked published = t, indistinguishable from releases;
# now the trigger writes it as the feed's owner and the device holds INSERT on the source only.
. "$(dirname "$0")/roles_and_data.bash"
. "$(dirname "$0")/live_feed.bash"
attach_feed
check "the device inserts samples into the source" \
    "$(sqlstate device "INSERT INTO sandbox_curator_a.gaze SELECT '7', i * 10, 0.5, 0.5 FROM generate_series(1, 50) i")" ok
check "and the trigger releases every one (as the feed's owner)" "$(released "WHERE participant = '7'")" 50
check "the device cannot insert raw positions into the published table" \
    "$(sqlstate device "INSERT INTO sandbox_curator_a.gaze_released VALUES ('7', 600, 0.5, 0.5, true, 'published', 0.1)")" 42501
check "nor update or delete releases" \
    "$(sqlstate device "UPDATE sandbox_curator_a.gaze_released SET x = 0.5")" 42501
check "nor read its own raw samples back" "$(sqlstate device "SELECT count(*) FROM sandbox_curator_a.gaze")" 42501
check "an analyst reads releases only" \
    "$(sqlstate analyst_a "INSERT INTO sandbox_curator_a.gaze_released VALUES ('7', 600, 0.5, 0.5, true, 'published', 0.1)")" 42501
check "no published row is a raw sample at the same time (the releases are noisy)" \
    "$(psql -At -c "SELECT count(*) FROM sandbox_curator_a.gaze_released WHERE action = 'published' AND x = 0.5 AND y = 0.5")" 0
finish
