#include "core/pd/pd_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::core::pd {

namespace {
constexpr Named<ModelKind> kModelKinds[] = {{ModelKind::Marginals, "marginals"},
                                            {ModelKind::SeedBased, "seed_based"}};
constexpr Named<Resample> kResamples[] = {{Resample::Random, "random"}, {Resample::Last, "last"}};
} // namespace

ModelKind parse_model_kind(const std::string& name) {
    return parse_name(kModelKinds, "model", name);
}

const char* to_string(ModelKind kind) {
    return name_of(kModelKinds, kind);
}

Resample parse_resample(const std::string& name) {
    return parse_name(kResamples, "resample", name);
}

const char* to_string(Resample resample) {
    return name_of(kResamples, resample);
}

namespace {

double log_add_exp(double a, double b) {
    if (a == kNoBand)
        return b;
    if (b == kNoBand)
        return a;
    const double hi = std::max(a, b);
    return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

// A candidate's log p_j(y_j) and exp(log p_j(y_j) - shift), shift = their maximum.
struct CandidateLogs {
    const double* log_x;
    const double* scaled;
    double shift;
};

CandidateLogs candidate_logs(const Marginals& marginals, const std::uint8_t* y, std::size_t m, double* log_x,
                             double* scaled) {
    double shift = kNoBand;
    for (std::size_t j = 0; j < m; ++j) {
        log_x[j] = marginals.log_p(j, y[j]);
        shift = std::max(shift, log_x[j]);
    }
    for (std::size_t j = 0; j < m; ++j)
        scaled[j] = std::exp(log_x[j] - shift);
    return {log_x, scaled, shift};
}

// e_r of positive x[0, n) by the recurrence e_q += x_i e_{q-1} (q downwards), in linear arithmetic.
double elementary_symmetric(const double* x, std::size_t n, std::size_t r) {
    std::array<double, kMaxRandomFeatures + 1> e;
    e[0] = 1;
    for (std::size_t q = 1; q <= r; ++q)
        e[q] = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t q = std::min(r, i + 1); q >= 1; --q)
            e[q] += x[i] * e[q - 1];
    return e[r];
}

// Below this a linear e_r may have lost terms to underflow: the log-space recurrence decides instead.
constexpr double kLinearFloor = 1e-250;

// The Random closed form for a seed differing from y on `mask` (at most omega features). y.scaled[j] =
// exp(y.log_x[j] - y.shift), shift = max_j log_x[j], lies in (0, 1]: e_r of the agreeing p_j is
// exp(r shift) e_r(scaled), summed in linear arithmetic (positive terms: no cancellation, relative error
// O(n r) ulps) instead of log-space steps with exp and log1p each (profiled: 60% of the seed-based scan at
// omega = 30 of 33); the log-space recurrence takes over when that underflows (tiny or zero p_j).
double random_log_prob(const CandidateLogs& y, std::size_t m, std::size_t omega, double log_binom,
                       std::uint64_t mask, double* scratch_log, double* scratch) {
    const std::size_t differing = static_cast<std::size_t>(popcount64(mask));
    double sum = -log_binom;
    std::size_t agreeing = 0;
    for (std::size_t j = 0; j < m; ++j) {
        if (mask >> j & 1u) {
            sum += y.log_x[j];
        } else {
            scratch_log[agreeing] = y.log_x[j];
            scratch[agreeing++] = y.scaled[j];
        }
    }
    if (sum == kNoBand)
        return kNoBand;
    const std::size_t r = omega - differing;
    if (r > agreeing)
        return kNoBand;
    const double e = elementary_symmetric(scratch, agreeing, r);
    if (e > kLinearFloor && std::isfinite(y.shift))
        return sum + (std::log(e) + static_cast<double>(r) * y.shift);
    return sum + log_elementary_symmetric(scratch_log, agreeing, r);
}

} // namespace

std::uint8_t FeatureBins::code(double x) const {
    if (width == 0)
        return 0;
    const double t = (x - lo) / width;
    if (!(t >= 0))
        return 0;
    if (t >= bins)
        return static_cast<std::uint8_t>(bins - 1);
    return static_cast<std::uint8_t>(std::min(static_cast<int>(t), bins - 1));
}

double FeatureBins::value(std::uint8_t b, Rng& rng) const {
    if (width == 0)
        return lo;
    // Rounding can put lo + (b + u) width on a neighbouring bin's edge (u close to 1, or lo + b width
    // rounded down): redraw, so that every released value bins back to its bin. Bins narrower than the
    // spacing of doubles around lo may have no such value: after 64 tries, the bin's lower edge.
    for (int attempt = 0; attempt < 64; ++attempt) {
        const double v = lo + (b + rng.uniform01()) * width;
        if (code(v) == b)
            return v;
    }
    return lo + b * width;
}

FeatureBins bins_over(double lo, double hi, int bins) {
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi))
        throw InvalidArgument("bins need finite bounds with lower <= upper");
    if (bins < 2 || bins > kMaxBins)
        throw InvalidArgument("bins must be between 2 and " + std::to_string(kMaxBins) + ", got " +
                              std::to_string(bins));
    if (!std::isfinite(hi - lo))
        throw InvalidArgument("a feature's range is too wide to bin (its upper minus lower bound overflows)");
    FeatureBins b;
    b.lo = lo;
    b.width = (hi - lo) / bins;
    b.bins = b.width > 0 ? bins : 1;
    return b;
}

Marginals::Marginals(const std::vector<FeatureBins>& bins)
    : counts_(bins.size() * kMaxBins, 0.0), p_(bins.size() * kMaxBins, 0.0),
      log_p_(bins.size() * kMaxBins, kNoBand), cdf_(bins.size() * kMaxBins, 1.0),
      guide_(bins.size() * kGuide, 0) {
    bins_.reserve(bins.size());
    for (const FeatureBins& b : bins)
        bins_.push_back(b.bins);
}

void Marginals::add_rows(const std::uint8_t* codes, std::size_t stride, std::size_t rows) {
    const std::size_t m = features();
    for (std::size_t r = 0; r < rows; ++r) {
        const std::uint8_t* row = codes + r * stride;
        for (std::size_t j = 0; j < m; ++j)
            counts_[j * kMaxBins + row[j]] += 1;
    }
}

void Marginals::add_noise(double scale, Rng& rng) {
    const IntegerLaplace noise(scale);
    for (std::size_t j = 0; j < features(); ++j)
        for (int b = 0; b < bins_[j]; ++b) {
            double& c = counts_[j * kMaxBins + b];
            c = std::max(0.0, c + static_cast<double>(noise(rng)));
        }
}

void Marginals::finish(double alpha) {
    for (std::size_t j = 0; j < features(); ++j) {
        const int bins = bins_[j];
        double* c = &counts_[j * kMaxBins];
        double total = 0;
        for (int b = 0; b < bins; ++b)
            total += c[b];
        double* p = &p_[j * kMaxBins];
        double* lp = &log_p_[j * kMaxBins];
        double* cdf = &cdf_[j * kMaxBins];
        int last_positive = 0;
        double acc = 0;
        for (int b = 0; b < bins; ++b) {
            p[b] = total + alpha > 0 ? (c[b] + alpha / bins) / (total + alpha) : 1.0 / bins;
            lp[b] = p[b] > 0 ? std::log(p[b]) : kNoBand;
            acc += p[b];
            cdf[b] = acc;
            if (p[b] > 0)
                last_positive = b;
        }
        // Rounding may leave the cumulative sum just below 1: the last bin with mass takes the remainder, so
        // that a uniform draw always lands in a bin of positive probability.
        for (int b = last_positive; b < kMaxBins; ++b)
            cdf[b] = 1.0;
        std::uint8_t* guide = &guide_[j * kGuide];
        int b = 0;
        for (int g = 0; g < kGuide; ++g) {
            while (cdf[b] <= static_cast<double>(g) / kGuide)
                ++b;
            guide[g] = static_cast<std::uint8_t>(b);
        }
    }
}

std::uint8_t Marginals::sample(std::size_t j, Rng& rng) const {
    const double u = rng.uniform01(); // in [0, 1): the first bin whose cumulative probability exceeds u
    const double* cdf = &cdf_[j * kMaxBins];
    int b = guide_[j * kGuide + static_cast<int>(u * kGuide)]; // cdf[b - 1] <= u: start there
    while (cdf[b] <= u)
        ++b;
    return static_cast<std::uint8_t>(b);
}

Model::Model(ModelKind kind, Resample resample, std::size_t omega, const Marginals& marginals)
    : kind_(kind), resample_(resample), m_(marginals.features()),
      omega_(kind == ModelKind::Marginals ? marginals.features() : omega), marginals_(marginals) {
    if (m_ == 0)
        throw InvalidArgument("a model needs at least one feature");
    if (kind_ == ModelKind::SeedBased && (omega_ < 1 || omega_ > m_))
        throw InvalidArgument("omega must be between 1 and the number of features (" + std::to_string(m_) +
                              "), got " + std::to_string(omega));
    if (kind_ == ModelKind::SeedBased && resample_ == Resample::Random && m_ > kMaxRandomFeatures)
        throw InvalidArgument("resample => 'random' supports at most " + std::to_string(kMaxRandomFeatures) +
                              " features, got " + std::to_string(m_) + "; use resample => 'last'");
}

void Model::generate(const std::uint8_t* seed, std::uint8_t* y, Rng& rng) const {
    if (kind_ == ModelKind::Marginals) {
        for (std::size_t j = 0; j < m_; ++j)
            y[j] = marginals_.sample(j, rng);
        return;
    }
    std::copy(seed, seed + m_, y);
    if (resample_ == Resample::Last) {
        for (std::size_t j = m_ - omega_; j < m_; ++j)
            y[j] = marginals_.sample(j, rng);
        return;
    }
    // A uniformly random omega-subset: the first omega positions of a partial Fisher-Yates shuffle.
    std::array<std::uint8_t, kMaxRandomFeatures> order;
    for (std::size_t j = 0; j < m_; ++j)
        order[j] = static_cast<std::uint8_t>(j);
    for (std::size_t i = 0; i < omega_; ++i) {
        const std::size_t r = i + rng.uniform_below(m_ - i);
        std::swap(order[i], order[r]);
        y[order[i]] = marginals_.sample(order[i], rng);
    }
}

double Model::log_prob(const std::uint8_t* y, const std::uint8_t* d) const {
    if (seedless() || resample_ == Resample::Last) {
        const std::size_t copied = seedless() ? 0 : m_ - omega_;
        for (std::size_t j = 0; j < copied; ++j)
            if (y[j] != d[j])
                return kNoBand;
        double sum = 0;
        for (std::size_t j = copied; j < m_; ++j)
            sum += marginals_.log_p(j, y[j]);
        return sum;
    }
    std::uint64_t mask = 0;
    for (std::size_t j = 0; j < m_; ++j)
        if (y[j] != d[j])
            mask |= std::uint64_t{1} << j;
    if (static_cast<std::size_t>(popcount64(mask)) > omega_)
        return kNoBand;
    std::array<double, kMaxRandomFeatures> log_x, scaled, scratch_log, scratch;
    const CandidateLogs logs = candidate_logs(marginals_, y, m_, log_x.data(), scaled.data());
    return random_log_prob(logs, m_, omega_, log_binomial(m_, omega_), mask, scratch_log.data(),
                           scratch.data());
}

CandidateScorer::CandidateScorer(const Model& model)
    : model_(model), log_x_(model.features()), scaled_(model.features()),
      log_binomial_(log_binomial(model.features(), model.omega())), scratch_log_(model.features()),
      scratch_(model.features()), keys_(64), values_(64), stamps_(64, 0) {}

void CandidateScorer::set_candidate(const std::uint8_t* y) {
    const std::size_t m = model_.features();
    shift_ = candidate_logs(model_.marginals(), y, m, log_x_.data(), scaled_.data()).shift;
    const std::size_t first_resampled = model_.seedless() ? 0 : m - model_.omega();
    agreeing_ = 0;
    for (std::size_t j = first_resampled; j < m; ++j)
        agreeing_ += log_x_[j];
    if (++stamp_ == 0) { // wrapped: forget every old entry
        std::fill(stamps_.begin(), stamps_.end(), 0);
        stamp_ = 1;
    }
    filled_ = 0;
}

double CandidateScorer::log_prob_for_mask(std::uint64_t mask) {
    if (static_cast<std::size_t>(popcount64(mask)) > model_.omega())
        return kNoBand;
    std::size_t capacity = keys_.size();
    std::size_t i = (mask * 0x9E3779B97F4A7C15ull) >> 32 & (capacity - 1);
    for (; stamps_[i] == stamp_; i = (i + 1) & (capacity - 1))
        if (keys_[i] == mask)
            return values_[i];
    const double value =
        random_log_prob({log_x_.data(), scaled_.data(), shift_}, model_.features(), model_.omega(),
                        log_binomial_, mask, scratch_log_.data(), scratch_.data());
    if (2 * (filled_ + 1) >
        capacity) { // keep the load below 1/2: grow and re-insert this candidate's entries
        std::vector<std::uint64_t> old_keys(std::move(keys_));
        std::vector<double> old_values(std::move(values_));
        std::vector<std::uint32_t> old_stamps(std::move(stamps_));
        capacity *= 2;
        keys_.assign(capacity, 0);
        values_.assign(capacity, 0);
        stamps_.assign(capacity, 0);
        for (std::size_t k = 0; k < old_keys.size(); ++k)
            if (old_stamps[k] == stamp_) {
                std::size_t at = (old_keys[k] * 0x9E3779B97F4A7C15ull) >> 32 & (capacity - 1);
                while (stamps_[at] == stamp_)
                    at = (at + 1) & (capacity - 1);
                keys_[at] = old_keys[k];
                values_[at] = old_values[k];
                stamps_[at] = stamp_;
            }
        i = (mask * 0x9E3779B97F4A7C15ull) >> 32 & (capacity - 1);
        while (stamps_[i] == stamp_)
            i = (i + 1) & (capacity - 1);
    }
    keys_[i] = mask;
    values_[i] = value;
    stamps_[i] = stamp_;
    ++filled_;
    return value;
}

double log_elementary_symmetric(const double* log_x, std::size_t n, std::size_t r) {
    if (r == 0)
        return 0;
    if (r > n)
        return kNoBand;
    if (r > kMaxRandomFeatures)
        throw InternalError("log_elementary_symmetric: r above the supported number of features");
    // le[q] = ln e_q of the terms seen so far; updated downwards so each term is used once.
    std::array<double, kMaxRandomFeatures + 1> le;
    le[0] = 0;
    for (std::size_t q = 1; q <= r; ++q)
        le[q] = kNoBand;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t q = std::min(r, i + 1); q >= 1; --q)
            le[q] = log_add_exp(le[q], log_x[i] + le[q - 1]);
    return le[r];
}

double log_binomial(std::size_t n, std::size_t r) {
    return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(r) + 1) -
           std::lgamma(static_cast<double>(n - r) + 1);
}

} // namespace gazepriv::core::pd
