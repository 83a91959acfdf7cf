// gazepriv_audit: runs the privacy audit (audit.hpp) and prints one line per audit, "audit NAME ... ok" or
// "... FAILED", then a Markdown table of the results.
//
//   gazepriv_audit [--core] [--sql CONNINFO] [--full] [--only SUBSTRING] [--table FILE]
//
// --core audits the C++ core, --sql the SQL functions of the database CONNINFO names (both when neither is
// given... only the core: the SQL audits need a server). The fast form (default) makes 200,000 draws a side
// for the core and 20,000 through SQL (fewer for slow mechanisms); --full ten times as many.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "audit.hpp"

using namespace gazepriv::audit;

namespace {

std::string number(double v, int digits = 2) {
    if (std::isinf(v))
        return v > 0 ? "∞" : "−∞";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
    return buffer;
}

std::string delta_text(double delta) {
    if (delta == 0)
        return "0";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2g", delta);
    return buffer;
}

// A probability near 0 or 1 as "1 - 3e-9" or "2e-7".
std::string probability(double p) {
    char buffer[64];
    if (p < 1e-16)
        return "< 1e-16";
    if (p > 0.99)
        std::snprintf(buffer, sizeof buffer, "1 - %.1g", std::max(1 - p, 1e-16));
    else
        std::snprintf(buffer, sizeof buffer, "%.2g", p);
    return buffer;
}

std::string draws_text(std::size_t n) {
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
        s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

} // namespace

int main(int argc, char** argv) {
    bool core = false, full = false;
    std::string conninfo, only, table_path;
    bool sql = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--core")
            core = true;
        else if (arg == "--sql") {
            sql = true;
            conninfo = value();
        } else if (arg == "--full")
            full = true;
        else if (arg == "--only")
            only = value();
        else if (arg == "--table")
            table_path = value();
        else {
            std::fprintf(
                stderr,
                "usage: gazepriv_audit [--core] [--sql CONNINFO] [--full] [--only S] [--table FILE]\n");
            return 2;
        }
    }
    if (!core && !sql)
        core = true;

    const AuditLevels levels;
    std::vector<AuditCase> cases;
    try {
        if (core)
            add_core_audits(cases);
        if (sql)
            add_sql_audits(cases, conninfo);
    } catch (const std::exception& e) {
        std::printf("audit setup ... FAILED (%s)\n", e.what());
        return 1;
    }

    std::ostringstream table;
    table << "| mechanism | neighbours | path | claimed ε, δ | draws a side | audited ε (95 % lower bound) | "
             "caught above | result |\n|---|---|---|---|---:|---:|---:|---|\n";
    int failures = 0;
    for (const AuditCase& c : cases) {
        if (!only.empty() && c.name.find(only) == std::string::npos)
            continue;
        const double base = c.path == "SQL" ? 20000 : 200000;
        const std::size_t n = static_cast<std::size_t>(base * c.draws * (full ? 10 : 1)) / 2 * 2;
        const auto start = std::chrono::steady_clock::now();
        bool ok = false;
        std::string detail;
        try {
            Draws first(c.statistics.size()), second(c.statistics.size());
            c.draw(n, first, second);
            const AuditOutcome out = audit_draws(first, second, c.claim, levels);
            ok = out.violation == (c.expect == Expectation::Violated);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::ostringstream d;
            d << "claim " << number(c.claim.epsilon, 3) << "/" << delta_text(c.claim.delta)
              << ", lower bound " << number(out.epsilon_report, 3) << " (95 %), "
              << number(out.epsilon_gate, 3) << " (gate), estimate " << number(out.epsilon_estimate, 3)
              << ", caught above " << number(out.epsilon_detectable, 3) << ", fires with probability "
              << probability(out.firing_probability) << "; event " << c.statistics[out.statistic]
              << (out.at_least ? " >= " : " <= ") << out.threshold << (out.reversed ? " (D' over D)" : "")
              << ": " << out.k << " vs " << out.k_other << " of " << out.n << "; " << number(seconds, 1)
              << " s";
            detail = d.str();
            const std::string verdict = c.expect == Expectation::Violated
                                            ? (ok ? "caught (control; missed with probability " +
                                                        probability(1 - out.firing_probability) + ")"
                                                  : "NOT caught")
                                            : (ok ? "holds" : "VIOLATED");
            table << "| " << c.mechanism << " | " << c.neighbours << " | " << c.path << " | "
                  << number(c.claim.epsilon, 3) << ", " << delta_text(c.claim.delta) << " | " << draws_text(n)
                  << " | " << number(out.epsilon_report, 3) << " | "
                  << (c.expect == Expectation::Violated ? "–" : number(out.epsilon_detectable, 2)) << " | "
                  << verdict << " |\n";
        } catch (const std::exception& e) {
            detail = std::string("error: ") + e.what();
        }
        std::printf("audit %s ... %s\n    %s\n", c.name.c_str(), ok ? "ok" : "FAILED", detail.c_str());
        std::fflush(stdout);
        failures += ok ? 0 : 1;
    }
    if (!table_path.empty()) {
        std::ofstream out(table_path);
        out << table.str();
    }
    return failures == 0 ? 0 : 1;
}
