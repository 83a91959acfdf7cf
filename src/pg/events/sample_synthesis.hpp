// The setting of synthesize_samples: gazepriv.max_synthesized_samples.
#pragma once

namespace gazepriv::pg {

// Registers the settings; called from _PG_init.
void define_synthesis_settings();

} // namespace gazepriv::pg
