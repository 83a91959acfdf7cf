// The privacy audit of every releasing mechanism: for a mechanism, a pair of neighbouring inputs chosen the
// way an attacker would (worst case for its neighbouring relation), a way to draw outputs on both, and the
// statistics of each output the event search may threshold (statistics.hpp). Negative controls are
// deliberately broken variants (or paths documented as not private) that the audit must catch, so that a
// pass means something.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "statistics.hpp"

namespace gazepriv::audit {

enum class Expectation {
    Holds,   // a mechanism as shipped: its claim must survive the audit
    Violated // a negative control: the audit must catch it
};

struct AuditCase {
    std::string name;       // short identifier, e.g. "heatmap/laplace/partial-states"
    std::string mechanism;  // what is audited, for the table
    std::string neighbours; // the pair of inputs
    std::string path;       // "core" (the C++ core directly) or "SQL" (the SQL functions, CSPRNG)
    Claim claim;            // what the mechanism charges (for controls: what the broken variant claims)
    Expectation expect = Expectation::Holds;
    std::vector<std::string> statistics; // names of the columns the draws fill
    double draws = 1;                    // relative number of draws (slow mechanisms make fewer)
    // Fills first with n outputs of M(D) and second with n outputs of M(D'), summarised by `statistics`.
    std::function<void(std::size_t n, Draws& first, Draws& second)> draw;
};

// The audits of the core, drawing from the CSPRNG (never a seed).
void add_core_audits(std::vector<AuditCase>& cases);

// The audits through the SQL functions of a database with the extension (libpq connection string).
void add_sql_audits(std::vector<AuditCase>& cases, const std::string& conninfo);

} // namespace gazepriv::audit
