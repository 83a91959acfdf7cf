#include "core/heatmap/heatmap_release.hpp"
#include "core/heatmap/significance.hpp"

#include <cmath>
#include <limits>
#include <functional>

#include "core/common/errors.hpp"
#include "core/heatmap/gaussian_blur.hpp"
#include "core/common/json.hpp"
#include "core/noise/noise.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

// Variance of the discrete Laplace distribution P(x) ~ exp(-|x| / b): 2q / (1 - q)^2, q = e^(-1/b).
double discrete_laplace_variance(double b) {
    const double q = std::exp(-1 / b);
    const double one_minus_q = -std::expm1(-1 / b);
    return 2 * q / (one_minus_q * one_minus_q);
}

std::string cost_parameters_json(const HeatmapReleasePlan& plan) {
    const HeatmapParameters& p = plan.spec.parameters;
    JsonObject json;
    json.add("mechanism", to_string(p.mechanism));
    if (p.mechanism == HeatmapMechanism::Gaussian)
        json.add("calibration", to_string(p.calibration));
    json.add("width", p.grid.width);
    json.add("height", p.grid.height);
    json.add("cell_size", p.grid.cell_size);
    json.add("cells", p.grid.cells());
    json.add("cap", p.cap);
    json.add("epsilon", p.epsilon);
    if (p.mechanism == HeatmapMechanism::Gaussian)
        json.add("delta", p.delta);
    json.add("blur_sigma", p.blur_sigma);
    if (p.observers != 0)
        json.add("observers", p.observers);
    else
        json.add_null("observers");
    json.add("n", p.observers != 0 ? "observers" : "exact participant count, treated as public");
    if (plan.spec.dataset)
        json.add("dataset", *plan.spec.dataset);
    else
        json.add_null("dataset");
    json.add("neighbours", "replace one participant, n public");
    json.add("l2_sensitivity", plan.l2_sensitivity);
    json.add("l1_sensitivity", plan.l1_sensitivity);
    if (p.mechanism == HeatmapMechanism::Gaussian) {
        const DiscreteGaussianPlan& g = plan.gaussian;
        json.add("sigma", g.sigma);
        json.add("certificate", to_string(g.certificate));
        json.add("tau", g.tau);
        json.add("sampler", g.exact_sampler ? "exact" : "table");
        json.add("sampler_distance", g.sampler_distance);
        json.add("delta_sampler", g.delta_sampler);
        json.add("delta_discreteness", g.delta_discreteness);
    } else {
        json.add("scale", plan.laplace_scale);
        json.add("sampler", "exact");
    }
    return json.str();
}

} // namespace

double HeatmapReleasePlan::noise_sd() const {
    return spec.parameters.mechanism == HeatmapMechanism::Gaussian
               ? gaussian.sigma
               : std::sqrt(discrete_laplace_variance(laplace_scale));
}

double epsilon_for_map_accuracy(HeatmapSpec spec, double half_width, double confidence) {
    HeatmapParameters& p = spec.parameters;
    if (p.observers < 1)
        throw InvalidArgument("the accuracy of a map needs its public number of observers");
    if (!(half_width > 0 && std::isfinite(half_width)))
        throw InvalidArgument("half_width must be a positive finite number, got " +
                              format_number(half_width));
    const double n = static_cast<double>(p.observers);
    // The half-width at epsilon, +infinity where no calibration exists (too little epsilon for the cells).
    const auto width_at = [&](double epsilon) {
        p.epsilon = epsilon;
        HeatmapReleasePlan plan;
        try {
            plan = plan_heatmap_release(spec);
        } catch (const InvalidArgument&) {
            return std::numeric_limits<double>::infinity();
        }
        const bool gaussian = p.mechanism == HeatmapMechanism::Gaussian;
        const MapNoise noise{gaussian, (gaussian ? plan.gaussian.sigma : plan.laplace_scale) / n,
                             p.blur_sigma / p.grid.cell_size, n};
        return map_accuracy(noise, confidence).accuracy.half_width;
    };
    double lo = kMinEpsilon, hi = 1e6; // the half-width does not grow with epsilon
    if (width_at(lo) <= half_width)
        return lo;
    if (!(width_at(hi) <= half_width))
        throw InvalidArgument("no epsilon up to 1e6 gives every cell +- " + format_number(half_width));
    for (int i = 0; i < 200 && hi > lo * (1 + 1e-9); ++i) { // bisection of log(epsilon)
        const double mid = std::sqrt(lo * hi);
        (width_at(mid) <= half_width ? hi : lo) = mid;
    }
    return hi;
}

HeatmapReleasePlan plan_heatmap_release(const HeatmapSpec& spec) {
    const HeatmapParameters& p = spec.parameters;
    validate_heatmap_parameters(p, kMaxHeatmapCells);
    HeatmapReleasePlan plan;
    plan.spec = spec;
    const double r = static_cast<double>(p.grid.cells());
    const double m = p.cap;
    plan.l2_sensitivity = m * std::sqrt(r);
    plan.l1_sensitivity = m * r;
    ReleaseCost& cost = plan.cost;
    cost.guarantee = Guarantee::DifferentialPrivacy;
    cost.mechanism = "dp_heatmap";
    cost.non_private_choices = false;
    cost.epsilon = p.epsilon;
    if (p.mechanism == HeatmapMechanism::Gaussian) {
        plan.gaussian = plan_discrete_gaussian(plan.l2_sensitivity, p.epsilon, p.delta, p.calibration,
                                               static_cast<std::uint64_t>(p.grid.cells()));
        cost.delta = p.delta; // includes the sampler's and the discreteness reserves
        cost.rho = plan.gaussian.rho;
        cost.sampler_distance = plan.gaussian.sampler_distance;
    } else {
        plan.laplace_scale = laplace_scale(plan.l1_sensitivity, p.epsilon);
        if (!(plan.laplace_scale <= 0x1.0p52))
            throw InvalidArgument("the Laplace noise scale " + format_number(plan.laplace_scale) +
                                  " is too large; use a larger epsilon, fewer cells or a smaller cap");
        cost.delta = 0;
        cost.rho = -1;
    }
    cost.parameters_json = cost_parameters_json(plan);
    return plan;
}

void check_heatmap_release(const HeatmapSpec& spec) {
    const HeatmapParameters& p = spec.parameters;
    validate_heatmap_parameters(p, kMaxHeatmapCells);
    const double r = static_cast<double>(p.grid.cells());
    if (p.mechanism == HeatmapMechanism::Gaussian) {
        const double sigma = gaussian_sigma(p.cap * std::sqrt(r), p.epsilon, p.delta, p.calibration);
        if (!(sigma < 0x1.0p26))
            throw LimitExceeded("the discrete Gaussian noise would need sigma = " + format_number(sigma) +
                                " count units; use a larger epsilon or fewer cells");
    } else if (!(laplace_scale(p.cap * r, p.epsilon) <= 0x1.0p52)) {
        throw InvalidArgument(
            "the Laplace noise scale is too large; use a larger epsilon, fewer cells or a smaller cap");
    }
}

void release_heatmap(const HeatmapReleasePlan& plan, const std::int64_t* sums, double n, Rng& rng,
                     double* values, const CancelCheck& cancel) {
    if (!(n >= 1))
        throw InvalidArgument("the number of observers must be at least 1");
    const GazeGrid& grid = plan.spec.parameters.grid;
    const std::size_t cells = static_cast<std::size_t>(grid.cells());
    auto add_noise = [&](auto& sampler) {
        for (std::size_t j = 0; j < cells; ++j) {
            cancel.poll(j);
            const std::int64_t noise = sampler(rng);
            std::int64_t noisy;
            // Exact either way: in 64 bits unless the sum overflows them (a 128-bit conversion is a
            // library call, 6% of a release's instructions).
            if (!__builtin_add_overflow(sums[j], noise, &noisy))
                values[j] = static_cast<double>(noisy) / n;
            else
                values[j] = static_cast<double>(static_cast<__int128>(sums[j]) + noise) / n;
        }
    };
    if (plan.spec.parameters.mechanism == HeatmapMechanism::Gaussian) {
        const IntegerGaussian sampler(plan.gaussian.sigma, plan.gaussian.exact_sampler);
        // The plan reserved delta for the table's statistical distance; never sample with more than that.
        if (sampler.statistical_distance_per_draw() * static_cast<double>(cells) >
            plan.gaussian.sampler_distance)
            throw InternalError("the discrete Gaussian sampler differs from the planned one");
        add_noise(sampler);
    } else {
        const IntegerLaplace sampler(plan.laplace_scale);
        add_noise(sampler);
    }
    gaussian_blur(values, grid.columns, grid.rows, plan.spec.parameters.blur_sigma / grid.cell_size, cancel);
}

CapBias::CapBias(std::int64_t max_count)
    : acc_(static_cast<std::size_t>(std::max<std::int64_t>(max_count, 1)) + 1) {}

void CapBias::add_cell(const std::uint32_t* counts, std::size_t k) {
    scratch_.assign(counts, counts + k);
    std::sort(scratch_.begin(), scratch_.end(), std::greater<>());
    // D(m) = sum_i (c_i - m)_+ for m = max - 1 down to 1: D(m) = D(m + 1) + #{c_i > m}.
    const std::int64_t top = scratch_.empty() ? 0 : scratch_[0];
    const std::int64_t stored = static_cast<std::int64_t>(acc_.size());
    double d = 0;
    std::size_t above = 0;
    for (std::int64_t m = top - 1; m >= 1; --m) {
        while (above < scratch_.size() && scratch_[above] > m)
            ++above;
        d += static_cast<double>(above);
        if (m < stored)
            acc_[static_cast<std::size_t>(m)] += d * d;
    }
}

double noise_variance_at_cap(const HeatmapReleasePlan& plan, std::int64_t m) {
    const double k = static_cast<double>(m) / plan.spec.parameters.cap;
    if (plan.spec.parameters.mechanism == HeatmapMechanism::Gaussian) {
        const double s = plan.gaussian.sigma_for_scaled_sensitivity(k);
        return s * s;
    }
    return discrete_laplace_variance(k * plan.laplace_scale);
}

} // namespace gazepriv::core
