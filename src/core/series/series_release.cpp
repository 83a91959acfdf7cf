#include "core/series/series_release.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/json.hpp"
#include "core/noise/accuracy.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/noise/noise.hpp"
#include "core/series/real_fft.hpp"
#include "core/series/series_selection.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {
constexpr Named<SensitivityMode> kSensitivityModes[] = {{SensitivityMode::Empirical, "empirical"},
                                                        {SensitivityMode::Clipped, "clipped"}};
constexpr Named<ChunkSemantics> kChunkSemantics[] = {{ChunkSemantics::Participant, "participant"},
                                                     {ChunkSemantics::Chunk, "chunk"}};
} // namespace

SensitivityMode parse_sensitivity_mode(const std::string& name) {
    return parse_name(kSensitivityModes, "sensitivity", name);
}

const char* to_string(SensitivityMode mode) {
    return name_of(kSensitivityModes, mode);
}

ChunkSemantics parse_chunk_semantics(const std::string& name) {
    return parse_name(kChunkSemantics, "chunk_semantics", name);
}

const char* to_string(ChunkSemantics semantics) {
    return name_of(kChunkSemantics, semantics);
}

void check_series_release_config(const SeriesReleaseConfig& config) {
    require_epsilon("epsilon", config.epsilon);
    if (config.method == SeriesMethod::Lpa && config.k != 0)
        throw InvalidArgument("k applies to fpa, cfpa and dcfpa, not to lpa: leave it NULL");
    if (is_chunked(config.method) && config.chunk < 2)
        throw InvalidArgument("chunk must be at least 2, got " + std::to_string(config.chunk));
    if (is_chunked(config.method) && config.k > fpa_max_k(config.chunk))
        throw InvalidArgument("k must be between 1 and " + std::to_string(fpa_max_k(config.chunk)) +
                              " (floor(chunk/2) + 1), got " + std::to_string(config.k));
    if (config.sensitivity == SensitivityMode::Clipped && config.bounds.empty())
        throw InvalidArgument(
            "sensitivity => 'clipped' needs public bounds => ARRAY[lo, hi] (or one [lo, hi] row "
            "per feature); sensitivity => 'empirical' is the paper's data-dependent (non-private) "
            "choice");
    for (const auto& [name, share] :
         {std::pair{"k_share", config.k_share}, {"bounds_share", config.bounds_share}})
        if (share != 0 && !(share > 0 && share < 1))
            throw InvalidArgument(std::string(name) + " must be in (0, 1) (or NULL for none), got " +
                                  format_number(share));
    if (config.k_share + config.bounds_share == 0)
        return;
    for (const auto& [name, share] :
         {std::pair{"k_share", config.k_share}, {"bounds_share", config.bounds_share}})
        if (share != 0 && !(share * config.epsilon >= kMinEpsilon))
            throw InvalidArgument(std::string(name) + " x epsilon must be at least " +
                                  format_number(kMinEpsilon) + ", got " +
                                  format_number(share * config.epsilon));
    if (!(config.noise_share() > 0))
        throw InvalidArgument(
            "k_share + bounds_share must be below 1 (the rest of epsilon is the noise's), got " +
            format_number(config.k_share + config.bounds_share));
    if (config.sensitivity != SensitivityMode::Clipped || config.semantics != ChunkSemantics::Participant)
        throw InvalidArgument(
            "a private choice of k or bounds needs sensitivity => 'clipped' and chunk_semantics "
            "=> 'participant' (its proof is for one participant's signals within public bounds)");
    if (config.k_share != 0 && config.method != SeriesMethod::Fpa && config.method != SeriesMethod::Cfpa)
        throw InvalidArgument(std::string("k_share applies to fpa and cfpa, not to ") +
                              to_string(config.method));
    const double q_lo = config.bounds_quantiles[0], q_hi = config.bounds_quantiles[1];
    if (!(q_lo >= 0 && q_lo < q_hi && q_hi <= 1))
        throw InvalidArgument("the bounds' quantiles must satisfy 0 <= lower < upper <= 1");
}

namespace {

// k when none is given: the public rule, or every candidate up to the limit for a private choice.
std::size_t default_k(const SeriesReleaseConfig& config, std::size_t limit) {
    return config.k_share != 0 ? limit : public_k(config.epsilon, limit);
}

SeriesPlan plan(const SeriesReleaseConfig& config, const SeriesDataset& data,
                std::vector<FeatureBounds> bounds) {
    SeriesPlan result;
    result.bounds = std::move(bounds);
    std::size_t total_chunks = 0;
    for (const SignalGroup& group : data.groups) {
        if (config.sensitivity == SensitivityMode::Empirical && group.participants.size() < 2)
            throw InvalidArgument(
                "sensitivity => 'empirical' (Eq. 7) needs at least two participants in every "
                "recording");
        std::size_t k = 0, chunks = 1;
        switch (config.method) {
        case SeriesMethod::Lpa:
            break;
        case SeriesMethod::Fpa:
            if (config.k > fpa_max_k(group.length))
                throw InvalidArgument("k must be between 1 and " + std::to_string(fpa_max_k(group.length)) +
                                      " (floor(n/2) + 1 for signals of " + std::to_string(group.length) +
                                      " samples), got " + std::to_string(config.k));
            k = config.k != 0 ? config.k : default_k(config, fpa_max_k(group.length));
            break;
        default:
            k = config.k != 0 ? config.k : default_k(config, fpa_max_k(config.chunk));
            chunks = chunk_count(group.length, config.chunk);
            break;
        }
        result.k.push_back(k);
        result.chunks.push_back(chunks);
        total_chunks += chunks;
    }
    const double features = static_cast<double>(data.features);
    result.paper_epsilon = config.epsilon * features;
    result.participant_epsilon = config.epsilon * features * static_cast<double>(total_chunks);

    ReleaseCost& cost = result.cost;
    cost.epsilon =
        config.semantics == ChunkSemantics::Participant ? result.participant_epsilon : result.paper_epsilon;
    cost.delta = 0;
    cost.rho = -1;
    // Chunk semantics (the paper's) protect one chunk of one participant's signal, not the participant.
    cost.guarantee = config.semantics == ChunkSemantics::Participant ? Guarantee::DifferentialPrivacy
                                                                     : Guarantee::RecordDifferentialPrivacy;
    cost.mechanism = to_string(config.method);
    std::vector<std::string> non_private;
    if (config.sensitivity == SensitivityMode::Empirical)
        non_private.push_back("empirical sensitivity (Eq. 7)");
    if (data.length_from_data)
        non_private.push_back("padded length read from the data");
    cost.non_private_choices = !non_private.empty();

    std::vector<std::size_t> lengths;
    for (const SignalGroup& group : data.groups)
        lengths.push_back(group.length);
    std::vector<std::string> bound_pairs;
    for (const FeatureBounds& b : result.bounds)
        bound_pairs.push_back(json_array(std::vector<double>{b.lo, b.hi}));
    std::vector<std::string> reasons;
    for (const std::string& reason : non_private)
        reasons.push_back(JsonObject::quote(reason));
    JsonObject json;
    json.add("method", to_string(config.method));
    json.add("epsilon_per_feature", config.epsilon);
    if (config.method != SeriesMethod::Lpa) {
        json.add_raw("k", json_array(result.k));
        json.add("k_rule", config.k_share != 0 ? "private" : config.k != 0 ? "given" : "public");
    }
    if (config.k_share + config.bounds_share != 0) {
        // The shares of every signal's epsilon; the k above are then the largest candidates.
        JsonObject selection;
        selection.add("k_share", config.k_share);
        selection.add("bounds_share", config.bounds_share);
        selection.add("noise_share", config.noise_share());
        selection.add("noise_epsilon_per_feature", config.epsilon * config.noise_share());
        selection.add("bounds_rule", config.bounds_share != 0 ? "private" : "public");
        if (config.bounds_share != 0)
            selection.add_raw(
                "bounds_quantiles",
                json_array(std::vector<double>{config.bounds_quantiles[0], config.bounds_quantiles[1]}));
        json.add_raw("private_selection", selection.str());
    }
    if (is_chunked(config.method))
        json.add("chunk", config.chunk);
    json.add("sensitivity", to_string(config.sensitivity));
    if (!result.bounds.empty())
        json.add_raw("bounds", json_array(bound_pairs));
    if (data.length_from_data)
        json.add_null("length");
    else
        json.add("length", config.length);
    json.add_raw("signal_lengths", json_array(lengths));
    json.add_raw("chunks_per_signal", json_array(result.chunks));
    json.add("features", data.features);
    json.add("recordings", data.groups.size());
    json.add("chunk_semantics", to_string(config.semantics));
    json.add("neighbours", config.semantics == ChunkSemantics::Participant
                               ? "one participant's signals (every feature, recording and chunk)"
                               : "one chunk of one recording of one participant (the paper's semantics)");
    json.add("participant_epsilon", result.participant_epsilon);
    json.add("paper_epsilon", result.paper_epsilon);
    json.add_raw("non_private", json_array(reasons));
    cost.parameters_json = json.str();
    return result;
}

// sup |value| over clipped data: the largest magnitude inside the bounds.
double bound_magnitude(const FeatureBounds& b) {
    return std::max(std::fabs(b.lo), std::fabs(b.hi));
}

// The mechanism of one FPA block, or none for a zero (empirical) sensitivity.
std::optional<GridLaplace> block_mechanism(const SeriesReleaseConfig& config, const SeriesPlan& plan,
                                           std::size_t feature, std::size_t m, std::size_t k, double l2) {
    if (l2 == 0)
        return std::nullopt;
    double slack = 0;
    if (config.sensitivity == SensitivityMode::Clipped) {
        const FeatureBounds& b = plan.bounds[feature];
        const double sup = config.method == SeriesMethod::Dcfpa ? std::max(bound_magnitude(b), b.width())
                                                                : bound_magnitude(b);
        slack = fft_rounding_l1(m, fpa_coordinates(m, k), sup);
    }
    return fpa_mechanism(m, k, l2, config.epsilon, slack);
}

} // namespace

double fft_rounding_l1(std::size_t m, std::size_t coordinates, double sup) {
    // ||F^ - F||_2 <= c u log2(m) ||F||_2 and ||F||_2 = sqrt(m) ||x||_2 <= m sup; c = 32 with two extra
    // levels covers the twiddle factors, FFTW's non-radix-2 codelets and the difference step of DCFPA.
    const double u = 0x1.0p-53;
    const double levels = std::ceil(std::log2(static_cast<double>(std::max<std::size_t>(m, 2)))) + 2;
    const double l2_error = 32 * u * levels * static_cast<double>(m) * sup;
    return 2 * std::sqrt(static_cast<double>(coordinates)) * l2_error;
}

PreparedSeries prepare_series_release(const SeriesRows& rows, const SeriesReleaseConfig& config,
                                      const CancelCheck& cancel, const SignalStorage& storage) {
    check_series_release_config(config);
    const std::size_t features = rows.feature != nullptr ? rows.features : rows.width;
    std::vector<FeatureBounds> bounds = expand_bounds(config.bounds, features);
    PreparedSeries prepared{
        assemble_series(rows, config.length, Padding::Constant, bounds, cancel, storage, config.max_values),
        {},
        {}};
    prepared.plan = plan(config, prepared.data, std::move(bounds));
    return prepared;
}

namespace {

// sum_t |a_t - b_t| (norm 1) or sum_t (a_t - b_t)^2 over m samples, with four partial sums so that the
// additions do not wait on each other.
// Two doubles per operation (GCC vector extensions: SSE2 on x86-64, scalar pairs elsewhere).
using Pair = double __attribute__((vector_size(16)));

using PairBits = unsigned long long __attribute__((vector_size(16)));

inline Pair abs_pair(Pair v) { // clears the sign bits (vector casts reinterpret the bits)
    const PairBits magnitude = {0x7fffffffffffffffULL, 0x7fffffffffffffffULL};
    return (Pair)((PairBits)v & magnitude);
}

inline Pair load_pair(const double* p) {
    Pair v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <int Norm> double block_distance(const double* a, const double* b, std::size_t m) {
    Pair s0 = {0, 0}, s1 = {0, 0};
    std::size_t t = 0;
    for (; t + 4 <= m; t += 4) {
        const Pair d0 = load_pair(a + t) - load_pair(b + t);
        const Pair d1 = load_pair(a + t + 2) - load_pair(b + t + 2);
        if constexpr (Norm == 1) {
            s0 += abs_pair(d0);
            s1 += abs_pair(d1);
        } else {
            s0 += d0 * d0;
            s1 += d1 * d1;
        }
    }
    const Pair s = s0 + s1;
    double sum = s[0] + s[1];
    for (; t < m; ++t) {
        const double d = a[t] - b[t];
        sum += Norm == 1 ? std::fabs(d) : d * d;
    }
    return sum;
}

template <int Norm>
void pairwise_max(const double* const* signals, std::size_t participants, std::size_t n, std::size_t chunk,
                  std::vector<double>& best, const CancelCheck& cancel) {
    std::size_t pair = 0;
    for (std::size_t p = 0; p < participants; ++p) {
        for (std::size_t q = p + 1; q < participants; ++q) {
            cancel.poll(pair++);
            const double* a = signals[p];
            const double* b = signals[q];
            for (std::size_t c = 0, first = 0; first < n; ++c, first += chunk) {
                const std::size_t m = std::min(chunk, n - first);
                best[c] = std::max(best[c], block_distance<Norm>(a + first, b + first, m));
            }
        }
    }
}

} // namespace

std::vector<double> pairwise_max_distance(const double* const* signals, std::size_t participants,
                                          std::size_t n, std::size_t chunk, int norm,
                                          const CancelCheck& cancel) {
    std::vector<double> best(chunk_count(n, chunk), 0.0);
    if (norm == 1) {
        pairwise_max<1>(signals, participants, n, chunk, best, cancel);
        return best;
    }
    pairwise_max<2>(signals, participants, n, chunk, best, cancel);
    for (double& v : best)
        v = std::sqrt(v);
    return best;
}

std::vector<double> series_sensitivities(const SeriesReleaseConfig& config, const SeriesPlan& plan,
                                         const SignalGroup& group, std::size_t feature,
                                         const CancelCheck& cancel) {
    const std::size_t n = group.length;
    const std::size_t chunk = is_chunked(config.method) ? config.chunk : n;
    if (config.sensitivity == SensitivityMode::Clipped) {
        const double w = plan.bounds[feature].width();
        std::vector<double> result;
        for (std::size_t first = 0; first < n; first += chunk) {
            const double m = static_cast<double>(std::min(chunk, n - first));
            switch (config.method) {
            case SeriesMethod::Lpa:
                result.push_back(m * w);
                break;
            case SeriesMethod::Dcfpa:
                result.push_back(std::sqrt(4 * m - 3) * w);
                break;
            default:
                result.push_back(std::sqrt(m) * w);
                break;
            }
        }
        return result;
    }
    const std::size_t participants = group.participants.size();
    const double* const* signals = &group.signals[feature * participants];
    if (config.method != SeriesMethod::Dcfpa)
        return pairwise_max_distance(signals, participants, n, chunk,
                                     config.method == SeriesMethod::Lpa ? 1 : 2, cancel);
    std::vector<double> differences(participants * n);
    std::vector<const double*> rows(participants);
    for (std::size_t p = 0; p < participants; ++p) {
        chunk_differences(signals[p], n, chunk, differences.data() + p * n);
        rows[p] = differences.data() + p * n;
    }
    return pairwise_max_distance(rows.data(), participants, n, chunk, 2, cancel);
}

void release_feature(SignalGroup& group, std::size_t feature, const SeriesReleaseConfig& config,
                     const SeriesPlan& plan, std::size_t k, const std::vector<double>& sensitivity, Rng& rng,
                     const CancelCheck& cancel) {
    const std::size_t n = group.length, participants = group.participants.size();
    if (config.method == SeriesMethod::Lpa) {
        if (sensitivity[0] == 0)
            return; // all participants equal: the paper's lambda = 0
        const GridLaplace noise = GridLaplace::mechanism(sensitivity[0], config.epsilon, n);
        for (std::size_t p = 0; p < participants; ++p)
            fast_grid_laplace_release(noise, group.signal(feature, p), group.signal(feature, p), n, rng,
                                      cancel);
        return;
    }
    const std::size_t chunk = is_chunked(config.method) ? config.chunk : n;
    const auto block = config.method == SeriesMethod::Dcfpa ? dcfpa_block : fpa_block;
    std::shared_ptr<RealFft> fft;
    for (std::size_t c = 0; c < sensitivity.size(); ++c) {
        const std::size_t first = c * chunk, m = std::min(chunk, n - first);
        const std::size_t km = chunk_k(k, m);
        if (!fft || fft->size() != m)
            fft = real_fft(m);
        const auto noise = block_mechanism(config, plan, feature, m, km, sensitivity[c]);
        for (std::size_t p = 0; p < participants; ++p) {
            cancel.poll(c * participants + p);
            double* x = group.signal(feature, p) + first;
            block(x, m, km, noise ? &*noise : nullptr, *fft, x, rng);
        }
    }
}

void clamp_feature(SignalGroup& group, std::size_t feature, const FeatureBounds& bounds) {
    for (std::size_t p = 0; p < group.participants.size(); ++p) {
        double* x = group.signal(feature, p);
        for (std::size_t t = 0; t < group.length; ++t)
            x[t] = std::clamp(x[t], bounds.lo, bounds.hi);
    }
}

void release_series(PreparedSeries& prepared, const SeriesReleaseConfig& config, Rng& rng,
                    const CancelCheck& cancel) {
    SeriesPlan& plan = prepared.plan;
    std::vector<SignalGroup>& groups = prepared.data.groups;
    const std::size_t features = prepared.data.features;
    // Sequential composition inside every signal's cost: a share of each participant's epsilon x chunks
    // per feature and recording to the bounds (all recordings at once), a share to k (per recording), the
    // rest to the noise.
    SeriesReleaseConfig noisy = config;
    noisy.epsilon = config.epsilon * config.noise_share();
    if (config.bounds_share != 0) {
        double chunks = 0;
        for (const std::size_t c : plan.chunks)
            chunks += static_cast<double>(c);
        for (std::size_t f = 0; f < features; ++f) {
            cancel.now();
            plan.bounds[f] = private_bounds(groups, f, plan.bounds[f], config.bounds_quantiles[0],
                                            config.bounds_quantiles[1],
                                            config.bounds_share * config.epsilon * chunks, rng, cancel);
            for (SignalGroup& group : groups)
                clamp_feature(group, f, plan.bounds[f]);
        }
        prepared.selection.bounds = plan.bounds;
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        SignalGroup& group = groups[g];
        for (std::size_t f = 0; f < features; ++f) {
            cancel.now();
            const std::vector<double> sensitivity = series_sensitivities(noisy, plan, group, f, cancel);
            std::size_t k = plan.k[g];
            if (config.k_share != 0) {
                const std::size_t chunk = is_chunked(config.method) ? config.chunk : group.length;
                k = private_k(group, f, chunk, std::min(k, fpa_max_k(std::min(chunk, group.length))),
                              plan.bounds[f], noisy.epsilon,
                              config.k_share * config.epsilon * static_cast<double>(plan.chunks[g]), rng,
                              cancel);
                prepared.selection.k.push_back(k);
            }
            release_feature(group, f, noisy, plan, k, sensitivity, rng, cancel);
            if (config.clamp && !plan.bounds.empty())
                clamp_feature(group, f, plan.bounds[f]);
        }
    }
}

namespace {

// The largest per-sample noise variance of FPA_k on a block of m samples with Laplace(lambda) on each
// coordinate: x_s = (F0 + 2 sum_j (Re_j cos - Im_j sin)(2 pi j s / m) + F_(m/2) (-1)^s) / m, constant in s
// (doc/privacy/series.md §3). For DCFPA's cumulative sums S_t = x_0 + ... + x_t the DC term grows to
// (t + 1) <= m and a pair's geometric sum is at most 1 / sin(pi j / m) <= m / (2 j): an upper bound.
double block_noise_variance(std::size_t m, std::size_t k, double lambda, bool cumulative) {
    const double md = static_cast<double>(m), per = 2 * lambda * lambda / (md * md);
    const bool nyquist = fpa_coordinates(m, k) == 2 * k - 2;
    const std::size_t pairs = nyquist ? k - 2 : k - 1;
    if (!cumulative)
        return per * (1 + 4 * static_cast<double>(pairs) + (nyquist ? 1 : 0));
    double inverse_squares = 0; // sum over j <= pairs of 1 / j^2, its tail beyond 10^5 bounded by 10^-5
    for (std::size_t j = 1; j <= std::min<std::size_t>(pairs, 100000); ++j)
        inverse_squares += 1 / (static_cast<double>(j) * static_cast<double>(j));
    if (pairs > 100000)
        inverse_squares += 1e-5;
    return per * (md * md + md * md * inverse_squares + (nyquist ? 1 : 0));
}

} // namespace

SeriesAccuracy series_accuracy(const SeriesReleaseConfig& config, const FeatureBounds& bounds,
                               std::size_t length, double confidence) {
    if (length < 1)
        throw InvalidArgument("length must be at least 1");
    SeriesReleaseConfig one = config;
    one.bounds = {bounds};
    one.sensitivity = SensitivityMode::Clipped;
    check_series_release_config(one);
    // With private selection the noise has the rest of epsilon, the chosen bounds lie inside the public ones
    // and k is at most the largest candidate: the noise of the public bounds and that k is an upper bound.
    const bool selection = config.k_share + config.bounds_share != 0;
    one.epsilon = config.epsilon * config.noise_share();
    const double w = bounds.width();
    if (config.method == SeriesMethod::Lpa) {
        const double b = GridLaplace::mechanism(static_cast<double>(length) * w, one.epsilon, length).scale();
        const Accuracy a = noise_accuracy(NoiseKind::Laplace, b, confidence);
        return {a.noise_sd, a.half_width, !selection};
    }
    if (config.method == SeriesMethod::Fpa && config.k > fpa_max_k(length))
        throw InvalidArgument("k must be between 1 and " + std::to_string(fpa_max_k(length)) +
                              " (floor(n/2) + 1), got " + std::to_string(config.k));
    const std::size_t chunk = is_chunked(config.method) ? config.chunk : length;
    const std::size_t limit = fpa_max_k(std::min(chunk, length));
    const std::size_t k = config.k != 0         ? config.k
                          : config.k_share != 0 ? limit
                                                : public_k(config.epsilon, limit);
    SeriesPlan plan;
    plan.bounds = {bounds};
    double variance = 0;
    bool exact = true;
    // A full chunk and the short last one (if any) are the two block lengths.
    for (const std::size_t m : {std::min(chunk, length), length % chunk}) {
        if (m == 0)
            continue;
        const std::size_t km = chunk_k(k, m);
        const double md = static_cast<double>(m);
        const double l2 =
            config.method == SeriesMethod::Dcfpa ? std::sqrt(4 * md - 3) * w : std::sqrt(md) * w;
        const double lambda = block_mechanism(one, plan, 0, m, km, l2)->scale();
        variance =
            std::max(variance, block_noise_variance(m, km, lambda, config.method == SeriesMethod::Dcfpa));
        exact = exact && km == 1;
    }
    exact = exact && !selection;
    const double sd = std::sqrt(variance);
    // One Laplace variable of that sd (exact for k = 1); for sums, a Laplace-shaped interval.
    return {sd, noise_accuracy(NoiseKind::Laplace, sd / std::sqrt(2.0), confidence).half_width, exact};
}

} // namespace gazepriv::core
