// Sampler throughput: every secure sampler against a plain std::mt19937_64 + std::normal_distribution
// baseline measured in the same run (not secure: no CSPRNG, floating-point noise), the faster exact
// samplers of fast_exact_noise.hpp next to the reference samplers with the same distributions. Prints a
// table.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/noise/discrete.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/noise/gaussian_table.hpp"
#include "core/noise/noise.hpp"
#include "core/noise/random.hpp"

using namespace gazepriv::core;

namespace {

volatile double sink_double;
volatile std::int64_t sink_int;

// Samples per second of body (which draws `batch` samples per call), best of three 0.3 s runs.
double throughput(const std::function<void()>& body, std::size_t batch) {
    double best = 0;
    for (int run = 0; run < 3; ++run) {
        std::size_t calls = 0;
        const auto start = std::chrono::steady_clock::now();
        double elapsed = 0;
        do {
            body();
            ++calls;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } while (elapsed < 0.3);
        best = std::max(best, static_cast<double>(calls * batch) / elapsed);
    }
    return best;
}

template <typename Draw> std::function<void()> batch_of(Draw draw) {
    return [draw]() mutable {
        double acc = 0;
        for (int i = 0; i < 10000; ++i)
            acc += static_cast<double>(draw());
        sink_double = acc;
    };
}

} // namespace

int main() {
    Rng rng(Rng::KernelEntropy{});
    std::mt19937_64 mt(12345);
    std::normal_distribution<double> normal(0.0, 1.0);

    const double baseline = throughput(batch_of([&] { return normal(mt); }), 10000);

    const GaussianTable table_small(3.0), table_heatmap(6500.0);
    const RationalVariance exact_small = rational_variance_at_least(3.0);
    const RationalVariance exact_heatmap = rational_variance_at_least(6500.0);
    const RationalScale laplace_small = rational_scale_at_least(3.0);
    const RationalScale laplace_large = rational_scale_at_least(1.76e6);
    const GridLaplace grid_laplace = GridLaplace::with_scale(2.0);
    const GridGaussian grid_gaussian = GridGaussian::with_sigma(2.0);
    const RationalScale geometric_units = rational_scale_at_least(std::ldexp(1.3, 40));
    const FastGridExponential exponential = FastGridExponential::with_mean(1.0);
    std::vector<double> values(10000, 0.3);

    struct Row {
        std::string name;
        double rate;
    };
    std::vector<Row> rows = {
        {"baseline: mt19937_64 + normal_distribution (insecure)", baseline},
        {"CSPRNG next_u64 (AES-256-CTR)", throughput(batch_of([&] { return rng.next_u64() >> 11; }), 10000)},
        {"CSPRNG uniform01", throughput(batch_of([&] { return rng.uniform01(); }), 10000)},
        {"discrete Gaussian, table, sigma=3",
         throughput(batch_of([&] { return table_small.sample(rng); }), 10000)},
        {"discrete Gaussian, table, sigma=6500 (heatmap)",
         throughput(batch_of([&] { return table_heatmap.sample(rng); }), 10000)},
        {"discrete Gaussian, exact CKS, sigma=3",
         throughput(batch_of([&] { return discrete_gaussian(rng, exact_small); }), 10000)},
        {"discrete Gaussian, exact CKS, sigma=6500",
         throughput(batch_of([&] { return discrete_gaussian(rng, exact_heatmap); }), 10000)},
        {"discrete Laplace, exact CKS, scale=3",
         throughput(batch_of([&] { return discrete_laplace(rng, laplace_small); }), 10000)},
        {"discrete Laplace, exact CKS, scale=1.76e6 (heatmap)",
         throughput(batch_of([&] { return discrete_laplace(rng, laplace_large); }), 10000)},
        {"Laplace on 2^-40 grid, scale=2",
         throughput(batch_of([&] { return grid_laplace.noise(rng); }), 10000)},
        {"Gaussian on 2^-24 grid, sigma=2",
         throughput(batch_of([&] { return grid_gaussian.noise(rng); }), 10000)},
        {"exponential on grid, mean=1",
         throughput(batch_of([&] { return grid_exponential(rng, 1.0); }), 10000)},
        {"planar Laplace radius, Gamma(2, 1)",
         throughput(batch_of([&] { return planar_laplace_radius(rng, 1.0); }), 10000)},
        {"geometric, exact CKS, scale=1.3*2^40",
         throughput(batch_of([&] { return discrete_geometric(rng, geometric_units); }), 10000)},
        {"Laplace on 2^-40 grid, scale=2, release of a value",
         throughput(batch_of([&] { return grid_laplace.release(0.3, rng); }), 10000)},
        {"fast exact: discrete Laplace, scale=3",
         throughput(batch_of([&] { return fast_discrete_laplace(rng, laplace_small); }), 10000)},
        {"fast exact: discrete Laplace, scale=1.76e6",
         throughput(batch_of([&] { return fast_discrete_laplace(rng, laplace_large); }), 10000)},
        {"fast exact: geometric, scale=1.3*2^40",
         throughput(batch_of([&] { return fast_discrete_geometric(rng, geometric_units); }), 10000)},
        {"fast exact: Laplace on 2^-40 grid, release of a value",
         throughput(batch_of([&] { return fast_grid_laplace_release(grid_laplace, 0.3, rng); }), 10000)},
        {"fast exact: Laplace on 2^-40 grid, release of an array",
         throughput(
             [&] {
                 fast_grid_laplace_release(grid_laplace, values.data(), values.data(), values.size(), rng);
                 sink_double = values[0];
             },
             values.size())},
        {"fast exact: exponential on grid, mean=1",
         throughput(batch_of([&] { return exponential.draw(rng); }), 10000)},
        {"fast exact: planar Laplace radius, Gamma(2, 1)",
         throughput(batch_of([&] { return fast_planar_laplace_radius(rng, 1.0); }), 10000)},
    };
    // Building the heatmap-scale table, which the cache amortises across releases.
    const auto start = std::chrono::steady_clock::now();
    const GaussianTable rebuilt(6500.5);
    const double build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    sink_int = rebuilt.sample(rng);

    std::printf("%-56s %14s %10s\n", "sampler", "M samples/s", "vs base");
    for (const Row& r : rows)
        std::printf("%-56s %14.1f %9.2fx\n", r.name.c_str(), r.rate / 1e6, r.rate / baseline);
    std::printf("\ntable build for sigma=6500 (%zu entries): %.1f ms (cached per sigma)\n", rebuilt.size(),
                build_ms);
    std::printf("1680x1050 map of table noise: %.1f ms; of exact noise: %.1f ms\n",
                1680.0 * 1050 / rows[4].rate * 1e3, 1680.0 * 1050 / rows[6].rate * 1e3);
    return 0;
}
