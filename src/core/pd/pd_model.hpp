// Plausible-deniability synthesis (Bindschaedler, Shokri and Gunter, PVLDB 2017; David-John, Butler and
// Jain, ETRA 2022): the binned per-task generative models and Pr{y = M(d)}, always in log space.
//
// Every feature of a task is cut into equal-width bins; a record becomes a row of bin codes. The models:
//  * marginals (the ETRA paper's): every feature is drawn from its marginal. Pr{y = M(d)} = prod_j p_j(y_j)
//    does not depend on the seed d: the model is seedless, every record is a plausible seed, the privacy
//    test always passes (when the task has k records) and protection comes only from the coarseness of
//    the marginals (or from noising them: model_epsilon).
//  * seed-based (PVLDB section 5, with a Bayesian network without edges): y copies m - omega features of
//    the seed and resamples omega of them from their marginals. Which ones:
//      - Resample::Last: the last omega features of the vector (SGF resamples the last omega attributes of
//        its fixed order). Pr{y = M(d)} = [d agrees with y on the first m - omega] prod_{j resampled}
//        p_j(y_j): all plausible seeds have the same probability, so gamma plays no role and the test counts
//        the records that share the seed's copied features.
//      - Resample::Random (default): a uniformly random omega-subset S per candidate. With D = the features
//        where d differs from y,
//          Pr{y = M(d)} = C(m, omega)^-1 sum_{|S| = omega, S contains D} prod_{j in S} p_j(y_j)
//                       = C(m, omega)^-1 prod_{j in D} p_j(y_j) e_{omega - |D|}(p_j(y_j) : j not in D),
//        e_r the elementary symmetric polynomial; it depends on how many and which features agree, so the
//        (k, gamma) test is meaningful. Zero when |D| > omega.
//    omega = m makes the model seedless (the marginals model).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/noise/random.hpp"

namespace gazepriv::core::pd {

constexpr int kMaxBins = 256; // codes are bytes
constexpr int kMaxRandomFeatures =
    64; // Resample::Random keys its memo by a 64-bit mask of differing features
constexpr double kNoBand = -std::numeric_limits<double>::infinity(); // log 0

// Equal-width bins of one feature over [lo, lo + bins * width]; values outside are clamped into the first
// or last bin. width == 0 means a constant feature (zero range): one value, which maps back to lo.
struct FeatureBins {
    double lo = 0;
    double width = 0;
    int bins = 1;

    std::uint8_t code(double x) const;
    // A value drawn uniformly inside bin `code` (uniform01 from the CSPRNG).
    double value(std::uint8_t code, Rng& rng) const;
};

// Bins over [lo, hi] (lo <= hi, finite); lo == hi gives the constant-feature bin.
FeatureBins bins_over(double lo, double hi, int bins);

// Set bits of x. Branch-free: the baseline x86-64 target has no POPCNT instruction, and GCC's
// __builtin_popcountll then calls libgcc's table routine (profiled: 64% of a scan).
inline int popcount64(std::uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

// Bytes per row of codes: features rounded up to 16 so that rows compare 16 bytes at a time; the padding is
// 0.
inline std::size_t code_stride(std::size_t features) {
    return (features + 15) / 16 * 16;
}

// The per-feature marginal distributions of a task's binned records, Dirichlet-smoothed:
// p_j(b) = (c_j(b) + alpha / B_j) / (sum_b c_j(b) + alpha), with c_j(b) >= 0 the (optionally noised) counts
// and B_j the bins of feature j (1 for a constant feature). Empty totals (no records and alpha = 0) give the
// uniform distribution.
class Marginals {
public:
    explicit Marginals(const std::vector<FeatureBins>& bins);

    // Counts rows of codes (stride bytes each).
    void add_rows(const std::uint8_t* codes, std::size_t stride, std::size_t rows);
    // Adds discrete Laplace noise of the given scale to every count and floors at 0 (a DP model: one record
    // changes one count of every feature, so the L1 sensitivity is the number of features under add/remove).
    void add_noise(double scale, Rng& rng);
    // Turns counts into probabilities; call once, after counting (and noising).
    void finish(double alpha);

    std::size_t features() const { return bins_.size(); }
    int bins(std::size_t j) const { return bins_[j]; }
    double log_p(std::size_t j, std::uint8_t b) const { return log_p_[j * kMaxBins + b]; }
    double p(std::size_t j, std::uint8_t b) const { return p_[j * kMaxBins + b]; }
    // A draw from p_j: never a bin of probability 0.
    std::uint8_t sample(std::size_t j, Rng& rng) const;

private:
    std::vector<int> bins_;
    std::vector<double> counts_, p_, log_p_, cdf_; // features x kMaxBins
    // Guide table (Chen 1974): guide_[j * kGuide + g] = the first bin whose cumulative probability exceeds
    // g / kGuide, so that a draw starts its search there and takes about one step.
    static constexpr int kGuide = 256;
    std::vector<std::uint8_t> guide_;
};

enum class ModelKind { Marginals, SeedBased };
ModelKind parse_model_kind(const std::string& name); // "marginals", "seed_based"
const char* to_string(ModelKind kind);
enum class Resample { Random, Last };
Resample parse_resample(const std::string& name); // "random", "last"
const char* to_string(Resample resample);

// The generative model M of one task.
class Model {
public:
    // omega in [1, m] for SeedBased (ignored for Marginals); Random needs m <= kMaxRandomFeatures.
    Model(ModelKind kind, Resample resample, std::size_t omega, const Marginals& marginals);

    std::size_t features() const { return m_; }
    std::size_t omega() const { return omega_; }
    ModelKind kind() const { return kind_; }
    Resample resample() const { return resample_; }
    const Marginals& marginals() const { return marginals_; }
    // True when Pr{y = M(d)} does not depend on d (marginals, or omega = m).
    bool seedless() const { return kind_ == ModelKind::Marginals || omega_ == m_; }

    // y = M(seed): codes of m features (the caller pads y to the stride with zeros).
    void generate(const std::uint8_t* seed, std::uint8_t* y, Rng& rng) const;

    // log Pr{y = M(d)} by the closed forms above (kNoBand when impossible). Straightforward: no memo, no
    // vector compare; the fast counters in pd_test use the same formula through CandidateScorer.
    double log_prob(const std::uint8_t* y, const std::uint8_t* d) const;

private:
    ModelKind kind_;
    Resample resample_;
    std::size_t m_;
    std::size_t omega_;
    const Marginals& marginals_;
};

// Scores one candidate y against the seeds of a task: holds log p_j(y_j) once per candidate. For
// Resample::Random it memoises log Pr by the mask of features where the seed differs from y (many seeds share
// a mask); the memo is reset per candidate by a generation stamp, so nothing is reallocated.
class CandidateScorer {
public:
    explicit CandidateScorer(const Model& model);

    void set_candidate(const std::uint8_t* y);
    // Random: log Pr{y = M(d)} for a seed d that differs from y exactly on the features in `mask` (bit j =
    // feature j); kNoBand when more than omega differ.
    double log_prob_for_mask(std::uint64_t mask);
    // Marginals and Last: log Pr{y = M(d)} for a seed that agrees with y on every copied feature (every other
    // seed has probability 0).
    double log_prob_agreeing() const { return agreeing_; }

private:
    const Model& model_;
    std::vector<double> log_x_;  // log p_j(y_j)
    std::vector<double> scaled_; // exp(log p_j(y_j) - shift_), shift_ = max_j log p_j(y_j)
    double shift_ = 0;
    double agreeing_ = 0;
    double log_binomial_ = 0; // ln C(m, omega)
    std::vector<double> scratch_log_, scratch_;
    // Open-addressing memo (mask -> log Pr) with generation stamps.
    std::vector<std::uint64_t> keys_;
    std::vector<double> values_;
    std::vector<std::uint32_t> stamps_;
    std::uint32_t stamp_ = 0;
    std::size_t filled_ = 0;
};

// ln of the elementary symmetric polynomial e_r of exp(log_x[i]) over i in [0, n), exactly in log space
// (terms are positive: no cancellation). e_0 = 1 (returns 0).
double log_elementary_symmetric(const double* log_x, std::size_t n, std::size_t r);

// ln C(n, r).
double log_binomial(std::size_t n, std::size_t r);

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
