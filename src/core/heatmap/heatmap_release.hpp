// Releasing a DP gaze heatmap (Liu et al. 2019 §3.5; doc/privacy/heatmap.md §1).
//
// Query: the integer capped sums S_j = sum_i min(count_i(j), m) over the r cells of the grid. Under
// replace-one neighbours (one participant's data replaced, n public) S changes by at most m per cell:
// L2 sensitivity m sqrt(r), L1 sensitivity m r. Noise is exact integer noise on S (discrete Gaussian or
// discrete Laplace), the released map is (S + noise) / n (the paper's normalised G, whose sensitivities
// are m sqrt(r) / n and m r / n), and the point-spread blur comes after the noise (post-processing).
//
// The cost of a release is computed in one place, plan_heatmap_release, from the specification alone
// (never from the data), before any noise is drawn; release functions draw noise only from a plan.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/discrete_gaussian_calibration.hpp"
#include "core/heatmap/heatmap_spec.hpp"
#include "core/noise/random.hpp"
#include "core/common/release_cost.hpp"

namespace gazepriv::core {

struct HeatmapReleasePlan {
    HeatmapSpec spec;
    double l2_sensitivity = 0;     // of the capped sums: m sqrt(r)
    double l1_sensitivity = 0;     // m r
    DiscreteGaussianPlan gaussian; // Gaussian mechanism
    double laplace_scale = 0;      // Laplace mechanism: b = m r / epsilon, in counts
    ReleaseCost cost;

    // Standard deviation of the noise on one capped sum, in counts (the released map's is this / n).
    double noise_sd() const;
};

// THE privacy cost of a heatmap release with this specification. Gaussian: (epsilon, delta) as
// requested and rho = (m sqrt(r))^2 / (2 sigma^2); Laplace: (epsilon, 0). Throws InvalidArgument for
// parameters no calibration can meet.
HeatmapReleasePlan plan_heatmap_release(const HeatmapSpec& spec);

// The checks of plan_heatmap_release that are cheap (parameters, the named calibration's range, the noise
// limits), for validating a spec without calibrating it; plan_heatmap_release still checks everything.
void check_heatmap_release(const HeatmapSpec& spec);

// The accuracy inverse (issue 18): the smallest epsilon (to 1e-9 relative) at which a release with this
// spec, its public observers n given, keeps every cell within +- half_width of its exact capped value / n
// with the given confidence, as map_accuracy states it (significance.hpp); the spec's own epsilon is
// ignored. From public parameters only. InvalidArgument without observers, for a half_width that is not
// positive and finite, or when no epsilon up to 1e6 reaches it.
double epsilon_for_map_accuracy(HeatmapSpec spec, double half_width, double confidence);

// values[j] = (sums[j] + noise_j) / n for the r = plan's cells, noise drawn per the plan; then the
// plan's blur. n >= 1.
void release_heatmap(const HeatmapReleasePlan& plan, const std::int64_t* sums, double n, Rng& rng,
                     double* values, const CancelCheck& cancel);

// Algorithm 1 of Liu et al. (Theorem 4.1's expected MSE): the cap m in [1, max count] minimising
// E[MSE] = noise variance of the normalised map at cap m + (1/r) ||G(0, m) - G(0, inf)||^2, with the noise
// variance of this plan's mechanism at cap m. NON-PRIVATE: it reads the raw per-participant counts.
// `cell_counts` visits every cell's per-participant (uncapped) counts: visit(f) calls f(counts, k) once
// per cell with at least one count.
struct CapCandidate {
    std::int64_t cap;
    double expected_mse;
};
template <typename VisitCells>
CapCandidate optimal_cap(const HeatmapSpec& spec, double n, std::int64_t max_count, VisitCells visit,
                         const CancelCheck& cancel);

// Implementation detail of optimal_cap: the bias term for every m, acc[m] = sum_j D_j(m)^2 with
// D_j(m) = sum_i (c_ij - m)_+, accumulated one cell at a time.
class CapBias {
public:
    explicit CapBias(std::int64_t max_count);
    void add_cell(const std::uint32_t* counts, std::size_t k); // counts are sorted by the call
    double squared_bias_sum(std::int64_t m) const {
        return m < static_cast<std::int64_t>(acc_.size()) ? acc_[m] : 0;
    }

private:
    std::vector<double> acc_;
    std::vector<std::uint32_t> scratch_;
};

// The per-cell noise variance, in counts^2, of the plan's mechanism if the cap were m instead.
double noise_variance_at_cap(const HeatmapReleasePlan& plan, std::int64_t m);

template <typename VisitCells>
CapCandidate optimal_cap(const HeatmapSpec& spec, double n, std::int64_t max_count, VisitCells visit,
                         const CancelCheck& cancel) {
    HeatmapSpec unit = spec;
    unit.parameters.cap = 1;
    const HeatmapReleasePlan plan = plan_heatmap_release(unit);
    CapBias bias(max_count);
    visit([&](const std::uint32_t* counts, std::size_t k) { bias.add_cell(counts, k); });
    const double r = static_cast<double>(spec.parameters.grid.cells());
    CapCandidate best{1, 0};
    bool first = true;
    for (std::int64_t m = 1; m <= std::max<std::int64_t>(max_count, 1); ++m) {
        cancel.poll(static_cast<std::size_t>(m));
        const double noise = noise_variance_at_cap(plan, m) / (n * n);
        if (!first && noise >= best.expected_mse)
            break; // the noise term only grows with m
        const double mse = noise + bias.squared_bias_sum(m) / (n * n * r);
        if (first || mse < best.expected_mse)
            best = {m, mse};
        first = false;
    }
    return best;
}

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
