// Kalεido core throughput on the real recordings (Hoppe 2018: 60 Hz, jitter and gaps; Uniss-FGD:
// 300 Hz), against a baseline measured in the same run: the same algorithm written the way a plain
// C++ port of the supplement's pseudocode would be (std::mt19937_64, floating-point Laplace and
// Gamma(2) noise, double sums; insecure). Also checks the accounting on the full data: the largest
// spending of any w consecutive samples, for the corrected algorithm and for the supplement's literal
// one (n_test = ceil(w / t_skip) tests per window, not enforced; missing samples dropped).
//
// Data: $GAZEPRIV_DATA (default ../shared/data), as in bench/run.sh.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/noise/discrete.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/kaleido/kaleido.hpp"
#include "core/noise/noise.hpp"
#include "core/noise/random.hpp"

using namespace gazepriv::core;

namespace {

struct Stream {
    std::vector<double> t, x, y;
};

// Reads one CSV with a header; columns t, x, y by name; empty fields are NaN.
void read_csv(const std::string& path, const std::string& key_col, const std::string& t_col,
              const std::string& x_col, const std::string& y_col, std::map<std::string, Stream>& out) {
    std::ifstream in(path);
    if (!in)
        return;
    std::string line;
    std::getline(in, line);
    std::vector<std::string> names;
    {
        std::stringstream ss(line);
        std::string f;
        while (std::getline(ss, f, ','))
            names.push_back(f);
    }
    auto col = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
    const auto k = col(key_col), ti = col(t_col), xi = col(x_col), yi = col(y_col);
    std::vector<std::string> f;
    while (std::getline(in, line)) {
        f.clear();
        std::string cur;
        for (char c : line) {
            if (c == ',') {
                f.push_back(cur);
                cur.clear();
            } else {
                cur.push_back(c);
            }
        }
        f.push_back(cur);
        auto num = [&](std::size_t i) {
            return i < f.size() && !f[i].empty() ? std::strtod(f[i].c_str(), nullptr) : NAN;
        };
        Stream& s = out[f[k]];
        s.t.push_back(num(ti));
        s.x.push_back(num(xi));
        s.y.push_back(num(yi));
    }
}

std::vector<Stream> load_hoppe(const std::string& dir) {
    std::map<std::string, Stream> m;
    for (int p = 0; p < 42; ++p) {
        char name[64];
        std::snprintf(name, sizeof name, "/participant_%02d.csv", p);
        read_csv(dir + "/hoppe2018_everyday/samples" + name, "participant", "t_ms", "x_norm", "y_norm", m);
    }
    std::vector<Stream> v;
    for (auto& [k, s] : m)
        v.push_back(std::move(s));
    return v;
}

std::vector<Stream> load_uniss(const std::string& dir) {
    // One stream per participant over all images, in recording order (t_ms is per participant).
    std::map<std::string, Stream> m;
    for (int img = 0; img < 120; ++img) {
        char name[64];
        std::snprintf(name, sizeof name, "/img_%03d.csv", img);
        read_csv(dir + "/uniss_fgd/samples" + name, "participant", "t_ms", "x_px", "y_px", m);
    }
    std::vector<Stream> v;
    for (auto& [k, s] : m) {
        std::vector<std::size_t> order(s.t.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return s.t[a] < s.t[b]; });
        Stream sorted;
        for (auto i : order) {
            sorted.t.push_back(s.t[i]);
            sorted.x.push_back(s.x[i]);
            sorted.y.push_back(s.y[i]);
        }
        v.push_back(std::move(sorted));
    }
    return v;
}

std::size_t total(const std::vector<Stream>& v) {
    std::size_t n = 0;
    for (auto& s : v)
        n += s.t.size();
    return n;
}

volatile double sink;

// The supplement's pseudocode with the same corrections, written plainly (baseline): insecure RNG,
// floating-point noise, double window sums.
struct PlainKaleido {
    const KaleidoParams p;
    std::mt19937_64 mt{12345};
    std::uniform_real_distribution<double> u01{0.0, 1.0};
    double run(const Stream& s, double* out_spent) {
        const double eps_test = p.epsilon / (p.h * p.max_tests), eps_p = p.epsilon - p.epsilon / p.h;
        std::vector<double> spent(s.t.size(), 0.0);
        std::vector<int> tested(s.t.size(), 0);
        double px = NAN, py = NAN, test_t = NAN, window = 0, acc = 0;
        int tests = 0;
        bool has = false;
        for (std::size_t i = 0; i < s.t.size(); ++i) {
            if (i >= static_cast<std::size_t>(p.w)) {
                window -= spent[i - p.w] - (tested[i - p.w] ? eps_test : 0);
                tests -= tested[i - p.w];
            }
            if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]))
                continue;
            if (has) {
                if (s.t[i] - test_t < p.t_skip || tests >= p.max_tests)
                    continue;
                test_t = s.t[i];
                tested[i] = 1;
                ++tests;
                spent[i] = eps_test;
                const double d = std::hypot(s.x[i] - px, s.y[i] - py);
                const double u = u01(mt) - 0.5;
                const double eta = -p.r / eps_test * std::copysign(std::log1p(-2 * std::fabs(u)), u);
                if (d <= p.l_thresh + eta)
                    continue;
            } else {
                test_t = s.t[i];
            }
            const double e = (eps_p - window) / 2;
            const double rho = -(std::log(1 - u01(mt)) + std::log(1 - u01(mt))) * p.r / e;
            const double theta = 2 * M_PI * u01(mt);
            px = s.x[i] + rho * std::cos(theta);
            py = s.y[i] + rho * std::sin(theta);
            has = true;
            spent[i] += e;
            window += e;
            acc += px;
        }
        if (out_spent != nullptr)
            std::copy(spent.begin(), spent.end(), out_spent);
        return acc;
    }
};

// The supplement's pseudocode taken literally (no cap): n_test = ceil(w / t_skip) with t_skip counted in
// samples (50 ms = 3 samples at 60 Hz), tests scheduled by time, missing samples dropped from the
// stream. Only the accounting is simulated (each test is assumed to publish, the worst case); returns
// the largest spending of w consecutive samples in units of epsilon and the most tests in one window.
std::pair<double, int> literal_accounting(const Stream& s, int w, double t_skip_ms, int t_skip_samples,
                                          double h) {
    const int n_test = (w + t_skip_samples - 1) / t_skip_samples;
    const double eps = 1.0, eps_test = eps / (h * n_test);
    std::vector<double> t;
    for (std::size_t i = 0; i < s.t.size(); ++i)
        if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]))
            t.push_back(s.t[i]);
    std::vector<double> spent(t.size(), 0.0);
    std::vector<int> tested(t.size(), 0);
    double test_t = NAN, window_pub = 0, worst = 0;
    int tests = 0, most = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (i >= static_cast<std::size_t>(w)) {
            window_pub -= spent[i - w] - (tested[i - w] ? eps_test : 0);
            tests -= tested[i - w];
        }
        if (i > 0 && t[i] - test_t < t_skip_ms)
            continue;
        test_t = t[i];
        double pub = (eps - eps / h - window_pub) / 2;
        if (i > 0) {
            tested[i] = 1;
            ++tests;
            spent[i] = eps_test;
        }
        spent[i] += pub;
        window_pub += pub;
        double window = 0;
        for (std::size_t k = i + 1 > static_cast<std::size_t>(w) ? i + 1 - w : 0; k <= i; ++k)
            window += spent[k];
        worst = std::max(worst, window);
        most = std::max(most, tests);
    }
    return {worst / eps, most};
}

template <typename F> double seconds_best_of(int runs, F body) {
    double best = 1e100;
    for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        body();
        best =
            std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

struct Counts {
    std::size_t published = 0, tested = 0, n = 0;
    double max_window = 0;
    std::int64_t max_tests_in_window = 0;
};

Counts run_secure(const KaleidoPlan& plan, const std::vector<Stream>& data, Rng& rng, bool check) {
    Counts c;
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    for (const Stream& s : data) {
        const std::size_t n = s.t.size();
        std::vector<double> ox(n), oy(n), spent(n);
        std::vector<KaleidoAction> act(n);
        kaleido_stream_init(plan, block.data());
        kaleido_run(plan, block.data(), n, s.t.data(), s.x.data(), s.y.data(), ox.data(), oy.data(),
                    act.data(), spent.data(), nullptr, rng, CancelCheck());
        sink = ox[n / 2];
        c.n += n;
        if (!check)
            continue;
        long double window = 0;
        std::int64_t tests = 0;
        const std::size_t w = static_cast<std::size_t>(plan.params().w);
        const std::size_t first = std::find(act.begin(), act.end(), KaleidoAction::Published) - act.begin();
        auto is_test = [&](std::size_t i) {
            return act[i] == KaleidoAction::Reused || act[i] == KaleidoAction::Exhausted ||
                   (act[i] == KaleidoAction::Published && i != first);
        };
        for (std::size_t i = 0; i < n; ++i) {
            window += spent[i];
            tests += is_test(i);
            if (i >= w) {
                window -= spent[i - w];
                tests -= is_test(i - w);
            }
            c.max_window = std::max(c.max_window, static_cast<double>(window));
            c.max_tests_in_window = std::max(c.max_tests_in_window, tests);
            c.published += act[i] == KaleidoAction::Published;
            c.tested += is_test(i);
        }
    }
    return c;
}

} // namespace

int main() {
    const char* env = std::getenv("GAZEPRIV_DATA");
    const std::string dir = env != nullptr ? env : "../shared/data";
    const std::vector<Stream> hoppe = load_hoppe(dir), uniss = load_uniss(dir);
    if (hoppe.empty() || uniss.empty()) {
        std::fprintf(stderr, "real data not found under %s (set GAZEPRIV_DATA)\n", dir.c_str());
        return 1;
    }
    std::printf("data: Hoppe %zu streams, %zu samples; Uniss %zu streams, %zu samples\n", hoppe.size(),
                total(hoppe), uniss.size(), total(uniss));
    Rng rng(Rng::KernelEntropy{});

    struct Case {
        const char* name;
        const std::vector<Stream>* data;
        KaleidoParams params;
    };
    const std::vector<Case> cases = {
        {"Hoppe e=1 r=.05 tests=20", &hoppe, kaleido_params(1, 60, 0.05, NAN, 50, 2, 20)},
        {"Hoppe e=10 r=.05 l=.15 tests=3", &hoppe, kaleido_params(10, 60, 0.05, 0.15, 333, 2, 3)},
        {"Uniss e=1 r=30px tests=20", &uniss, kaleido_params(1, 300, 30, NAN, 50, 2, 20)},
        {"Uniss e=20 r=40 l=120 tests=2", &uniss, kaleido_params(20, 300, 40, 120, 500, 2, 2)},
    };
    std::printf("\nCore throughput (M samples/s; baseline: the same algorithm with std::mt19937_64 and\n"
                "floating-point noise, insecure), share of samples tested and published, and the accounting\n"
                "check over every window of w consecutive samples of every stream:\n");
    std::printf("\n%-37s %10s %10s %10s %8s %8s %9s %9s\n", "case (w = 1 s, t_skip = 1 s / tests)",
                "baseline", "gazepriv", "ratio", "tested", "publish", "maxwin/e", "maxtests");
    for (const Case& c : cases) {
        const KaleidoPlan plan(c.params);
        const std::size_t n = total(*c.data);
        PlainKaleido plain{c.params};
        const double t_base = seconds_best_of(3, [&] {
            for (const Stream& s : *c.data)
                sink = plain.run(s, nullptr);
        });
        const double t_secure = seconds_best_of(3, [&] { run_secure(plan, *c.data, rng, false); });
        const Counts counts = run_secure(plan, *c.data, rng, true);
        std::printf("%-37s %8.1f M %8.1f M %9.2fx %7.1f%% %7.1f%% %9.6f %9lld\n", c.name, n / t_base / 1e6,
                    n / t_secure / 1e6, t_base / t_secure, 100.0 * counts.tested / n,
                    100.0 * counts.published / n, counts.max_window / c.params.epsilon,
                    static_cast<long long>(counts.max_tests_in_window));
    }

    // The exact samplers the core uses (fast_exact_noise.hpp) against the foundation's, same distributions.
    struct Sampler {
        const char* name;
        std::function<double()> reference, fast;
    };
    const RationalScale units = rational_scale_at_least(std::ldexp(1.3, 40));
    const GridLaplace test_noise = GridLaplace::mechanism(0.05, 0.025, 1);
    const std::vector<Sampler> samplers = {
        {"geometric, 2^40 grid units", [&] { return static_cast<double>(discrete_geometric(rng, units)); },
         [&] { return static_cast<double>(fast_discrete_geometric(rng, units)); }},
        {"test noise (grid Laplace release)", [&] { return test_noise.release(0.3, rng); },
         [&] { return fast_grid_laplace_release(test_noise, 0.3, rng); }},
        {"planar Laplace radius, Gamma(2)", [&] { return planar_laplace_radius(rng, 4.0); },
         [&] { return fast_planar_laplace_radius(rng, 4.0); }},
    };
    std::printf("\nExact samplers (M draws/s; baseline: the foundation's samplers, same distributions):\n");
    for (const Sampler& sm : samplers) {
        const int n = 300000;
        const double t_ref = seconds_best_of(3, [&] {
            double acc = 0;
            for (int i = 0; i < n; ++i)
                acc += sm.reference();
            sink = acc;
        });
        const double t_fast = seconds_best_of(3, [&] {
            double acc = 0;
            for (int i = 0; i < n; ++i)
                acc += sm.fast();
            sink = acc;
        });
        std::printf("  %-37s %8.1f %8.1f %8.2fx\n", sm.name, n / t_ref / 1e6, n / t_fast / 1e6,
                    t_ref / t_fast);
    }

    std::printf(
        "\nAccounting of the supplement's pseudocode taken literally on Hoppe (w = 60 samples, n_test =\n"
        "ceil(60/3) = 20, t_skip = 50 ms, h = 2, missing samples dropped, every test publishing):\n");
    double worst = 0;
    int most = 0;
    for (const Stream& st : hoppe) {
        const auto [spent, tests] = literal_accounting(st, 60, 50, 3, 2);
        worst = std::max(worst, spent);
        most = std::max(most, tests);
    }
    std::printf("  largest window spending %.3f epsilon, most tests in one window %d (cap 20)\n", worst,
                most);
    std::printf("  corrected (this implementation): at most epsilon and at most max_tests tests, see "
                "maxwin/e above\n");
    return 0;
}
