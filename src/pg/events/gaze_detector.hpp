// Reading the gazepriv.event_detector and gazepriv.viewing_geometry composite arguments.
#pragma once

#include "core/events/gaze_events.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

namespace gazepriv::pg {

// Argument i (an event_detector) as plain parameters. Call before any C++ object exists in the body
// (reading a composite can raise a PostgreSQL error). Throws InvalidArgument for an unknown method
// or projection; the numbers are validated by the core.
core::DetectorParams detector_arg(FunctionCallInfo fcinfo, int i);

} // namespace gazepriv::pg
