// The resource limits (issue 14, item 7): superuser-only settings (PGC_SUSET) that bound every size an
// argument can make one statement allocate, read or loop over. Each is checked before anything is
// allocated, read or charged; exceeding one is ERROR 54000 naming the setting. The heatmap's
// gazepriv.max_heatmap_cells is registered with the heatmap (pg/heatmap/heatmap_settings).
#pragma once

#include <cstdint>

namespace gazepriv::pg {

// Registers the settings; called from _PG_init.
void define_limit_settings();

// gazepriv.max_series_length: the longest padded signal a series release, preview or cost may ask for.
std::int64_t max_series_length();
// gazepriv.max_series_values: the most values (features x participants or recordings x padded length) one
// series statement may hold.
std::int64_t max_series_values();
// gazepriv.max_kaleido_streams_per_statement: the most distinct streams one INSERT into a live feed may
// touch.
std::int64_t max_kaleido_streams_per_statement();
// gazepriv.max_kaleido_streams: the most stream-state rows one live feed may keep.
std::int64_t max_kaleido_streams();
// gazepriv.max_training_saccades: the most saccades train_saccade_model may train one model on.
std::int64_t max_training_saccades();

} // namespace gazepriv::pg
