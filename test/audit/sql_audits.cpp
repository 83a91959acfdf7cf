// Audits through the SQL functions: each draw is a real call of a curator- or user-level function on a
// database with the extension, noise from the CSPRNG (gazepriv.seed is reset), many draws per query
// (generate_series, one release per row or per group).
#include <libpq-fe.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "audit.hpp"
#include "broken_mechanisms.hpp"
#include "loss.hpp"

namespace gazepriv::audit {

namespace {

class Database {
public:
    explicit Database(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
        if (PQstatus(conn_) != CONNECTION_OK)
            throw std::runtime_error(std::string("cannot connect: ") + PQerrorMessage(conn_));
        exec("SET client_min_messages = warning");
        exec("RESET gazepriv.seed"); // the CSPRNG, never a seed
    }
    ~Database() { PQfinish(conn_); }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    void exec(const std::string& sql) { rows(sql); }

    // The rows of a query, as text (NULL as an empty string).
    std::vector<std::vector<std::string>> rows(const std::string& sql) {
        PGresult* result = PQexec(conn_, sql.c_str());
        const ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            const std::string message = PQresultErrorMessage(result);
            PQclear(result);
            throw std::runtime_error(message + "in: " + sql.substr(0, 300));
        }
        std::vector<std::vector<std::string>> out(static_cast<std::size_t>(PQntuples(result)));
        for (int i = 0; i < PQntuples(result); ++i)
            for (int j = 0; j < PQnfields(result); ++j)
                out[static_cast<std::size_t>(i)].emplace_back(PQgetvalue(result, i, j));
        PQclear(result);
        return out;
    }

    // The first column of a query, as numbers.
    std::vector<double> column(const std::string& sql) {
        std::vector<double> v;
        for (const auto& row : rows(sql))
            v.push_back(number(row.at(0)));
        return v;
    }

    static double number(const std::string& text) {
        if (text == "Infinity")
            return INFINITY;
        if (text == "-Infinity")
            return -INFINITY;
        return std::strtod(text.c_str(), nullptr);
    }
    // "1 2.5 3" (array_to_string(..., ' ')) as numbers.
    static std::vector<double> numbers(const std::string& text) {
        std::vector<double> v;
        std::istringstream in(text);
        std::string item;
        while (in >> item)
            v.push_back(number(item));
        return v;
    }

private:
    PGconn* conn_;
};

using Db = std::shared_ptr<Database>;

// 1 when y is a multiple of 2^exponent.
double on_grid(double y, int exponent) {
    const double units = std::ldexp(y, -exponent);
    return units == std::floor(units) ? 1 : 0;
}

std::string n_rows(std::size_t n) {
    return "generate_series(1, " + std::to_string(n) + ") g";
}

// The shortest decimal that reads back as v.
std::string sql_number(double v) {
    for (int digits = 6;; ++digits) {
        std::ostringstream s;
        s.precision(digits);
        s << v;
        if (digits == 17 || std::strtod(s.str().c_str(), nullptr) == v)
            return s.str();
    }
}

// A scalar SQL expression of x (the placeholder `$x`), drawn n times for each input.
void scalar_case(std::vector<AuditCase>& cases, Db db, const std::string& name, const std::string& label,
                 const std::string& expression, double a, double b, Claim claim, Expectation expect,
                 std::vector<std::string> statistics, std::function<std::vector<double>(double)> stats,
                 double draws = 1) {
    cases.push_back({name, label, "values " + sql_number(a) + " and " + sql_number(b), "SQL", claim, expect,
                     std::move(statistics), draws, [=](std::size_t n, Draws& first, Draws& second) {
                         for (int side = 0; side < 2; ++side) {
                             std::string e = expression;
                             e.replace(e.find("$x"), 2, "(" + sql_number(side == 0 ? a : b) + " + 0 * g)");
                             for (double y : db->column("SELECT " + e + " FROM " + n_rows(n)))
                                 (side == 0 ? first : second).add(stats(y).data());
                         }
                     }});
}

void noise_audits(std::vector<AuditCase>& cases, Db db) {
    auto identity = [](double y) { return std::vector<double>{y}; };
    scalar_case(cases, db, "sql/discrete-laplace-noise", "count + discrete_laplace_noise(1/ε) (ε = 1)",
                "$x + gazepriv.discrete_laplace_noise(1)", 0, 1, {1, 0}, Expectation::Holds, {"output"},
                identity, 2.5);
    const double sigma = db->column("SELECT sigma FROM gazepriv.heatmap_release_cost("
                                    "gazepriv.heatmap_spec(1, 1, 1, 1e-5, observers => 1))")
                             .at(0);
    scalar_case(cases, db, "sql/discrete-gaussian-noise",
                "count + discrete_gaussian_noise(σ = " + sql_number(sigma).substr(0, 5) +
                    ", the one-cell heatmap's; ε = 1, δ = 1e-5)",
                "$x + gazepriv.discrete_gaussian_noise(" + sql_number(sigma) + ")", 0, 1, {1, 1e-5},
                Expectation::Holds, {"output"}, identity, 2.5);
    // Mironov's inputs at epsilon 0.1 (noise grid 2^-37), and whether the output lies on the noise grid.
    auto mironov_stats = [](double y) {
        const bool from0 = textbook_laplace_reachable(y, 0, 10), from1 = textbook_laplace_reachable(y, 1, 10);
        return std::vector<double>{
            y, on_grid(y, -37), static_cast<double>(from0 && !from1) - static_cast<double>(from1 && !from0)};
    };
    scalar_case(cases, db, "sql/laplace-mechanism", "laplace_mechanism (ε = 0.1)",
                "gazepriv.laplace_mechanism($x, 1, 0.1)", 0, 1, {0.1, 0}, Expectation::Holds,
                {"output", "on the noise grid", "reachable from 0 only (Mironov)"}, mironov_stats, 2.5);
    // laplace_noise is documented as unsafe to add to a float yourself: 0.1 is off the noise grid (2^-44 for
    // scale 0.1), so the sum's low bits tell the inputs apart. laplace_mechanism rounds to the grid first.
    auto grid_stats = [](double y) { return std::vector<double>{y, on_grid(y, -44)}; };
    scalar_case(cases, db, "sql/laplace-mechanism-off-grid",
                "laplace_mechanism (Δ = 0.1, ε = 1) of an off-grid value",
                "gazepriv.laplace_mechanism($x, 0.1, 1)", 0, 0.1, {1, 0}, Expectation::Holds,
                {"output", "on the noise grid"}, grid_stats);
    scalar_case(cases, db, "control/sql-laplace-noise-off-grid",
                "value + laplace_noise(Δ/ε) added in SQL (documented unsafe), claims ε = 1",
                "$x + gazepriv.laplace_noise(0.1)", 0, 0.1, {1, 0}, Expectation::Violated,
                {"output", "on the noise grid"}, grid_stats);
    scalar_case(cases, db, "sql/gaussian-mechanism", "gaussian_mechanism (ε = 1, δ = 1e-5, analytic)",
                "gazepriv.gaussian_mechanism($x, 1, 1, 1e-5)", 0, 1, {1, 1e-5}, Expectation::Holds,
                {"output"}, identity, 2.5);
    // Arrays: two elements moved by 0.5 each (L1 1, L2 0.71).
    cases.push_back({"sql/laplace-mechanism-array",
                     "laplace_mechanism(float8[]) (ε = 1, L1 sensitivity 1)",
                     "[0, 0] and [0.5, 0.5]",
                     "SQL",
                     {1, 0},
                     Expectation::Holds,
                     {"loss"},
                     1,
                     [db](std::size_t n, Draws& a, Draws& b) {
                         for (int side = 0; side < 2; ++side) {
                             const std::string x = side == 0 ? "0" : "0.5";
                             for (const auto& row :
                                  db->rows("SELECT array_to_string(gazepriv.laplace_mechanism("
                                           "ARRAY[" +
                                           x + " + 0 * g, " + x + "], 1, 1), ' ') FROM " + n_rows(n))) {
                                 double loss = 0;
                                 for (double y : Database::numbers(row[0]))
                                     loss += laplace_loss(y, 0, 0.5, 1);
                                 (side == 0 ? a : b).add({loss});
                             }
                         }
                     }});
    // zCDP composition of 20 Gaussian releases, converted as a zcdp budget converts it.
    const double rho =
        db->column("SELECT 20 * gazepriv.zcdp_rho(1, gazepriv.gaussian_sigma(1, 1, 1e-5))").at(0);
    const double epsilon = db->column("SELECT gazepriv.zcdp_epsilon(" + sql_number(rho) + ", 1e-5)").at(0);
    cases.push_back({"sql/zcdp-gaussian-20",
                     "20 gaussian_mechanism releases (each ε = 1, δ = 1e-5), zcdp_epsilon of their ρ",
                     "values 0 and 1, each release",
                     "SQL",
                     {epsilon, 1e-5},
                     Expectation::Holds,
                     {"sum of outputs"},
                     0.25,
                     [db](std::size_t n, Draws& a, Draws& b) {
                         for (int side = 0; side < 2; ++side)
                             for (double s :
                                  db->column("SELECT sum(gazepriv.gaussian_mechanism(" +
                                             std::to_string(side) + " + 0 * g, 1, 1, 1e-5)) FROM " +
                                             n_rows(n) + ", generate_series(1, 20) i GROUP BY g"))
                                 (side == 0 ? a : b).add({s});
                     }});
}

// ---- heatmaps ------------------------------------------------------------------------------------------

// Points of the neighbouring datasets: the target puts `per_cell` points in each cell of a `cells` x 1 grid
// (cap exceeded) or is replaced by a participant whose points all fall outside the grid (n = 3 is public);
// two others look at the first and the last cell. With cap m the capped sums differ by m in every cell.
std::string heatmap_points(int cells, int per_cell, bool with_target) {
    const std::string last = std::to_string(cells) + " - 0.5";
    return "(SELECT 'target' AS participant, c + " + std::string(with_target ? "0.5" : "1e6") +
           " AS x, 0.5 AS y FROM generate_series(0, " + std::to_string(cells - 1) +
           ") c, generate_series(1, " + std::to_string(per_cell) +
           ") k UNION ALL VALUES ('o1', 0.5, 0.5), ('o2', " + last + ", 0.5), ('o2', " + last + ", 0.5)) p";
}

// The released maps of a query (one per row, values as text): the sum of the noisy capped sums (Gaussian:
// the sufficient statistic), or the Laplace loss of the one cell between capped sums `sum` and `sum_prime`.
void heatmap_stats(Database& db, const std::string& query, bool laplace, double sum, double sum_prime,
                   double scale, Draws& out) {
    for (const auto& row : db.rows(query)) {
        double s = 0;
        for (double value : Database::numbers(row.at(0)))
            s += laplace ? laplace_loss(value * 3, sum, sum_prime, scale) : value * 3;
        out.add({s});
    }
}

enum class Plan { Serial, Privatize, Parallel, Partitionwise };

// One release per group g. Serial: the points joined to generate_series. Parallel and partition-wise: a
// table of every group's rows in random physical order (so each group's rows are spread over the workers'
// blocks, or alternate between the two partitions), with enough rows per group that the planner aggregates
// partially (the plan is checked); the target's rows then reach the final state through several partial
// states, which must keep its cap.
std::string heatmap_query(Database& db, Plan plan, const std::string& spec, int cells, bool target,
                          std::size_t n) {
    switch (plan) {
    case Plan::Serial:
        return "SELECT array_to_string((gazepriv.dp_heatmap(participant, x, y, " + spec +
               ")).values, ' ') FROM " + n_rows(n) + ", " + heatmap_points(cells, 9, target) + " GROUP BY g";
    case Plan::Privatize:
        return "SELECT array_to_string((gazepriv.privatize(m, " + spec +
               ")).values, ' ') FROM (SELECT "
               "gazepriv.gaze_map(participant, x, y, " +
               std::to_string(cells) + ", 1, 2) m FROM " + heatmap_points(cells, 9, target) + ") s, " +
               n_rows(n);
    case Plan::Parallel:
    case Plan::Partitionwise:
        break;
    }
    const bool parted = plan == Plan::Partitionwise;
    db.exec("DROP TABLE IF EXISTS gazepriv_audit.hm");
    db.exec(std::string(
                "CREATE TABLE gazepriv_audit.hm (g int, id bigint, participant text, x float8, y float8)") +
            (parted ? " PARTITION BY LIST ((id % 2))" : ""));
    if (parted) {
        db.exec("CREATE TABLE gazepriv_audit.hm0 PARTITION OF gazepriv_audit.hm FOR VALUES IN (0)");
        db.exec("CREATE TABLE gazepriv_audit.hm1 PARTITION OF gazepriv_audit.hm FOR VALUES IN (1)");
    }
    db.exec("INSERT INTO gazepriv_audit.hm SELECT g, row_number() OVER (), participant, x, y FROM " +
            n_rows(n) + ", " + heatmap_points(cells, 100, target) + " ORDER BY random()");
    db.exec("ANALYZE gazepriv_audit.hm");
    db.exec(parted ? "SET enable_partitionwise_aggregate = on; SET max_parallel_workers_per_gather = 0"
                   : "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0.1; SET "
                     "min_parallel_table_scan_size = 0; "
                     "SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off");
    const std::string query = "SELECT array_to_string((gazepriv.dp_heatmap(participant, x, y, " + spec +
                              ")).values, ' ') FROM gazepriv_audit.hm GROUP BY g";
    std::string explained;
    for (const auto& row : db.rows("EXPLAIN (COSTS OFF) " + query))
        explained += row[0] + "\n";
    if (explained.find("Partial GroupAggregate") == std::string::npos ||
        explained.find(parted ? "Merge Append" : "Workers Planned: 2") == std::string::npos)
        throw std::runtime_error("the plan does not aggregate partially:\n" + explained);
    if (!parted) { // without workers the leader would run the plan alone (leader participation is off)
        std::string ran;
        for (const auto& row : db.rows("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + query))
            ran += row[0] + "\n";
        if (ran.find("Workers Launched: 2") == std::string::npos)
            throw std::runtime_error("the parallel plan did not launch its 2 workers:\n" + ran);
    }
    return query;
}

void heatmap_audits(std::vector<AuditCase>& cases, Db db) {
    const std::string gaussian = "gazepriv.heatmap_spec(2, 1, 1, 1e-5, observers => 3)";
    const std::string laplace =
        "gazepriv.heatmap_spec(1, 1, 1, cap => 2, mechanism => 'laplace', observers => 3)";
    struct Variant {
        const char* name;
        const char* label;
        Plan plan;
        double draws;
    };
    for (const Variant& v :
         {Variant{"sql/heatmap-gaussian", "dp_heatmap Gaussian, 2 cells, cap 1 (ε = 1, δ = 1e-5)",
                  Plan::Serial, 0.2},
          Variant{"sql/heatmap-laplace", "dp_heatmap Laplace, 1 cell, cap 2 (ε = 1)", Plan::Serial, 1},
          Variant{"sql/heatmap-privatize", "privatize(gaze_map(...)) Laplace, 1 cell, cap 2 (ε = 1)",
                  Plan::Privatize, 1},
          Variant{"sql/heatmap-parallel",
                  "dp_heatmap Laplace, 1 cell, cap 2 (ε = 1), parallel plan (2 workers)", Plan::Parallel,
                  0.2},
          Variant{"sql/heatmap-partitionwise",
                  "dp_heatmap Laplace, 1 cell, cap 2 (ε = 1), partition-wise aggregation",
                  Plan::Partitionwise, 0.2}}) {
        const bool is_laplace = std::string(v.name) != "sql/heatmap-gaussian";
        const std::string spec = is_laplace ? laplace : gaussian;
        const int cells = is_laplace ? 1 : 2;
        const Plan plan = v.plan;
        // Laplace, one cell, cap 2: capped sums 1 + 2 + 2 = 5 with the target, 3 without; scale m r / epsilon
        // = 2.
        cases.push_back(
            {v.name,
             v.label,
             plan == Plan::Serial || plan == Plan::Privatize
                 ? "a participant with 9 points in every cell (cap exceeded) vs one with none"
                 : "a participant with 100 points in the cell, its rows in several partial states, vs none",
             "SQL",
             {1, is_laplace ? 0 : 1e-5},
             Expectation::Holds,
             {is_laplace ? "loss" : "sum of cells"},
             v.draws,
             [db, spec, plan, is_laplace, cells](std::size_t n, Draws& a, Draws& b) {
                 for (int side = 0; side < 2; ++side) {
                     db->exec("SET enable_hashagg = off");
                     const std::string query = heatmap_query(*db, plan, spec, cells, side == 0, n);
                     heatmap_stats(*db, query, is_laplace, 5, 3, 2, side == 0 ? a : b);
                     db->exec("RESET ALL; RESET gazepriv.seed; SET client_min_messages = warning");
                 }
             }});
    }
}

// ---- time series ---------------------------------------------------------------------------------------

// The target's signal at the upper (1) vs the lower (0) public bound, with the sensitivities a clipped
// release computes for [0, 1]; the statistic is the Laplace loss of each block's noisy first coefficient
// (k = 1) or of each sample (LPA).
void series_audits(std::vector<AuditCase>& cases, Db db) {
    struct Variant {
        const char* name;
        const char* label;
        const char* call; // with $s for the series
        int length, block;
        double scale, claim;
        bool lpa, differences;
    };
    for (const Variant& v :
         {Variant{"sql/lpa", "lpa, 2 samples, Δ1 = 2 (ε = 1)", "gazepriv.lpa($s, 1, 2)", 2, 1, 2, 1, true,
                  false},
          Variant{"sql/fpa", "fpa k = 1, 8 samples, Δ2 = √8 (ε = 1)", "gazepriv.fpa($s, 1, 1, sqrt(8))", 8, 8,
                  8, 1, false, false},
          Variant{"sql/cfpa", "cfpa k = 1, 2 chunks of 4, Δ2 = 2 per chunk (ε = 1 per chunk)",
                  "gazepriv.cfpa($s, 1, 4, 1, ARRAY[2])", 8, 4, 4, 2, false, false},
          Variant{"sql/dcfpa", "dcfpa k = 1, 2 chunks of 4, Δ2 = √13 per difference chunk (ε = 1 per chunk)",
                  "gazepriv.dcfpa($s, 1, 4, 1, ARRAY[sqrt(13)])", 8, 4, 2 * std::sqrt(13.0), 2, false,
                  true}}) {
        cases.push_back(
            {v.name,
             v.label,
             "a series at the upper vs the lower public bound (every sample moved by w = 1)",
             "SQL",
             {v.claim, 0},
             Expectation::Holds,
             {"loss"},
             1,
             [db, v](std::size_t n, Draws& a, Draws& b) {
                 for (int side = 0; side < 2; ++side) {
                     std::string call = v.call;
                     const std::string series = "array_fill(" + std::string(side == 0 ? "1" : "0") +
                                                " + 0 * g::float8, ARRAY[" + std::to_string(v.length) + "])";
                     call.replace(call.find("$s"), 2, series);
                     for (const auto& row :
                          db->rows("SELECT array_to_string(" + call + ", ' ') FROM " + n_rows(n))) {
                         const std::vector<double> y = Database::numbers(row.at(0));
                         double loss = 0;
                         if (v.lpa) {
                             for (double yi : y)
                                 loss += laplace_loss(yi, 1, 0, v.scale);
                         } else {
                             // k = 1: a block's output is its noisy F0 / m; DCFPA's F0 (of the differences)
                             // is the block's last value, and its first output is F0 / m.
                             for (int start = 0; start < v.length; start += v.block)
                                 loss += laplace_loss(y[static_cast<std::size_t>(start)] * v.block,
                                                      1.0 * (v.differences ? 1 : v.block), 0, v.scale);
                         }
                         (side == 0 ? a : b).add({loss});
                     }
                 }
             }});
    }
}

// Dataset functions over a source table: one call per draw (LATERAL, g passed so it is called again).
// Tables: the target 'p0' (one feature, `length` windows) at `high` or `low`, two others at 0.25 and 0.5.
std::string feature_table(Database& db, const std::string& name, double target, int length) {
    const std::string table = "gazepriv_audit." + name;
    db.exec("DROP TABLE IF EXISTS " + table);
    db.exec("CREATE TABLE " + table + " (participant text, \"window\" int, features float8[])");
    db.exec("INSERT INTO " + table + " SELECT p, w, ARRAY[CASE p WHEN 'p0' THEN " + sql_number(target) +
            " WHEN 'p1' THEN 0.25 ELSE 0.5 END] FROM unnest(ARRAY['p0', 'p1', 'p2']) p, generate_series(1, " +
            std::to_string(length) + ") w");
    return table;
}

void dataset_series_audits(std::vector<AuditCase>& cases, Db db) {
    // release_series, CFPA k = 1, chunks of 4 over a public length of 8, clipped to [0, 1]: the target's
    // whole signal beyond either bound; participant level, so the two chunks compose (2 epsilon).
    const std::string above = feature_table(*db, "series_above", 5, 8),
                      below = feature_table(*db, "series_below", -5, 8);
    const std::string arguments = "'cfpa', 1 + 0 * g, k => 1, chunk => 4, bounds => ARRAY[0, 1], length => 8";
    const double series_cost =
        db->column("SELECT total_epsilon FROM gazepriv.release_series_cost('" + above + "', " +
                   std::string(arguments).replace(arguments.find(" + 0 * g"), 8, "") + ")")
            .at(0);
    cases.push_back(
        {"sql/release-series",
         "release_series CFPA k = 1, 2 chunks of 4, clipped (ε = 1 per chunk)",
         "the target's whole signal beyond the upper vs the lower public bound",
         "SQL",
         {series_cost, 0},
         Expectation::Holds,
         {"loss"},
         0.5,
         [db, above, below, arguments](std::size_t n, Draws& a, Draws& b) {
             for (int side = 0; side < 2; ++side)
                 for (const auto& row :
                      db->rows("SELECT array_to_string(s.series, ' ') FROM " + n_rows(n) +
                               ", LATERAL gazepriv.release_series('" + (side == 0 ? above : below) + "', " +
                               arguments + ", clamp => false) s WHERE s.participant = 'p0'")) {
                     // clamp => false: the loss of the mechanism's raw output (clamping is post-processing).
                     // k = 1: each chunk's output is its noisy F0 / 4, lambda = 4 (sqrt(4) 2 / 1).
                     const std::vector<double> y = Database::numbers(row.at(0));
                     (side == 0 ? a : b)
                         .add({laplace_loss(4 * y.at(0), 4, 0, 4) + laplace_loss(4 * y.at(4), 4, 0, 4)});
                 }
         }});
    // exponential_dp, laplace variant: 4 values of one feature (t_max = 4) at the upper vs the lower bound.
    const std::string high = feature_table(*db, "exp_high", 5, 4), low = feature_table(*db, "exp_low", -5, 4);
    const double cost = db->column("SELECT total_epsilon FROM gazepriv.exponential_dp_cost('" + high +
                                   "', 1, bounds => ARRAY[0, 1], length => 4)")
                            .at(0);
    cases.push_back(
        {"sql/exponential-dp",
         "exponential_dp laplace variant, t_max = 4 (ε = 1: charges t_max ε/2)",
         "the target's 4 values at the upper vs the lower public bound",
         "SQL",
         {cost, 0},
         Expectation::Holds,
         {"loss"},
         0.25,
         [db, high, low](std::size_t n, Draws& a, Draws& b) {
             for (int side = 0; side < 2; ++side)
                 for (const auto& row : db->rows(
                          "SELECT array_to_string(s.series, ' ') FROM " + n_rows(n) +
                          ", LATERAL gazepriv.exponential_dp('" + (side == 0 ? high : low) +
                          "', 1 + 0 * g, bounds => ARRAY[0, 1], length => 4) s WHERE s.participant = 'p0'")) {
                     double loss = 0;
                     for (double y : Database::numbers(row.at(0)))
                         loss += laplace_loss(y, 1, 0, 2);
                     (side == 0 ? a : b).add({loss});
                 }
         }});
    // Eq. 7: the others are at 0.25 and 0.5; the target at 1.5 or -0.75 gives Eq. 7's L1 sensitivity 1.25 on
    // both sides while the target moves by 2.25.
    const std::string right = feature_table(*db, "eq7_right", 1.5, 1),
                      left = feature_table(*db, "eq7_left", -0.75, 1);
    cases.push_back({"control/sql-series-eq7",
                     "release_series LPA with Eq. 7's empirical sensitivity (documented non-private), ε = 1",
                     "the target on either side of the others",
                     "SQL",
                     {1, 0},
                     Expectation::Violated,
                     {"loss"},
                     1,
                     [db, right, left](std::size_t n, Draws& a, Draws& b) {
                         for (int side = 0; side < 2; ++side)
                             for (double y : db->column(
                                      "SELECT s.series[1] FROM " + n_rows(n) +
                                      ", LATERAL gazepriv.release_series('" + (side == 0 ? right : left) +
                                      "', 'lpa', 1 + 0 * g, sensitivity => 'empirical', length => 1) s "
                                      "WHERE s.participant = 'p0'"))
                                 (side == 0 ? a : b).add({laplace_loss(y, 1.5, -0.75, 1.25)});
                     }});
}

// kaleido() on the stream pair of the core's test-cap audit: 10 Hz, t_skip 100 ms, w = 6, the default
// max_tests (1 per window), the target moved by r = 1 at samples 1..6.
void kaleido_audits(std::vector<AuditCase>& cases, Db db) {
    std::vector<Point> d(8, Point{0, 0}), d_prime(8, Point{0, 0});
    for (int i = 1; i <= 6; ++i)
        d_prime[static_cast<std::size_t>(i)].x = 1;
    cases.push_back(
        {"sql/kaleido",
         "kaleido(), ε = 4, w = 6, t_skip = 100 ms on a 10 Hz stream (cap: 1 test per window)",
         "streams differing by r at the 6 samples of one window",
         "SQL",
         {4, 0},
         Expectation::Holds,
         {"loss"},
         0.5,
         [db, d, d_prime](std::size_t n, Draws& a, Draws& b) {
             for (int side = 0; side < 2; ++side) {
                 const std::string x =
                     side == 0 ? "ARRAY[0, 0, 0, 0, 0, 0, 0, 0]" : "ARRAY[0, 1, 1, 1, 1, 1, 1, 0]";
                 const auto rows =
                     db->rows("SELECT g, k.x, k.y, k.action, k.epsilon_spent FROM " + n_rows(n) +
                              ", LATERAL gazepriv.kaleido(ARRAY[0, 100, 200, 300, 400, 500, 600, 700], " + x +
                              "::float8[], array_fill(0::float8, ARRAY[8]), 4 + 0 * g, 6, 1, l_thresh => 1, "
                              "t_skip => 100) k "
                              "ORDER BY g, k.t_ms");
                 std::vector<StreamOutput> out;
                 for (std::size_t i = 0; i < rows.size(); ++i) {
                     const auto& r = rows[i];
                     const StreamAction action = r[3] == "published" ? StreamAction::Published
                                                 : r[3] == "reused"  ? StreamAction::Reused
                                                                     : StreamAction::Other;
                     out.push_back(
                         {Database::number(r[1]), Database::number(r[2]), action, Database::number(r[4])});
                     if (out.size() == d.size()) {
                         (side == 0 ? a : b).add({kaleido_loss(out, d, d_prime, 1, 1, 4.0 / 2)});
                         out.clear();
                     }
                 }
             }
         }});
}

// pd_synthesize with the randomized test: a task of k - 1 = 2 feature vectors against the same with a 3rd
// (the marginals model is seedless: k' is the record count, so it crosses k). The deterministic test,
// charged as the randomized one, is the control.
void pd_audits(std::vector<AuditCase>& cases, Db db) {
    db->exec(
        "CREATE TABLE gazepriv_audit.pd2 (participant text, task text, \"window\" int, features float8[])");
    db->exec("INSERT INTO gazepriv_audit.pd2 VALUES ('a', 't', 1, ARRAY[0.1, 0.2]), ('b', 't', 1, ARRAY[0.7, "
             "0.8])");
    db->exec("CREATE TABLE gazepriv_audit.pd3 AS SELECT * FROM gazepriv_audit.pd2");
    db->exec("INSERT INTO gazepriv_audit.pd3 VALUES ('c', 't', 1, ARRAY[0.3, 0.9])");
    const std::string options = "bins => 2, model_epsilon => 0.5, bounds => ARRAY[[0, 1], [0, 1]]";
    const auto cost =
        db->rows("SELECT epsilon, delta FROM gazepriv.pd_release_cost(3, 1, 2, 2, epsilon0 => 2, t => 1, " +
                 options + ")")
            .at(0);
    const Claim claim{Database::number(cost[0]), Database::number(cost[1])};
    for (bool randomized : {true, false}) {
        const std::string test = randomized ? "epsilon0 => 2, t => 1, " : "";
        cases.push_back(
            {randomized ? "sql/pd-randomized-test" : "control/sql-pd-deterministic-test",
             randomized ? "pd_synthesize, randomized test (k = 3, γ = 1, ε0 = 2, t = 1, model ε = 0.5)"
                        : "pd_synthesize with the deterministic test, charged as the randomized one",
             "a task of 2 records vs the same with a 3rd (k' crosses k)",
             "SQL",
             claim,
             randomized ? Expectation::Holds : Expectation::Violated,
             {"released among the 2 common slots"},
             1,
             [db, test, options](std::size_t n, Draws& a, Draws& b) {
                 for (int side = 0; side < 2; ++side)
                     for (double released : db->column(
                              "SELECT count(s.participant) FILTER (WHERE s.participant IN ('a', 'b')) FROM " +
                              n_rows(n) + " LEFT JOIN LATERAL gazepriv.pd_synthesize('gazepriv_audit.pd" +
                              (side == 0 ? "2" : "3") + "', 3 + 0 * g, 1, " + test + options +
                              ") s ON true GROUP BY g"))
                         (side == 0 ? a : b).add({released});
             }});
    }
}

} // namespace

void add_sql_audits(std::vector<AuditCase>& cases, const std::string& conninfo) {
    Db db = std::make_shared<Database>(conninfo);
    db->exec("DROP SCHEMA IF EXISTS gazepriv_audit CASCADE");
    db->exec("CREATE SCHEMA gazepriv_audit");
    noise_audits(cases, db);
    heatmap_audits(cases, db);
    series_audits(cases, db);
    dataset_series_audits(cases, db);
    kaleido_audits(cases, db);
    pd_audits(cases, db);
}

} // namespace gazepriv::audit
