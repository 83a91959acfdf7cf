// Core k-anonymity benchmark (build-bench/bench_kanon_core; kanon.sh is the SQL one): k-same-select
// sequence, one grouping across tasks (the default) and per task (the paper's), on feature rows shaped like
// the Hoppe et al. feature windows of test/demo/hoppe_features.psql (20 participants, 3 tasks, 30 s windows
// every 0.5 s: ~24,500 rows of 33 features), and 10 and 100 times more participants; demographic
// generalisation of 1,000 to 1,000,000 people. Every time is compared with a baseline measured in the same
// run: for k-same, one pass that sums every input value (the least any release must do); for the
// generalisation, sorting the ages (which any choice of ranges needs).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/kanon/demographics.hpp"
#include "core/kanon/k_same.hpp"
#include "core/noise/random.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::kanon;

namespace {

volatile double sink;

// Median of 7 timed runs after one warm-up, in milliseconds.
double time_ms(const std::function<void()>& body) {
    body();
    std::vector<double> runs;
    for (int i = 0; i < 7; ++i) {
        const auto start = std::chrono::steady_clock::now();
        body();
        runs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(runs.begin(), runs.end());
    return runs[3];
}

// Feature rows in the canonical shape; sequence lengths vary like the real tasks (way out, shop, way back).
struct Features {
    std::vector<std::string> participant, task;
    std::vector<std::int32_t> window;
    std::vector<double> values;
    std::vector<std::size_t> offset{0};
    std::vector<const char*> p, t;

    Features(int participants, Rng& rng) {
        // The mean windows per participant of each task in the real feature set.
        const char* tasks[] = {"way_to_shop", "shop", "way_back"};
        const int typical[] = {450, 195, 585};
        for (int i = 0; i < participants; ++i)
            for (int j = 0; j < 3; ++j) {
                const int length = typical[j] / 2 + static_cast<int>(rng.uniform_below(typical[j]));
                for (int w = 1; w <= length; ++w) {
                    participant.push_back("p" + std::to_string(i));
                    task.push_back(tasks[j]);
                    window.push_back(w);
                    for (int f = 0; f < 33; ++f)
                        values.push_back(rng.uniform01());
                    offset.push_back(values.size());
                }
            }
        for (std::size_t r = 0; r < participant.size(); ++r) {
            p.push_back(participant[r].c_str());
            t.push_back(task[r].c_str());
        }
    }
    SequenceRows rows() const {
        SequenceRows in;
        in.rows = participant.size();
        in.participant = p.data();
        in.task = t.data();
        in.window = window.data();
        in.values = values.data();
        in.offset = offset.data();
        return in;
    }
};

double sum_all(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += x;
    return s;
}

} // namespace

int main() {
    Rng rng(Rng::KernelEntropy{});
    const CancelCheck no_cancel;

    std::printf("k-same-select sequence, k = 4, 33 features (core only, data in memory)\n\n");
    std::printf("| participants | rows | released rows | baseline: sum of inputs (ms) | across tasks (ms) | "
                "ratio | per task, paper (ms) | ratio |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int participants : {20, 200, 2000}) {
        const Features f(participants, rng);
        const double base = time_ms([&] { sink = sum_all(f.values); });
        std::size_t released = 0;
        const auto release = [&](Grouping grouping) {
            return time_ms([&] {
                const KSameRelease r = k_same_select(f.rows(), 4, grouping, rng, no_cancel);
                released = r.rows.size();
                sink = r.means[0];
            });
        };
        const double across = release(Grouping::AcrossTasks), per_task = release(Grouping::PerTask);
        std::printf("| %d | %zu | %zu | %.2f | %.2f | %.1fx | %.2f | %.1fx |\n", participants,
                    f.participant.size(), released, base, across, across / base, per_task, per_task / base);
    }

    std::printf("\ndemographic generalisation, k = 5 (ages 18-90, two genders)\n\n");
    std::printf("| rows | baseline: sort the ages (ms) | generalize_demographics (ms) | ratio |\n");
    std::printf("|---:|---:|---:|---:|\n");
    for (int n : {1000, 100000, 1000000}) {
        std::vector<std::string> participant(n);
        std::vector<const char*> p(n), g(n);
        std::vector<std::int32_t> age(n);
        for (int i = 0; i < n; ++i) {
            participant[i] = "p" + std::to_string(i);
            p[i] = participant[i].c_str();
            g[i] = rng.uniform_below(2) == 0 ? "F" : "M";
            age[i] = 18 + static_cast<std::int32_t>(rng.uniform_below(73));
        }
        const DemographicRows in{static_cast<std::size_t>(n), p.data(), g.data(), age.data()};
        const double base = time_ms([&] {
            std::vector<std::int32_t> sorted(age);
            std::sort(sorted.begin(), sorted.end());
            sink = sorted[n / 2];
        });
        const double ms = time_ms([&] { sink = generalize_demographics(in, 5, no_cancel).classes.size(); });
        std::printf("| %d | %.2f | %.2f | %.1fx |\n", n, base, ms, ms / base);
    }
    return 0;
}
