// Included last by every src/core header: the core is plain C++ and must never see PostgreSQL's
// headers (their macros redefine printf, Min, Max, ...). Glue files include core headers first.
#pragma once
#if defined(POSTGRES_H)
#error "src/core must not include PostgreSQL headers; include core headers before postgres.h"
#endif
