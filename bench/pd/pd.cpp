// Plausible-deniability synthesis: the whole synthesis (binning, model, candidates, privacy test, values)
// against a straightforward implementation of the same test measured in the same run: for every candidate,
// Pr{y = M(d)} of every record by the closed form, the band by floor, no early exit (the reference the
// paper's ~30 minutes suggests). Usage: bench_pd [features.csv] (columns participant,task,f1,...,fm; without
// it, a synthetic stand-in of the Hoppe feature windows of test/demo/hoppe_features.psql: 24,500 windows,
// 20 participants, 3 tasks, 33 features). Runs the data and a 10x replication.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/pd/pd_model.hpp"
#include "core/pd/pd_synthesis.hpp"
#include "core/pd/pd_privacy_check.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::pd;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Data {
    std::size_t rows = 0, features = 0;
    std::vector<double> values;
    std::vector<std::int32_t> participant, task;
    FeatureRows view() const { return {rows, features, values.data(), participant.data(), task.data()}; }
};

Data load_csv(const char* path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path);
        std::exit(2);
    }
    std::string line;
    std::getline(in, line);
    Data d;
    d.features = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) - 1;
    std::map<std::string, std::int32_t> people, tasks;
    while (std::getline(in, line)) {
        std::stringstream s(line);
        std::string p, t, v;
        std::getline(s, p, ',');
        std::getline(s, t, ',');
        d.participant.push_back(people.emplace(p, static_cast<std::int32_t>(people.size())).first->second);
        d.task.push_back(tasks.emplace(t, static_cast<std::int32_t>(tasks.size())).first->second);
        for (std::size_t j = 0; j < d.features; ++j) {
            std::getline(s, v, ',');
            d.values.push_back(std::stod(v));
        }
        ++d.rows;
    }
    return d;
}

// Participant-dependent features with a shared component, so that bins are shared but not uniformly.
Data synthetic(std::size_t rows, std::size_t features) {
    Rng rng(2024, 1);
    Data d;
    d.rows = rows;
    d.features = features;
    for (std::size_t r = 0; r < rows; ++r) {
        const auto p = static_cast<std::int32_t>(r % 20);
        d.participant.push_back(p);
        d.task.push_back(static_cast<std::int32_t>(r * 3 / rows));
        for (std::size_t j = 0; j < features; ++j) {
            double g = 0; // about normal: the sum of 4 uniforms
            for (int i = 0; i < 4; ++i)
                g += rng.uniform01() - 0.5;
            d.values.push_back(0.3 * p / 20.0 + 0.1 * j + 0.25 * g);
        }
    }
    return d;
}

Data replicate(const Data& base, int times) {
    Data d = base;
    d.rows = base.rows * times;
    for (int i = 1; i < times; ++i) {
        d.values.insert(d.values.end(), base.values.begin(), base.values.end());
        d.participant.insert(d.participant.end(), base.participant.begin(), base.participant.end());
        d.task.insert(d.task.end(), base.task.begin(), base.task.end());
    }
    return d;
}

struct Config {
    const char* name;
    ModelKind model;
    int omega;
    Resample resample;
    TestKind test;
    int k;
    double gamma;
};

SynthesisParams params_of(const Config& c) {
    SynthesisParams p;
    p.k = c.k;
    p.gamma = c.gamma;
    p.model = c.model;
    if (c.model == ModelKind::SeedBased)
        p.omega = c.omega;
    p.resample = c.resample;
    p.test = c.test;
    p.max_attempts = 1; // one candidate per seed: the number of candidates is the number of records
    return p;
}

struct Run {
    double seconds;
    std::size_t released;
};

Run time_synthesis(const Data& d, const SynthesisParams& p, Rng& rng) {
    std::vector<std::size_t> source(d.rows);
    std::vector<std::int32_t> attempts(d.rows);
    std::vector<double> values(d.rows * d.features);
    Run best{1e300, 0};
    for (int run = 0; run < 3; ++run) {
        SynthesisOutput out{source.data(), attempts.data(), values.data(), 0};
        const auto start = Clock::now();
        synthesize(d.view(), p, rng, CancelCheck{}, out);
        best.seconds = std::min(best.seconds, seconds_since(start));
        best.released = out.count;
        if (best.seconds > 2)
            break;
    }
    return best;
}

// Per-candidate cost of the fast counter and of the straightforward one on the same candidates of each
// task (seeds drawn at random), both deciding pass/fail against the same threshold. Returns seconds per
// candidate, averaged over tasks weighted by their records (every record is one candidate).
struct PerCandidate {
    double fast;
    double straightforward;
    std::size_t disagreements;
};

PerCandidate per_candidate(const Data& d, const Config& c, Rng& rng, std::size_t samples) {
    const std::size_t m = d.features, stride = code_stride(m);
    const double log_gamma = std::log(c.gamma);
    const std::size_t need = c.test == TestKind::Record ? c.k : c.k - 1;
    PerCandidate total{0, 0, 0};
    const std::int32_t tasks = *std::max_element(d.task.begin(), d.task.end()) + 1;
    for (std::int32_t t = 0; t < tasks; ++t) {
        std::vector<std::size_t> rows;
        for (std::size_t r = 0; r < d.rows; ++r)
            if (d.task[r] == t)
                rows.push_back(r);
        std::stable_sort(rows.begin(), rows.end(),
                         [&](std::size_t a, std::size_t b) { return d.participant[a] < d.participant[b]; });
        std::vector<FeatureBins> bins;
        for (std::size_t j = 0; j < m; ++j) {
            double lo = 1e300, hi = -1e300;
            for (std::size_t r : rows) {
                lo = std::min(lo, d.values[r * m + j]);
                hi = std::max(hi, d.values[r * m + j]);
            }
            bins.push_back(bins_over(lo, hi, 30));
        }
        std::vector<std::uint8_t> codes(rows.size() * stride, 0);
        std::vector<std::int32_t> people(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            people[i] = d.participant[rows[i]];
            for (std::size_t j = 0; j < m; ++j)
                codes[i * stride + j] = bins[j].code(d.values[rows[i] * m + j]);
        }
        Marginals marginals(bins);
        marginals.add_rows(codes.data(), stride, rows.size());
        marginals.finish(1.0);
        const Model model(c.model, c.resample, static_cast<std::size_t>(c.omega), marginals);
        const SeedIndex index(model, codes.data(), stride, people.data(), rows.size());
        CandidateScorer scorer(model);
        std::vector<std::uint8_t> y(samples * stride, 0);
        std::vector<std::size_t> seeds(samples);
        for (std::size_t s = 0; s < samples; ++s) {
            seeds[s] = rng.uniform_below(rows.size());
            model.generate(index.row(seeds[s]), &y[s * stride], rng);
        }
        std::vector<char> fast_pass(samples), slow_pass(samples);
        auto start = Clock::now();
        for (std::size_t s = 0; s < samples; ++s)
            fast_pass[s] =
                index.count(scorer, &y[s * stride], seeds[s], c.test, log_gamma, need, CancelCheck{}) >= need;
        const double fast = seconds_since(start) / samples;
        start = Clock::now();
        for (std::size_t s = 0; s < samples; ++s)
            slow_pass[s] = index.count_straightforward(&y[s * stride], seeds[s], c.test, log_gamma) >= need;
        const double slow = seconds_since(start) / samples;
        const double weight = static_cast<double>(rows.size()) / d.rows;
        total.fast += weight * fast;
        total.straightforward += weight * slow;
        for (std::size_t s = 0; s < samples; ++s)
            total.disagreements += fast_pass[s] != slow_pass[s];
    }
    return total;
}

} // namespace

int main(int argc, char** argv) {
    const Data base = argc > 1 ? load_csv(argv[1]) : synthetic(24500, 33);
    std::printf("PD synthesis benchmark: %s, %zu records, %zu features; 30 bins over each task's range, one "
                "candidate per record (max_attempts 1)\n",
                argc > 1 ? argv[1] : "synthetic stand-in", base.rows, base.features);
    std::printf(
        "straightforward = the same test with Pr{y = M(d)} of every record by the closed form, the band by "
        "floor, no early exit; its totals are extrapolated from 200 candidates per task\n\n");
    const Config configs[] = {
        {"marginals (paper), k=5", ModelKind::Marginals, 0, Resample::Random, TestKind::Record, 5, 2},
        {"seed-based last omega=2, k=5", ModelKind::SeedBased, 2, Resample::Last, TestKind::Record, 5, 2},
        {"seed-based random omega=2, k=5", ModelKind::SeedBased, 2, Resample::Random, TestKind::Record, 5, 2},
        {"seed-based random omega=2, k=50", ModelKind::SeedBased, 2, Resample::Random, TestKind::Record, 50,
         2},
        {"seed-based random omega=2, identity k=5", ModelKind::SeedBased, 2, Resample::Random,
         TestKind::Identity, 5, 2},
        {"seed-based random omega=30, k=5", ModelKind::SeedBased, 30, Resample::Random, TestKind::Record, 5,
         2},
        {"seed-based random omega=30, k=50", ModelKind::SeedBased, 30, Resample::Random, TestKind::Record, 50,
         2},
        {"seed-based random omega=30, identity k=5", ModelKind::SeedBased, 30, Resample::Random,
         TestKind::Identity, 5, 2},
    };
    Rng rng(Rng::KernelEntropy{});
    for (int scale : {1, 10}) {
        const Data d = scale == 1 ? base : replicate(base, scale);
        std::printf("== %s: %zu records\n", scale == 1 ? "the data" : "10x replication", d.rows);
        std::printf("%-42s %10s %12s %9s %12s %14s %9s %6s\n", "model and test", "ours s", "candidates/s",
                    "released", "us/cand", "straightfwd s", "speedup", "agree");
        for (const Config& c : configs) {
            if (c.omega > static_cast<int>(d.features))
                continue; // a file with fewer features
            const Run run = time_synthesis(d, params_of(c), rng);
            const PerCandidate pc = per_candidate(d, c, rng, 200);
            const double straightforward_total = pc.straightforward * d.rows;
            std::printf("%-42s %10.4f %12.3g %8.1f%% %12.3f %14.2f %8.0fx %6s\n", c.name, run.seconds,
                        d.rows / run.seconds, 100.0 * run.released / d.rows, 1e6 * pc.fast,
                        straightforward_total, straightforward_total / run.seconds,
                        pc.disagreements == 0 ? "yes" : "NO");
        }
        std::printf("\n");
    }
    return 0;
}
