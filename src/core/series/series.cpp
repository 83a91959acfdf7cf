#include "core/series/series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/series/real_fft.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {
constexpr Named<SeriesMethod> kSeriesMethods[] = {{SeriesMethod::Lpa, "lpa"},
                                                  {SeriesMethod::Fpa, "fpa"},
                                                  {SeriesMethod::Cfpa, "cfpa"},
                                                  {SeriesMethod::Dcfpa, "dcfpa"}};
} // namespace

SeriesMethod parse_series_method(const std::string& name) {
    return parse_name(kSeriesMethods, "method", name);
}

const char* to_string(SeriesMethod method) {
    return name_of(kSeriesMethods, method);
}

std::size_t fpa_coordinates(std::size_t n, std::size_t k) {
    const bool nyquist = n % 2 == 0 && k == n / 2 + 1;
    return 2 * k - (nyquist ? 2 : 1);
}

double fpa_lambda(std::size_t n, std::size_t k, double l2_sensitivity, double epsilon) {
    return std::sqrt(static_cast<double>(n) * static_cast<double>(k)) * l2_sensitivity / epsilon;
}

double fpa_noise_variance(std::size_t n, std::size_t k, double lambda) {
    const bool nyquist = n % 2 == 0 && k == n / 2 + 1 && n >= 2;
    const double terms = 4.0 * static_cast<double>(k) - (nyquist ? 6.0 : 3.0);
    const double dn = static_cast<double>(n);
    return 2 * lambda * lambda * terms / (dn * dn);
}

std::size_t public_k(double epsilon, std::size_t limit) {
    require_epsilon("epsilon", epsilon);
    // #{j >= 1 : 6400 j + 800 < epsilon^2} = ceil((epsilon^2 - 800) / 6400) - 1 when positive.
    const double e2 = epsilon * epsilon;
    const double extra = std::ceil((e2 - 800) / 6400) - 1;
    if (!(extra >= 1))
        return 1;
    if (extra + 1 >= static_cast<double>(limit))
        return limit;
    return 1 + static_cast<std::size_t>(extra);
}

namespace {

void require_series(const char* name, SeriesSpan series) {
    if (series.size == 0)
        throw InvalidArgument(std::string(name) + " must not be empty");
    for (std::size_t i = 0; i < series.size; ++i)
        if (!std::isfinite(series.data[i]))
            throw InvalidArgument(std::string(name) + " must contain only finite numbers (element " +
                                  std::to_string(i + 1) + " is " + format_number(series.data[i]) + ")");
}

std::size_t require_k(std::size_t k, std::size_t limit, const std::string& why) {
    if (k < 1 || k > limit)
        throw InvalidArgument("k must be between 1 and " + std::to_string(limit) + " (" + why + "), got " +
                              std::to_string(k));
    return k;
}

std::size_t require_chunk(std::size_t chunk) {
    if (chunk < 2)
        throw InvalidArgument("chunk must be at least 2, got " + std::to_string(chunk));
    return chunk;
}

// One sensitivity per chunk, or one for all; each finite and > 0.
void require_chunk_sensitivities(SeriesSpan sensitivities, std::size_t chunks) {
    const char* name = "chunk_l2_sensitivities";
    if (sensitivities.size != 1 && sensitivities.size != chunks)
        throw InvalidArgument(std::string(name) + " must have one element per chunk (" +
                              std::to_string(chunks) + ") or a single element, got " +
                              std::to_string(sensitivities.size));
    for (std::size_t i = 0; i < sensitivities.size; ++i) {
        const double v = sensitivities.data[i];
        if (!std::isfinite(v) || v <= 0)
            throw InvalidArgument(std::string(name) +
                                  " must contain finite numbers greater than 0 (element " +
                                  std::to_string(i + 1) + " is " + format_number(v) + ")");
    }
}

void check_chunked_arguments(SeriesSpan series, std::size_t k, std::size_t chunk, double epsilon,
                             SeriesSpan sensitivities) {
    require_series("series", series);
    require_chunk(chunk);
    require_k(k, fpa_max_k(chunk), "floor(chunk/2) + 1");
    require_epsilon("epsilon", epsilon);
    require_chunk_sensitivities(sensitivities, chunk_count(series.size, chunk));
}

using BlockRelease = void (*)(const double*, std::size_t, std::size_t, const GridLaplace*, RealFft&, double*,
                              Rng&);

void chunked(SeriesSpan series, std::size_t k, std::size_t chunk, double epsilon, SeriesSpan sensitivities,
             double* out, Rng& rng, const CancelCheck& cancel, BlockRelease block) {
    const std::size_t chunks = chunk_count(series.size, chunk);
    std::shared_ptr<RealFft> fft;
    for (std::size_t c = 0; c < chunks; ++c) {
        cancel.poll(c);
        const std::size_t first = c * chunk;
        const std::size_t m = std::min(chunk, series.size - first);
        if (!fft || fft->size() != m)
            fft = real_fft(m);
        const std::size_t km = chunk_k(k, m);
        const double l2 = sensitivities.data[sensitivities.size == 1 ? 0 : c];
        const GridLaplace noise = fpa_mechanism(m, km, l2, epsilon);
        block(series.data + first, m, km, &noise, *fft, out + first, rng);
    }
}

} // namespace

GridLaplace fpa_mechanism(std::size_t m, std::size_t k, double l2_sensitivity, double epsilon,
                          double extra_l1) {
    const double l1 = std::sqrt(static_cast<double>(m) * static_cast<double>(k)) * l2_sensitivity + extra_l1;
    return GridLaplace::mechanism(l1, epsilon, fpa_coordinates(m, k));
}

namespace {

// F_0 = sum_t x_t by pairwise summation: its error, at most (16 + log2 m) u sum |x_t|, is inside the
// allowance for FFTW's rounding (series_release.hpp).
double dc_coefficient(const double* x, std::size_t m) {
    if (m <= 16) {
        double sum = 0;
        for (std::size_t t = 0; t < m; ++t)
            sum += x[t];
        return sum;
    }
    return dc_coefficient(x, m / 2) + dc_coefficient(x + m / 2, m - m / 2);
}

} // namespace

void fpa_block(const double* x, std::size_t m, std::size_t k, const GridLaplace* noise, RealFft& fft,
               double* out, Rng& rng) {
    if (k == 1) { // only the DC bin is kept: the release is the noisy mean, no transform needed
        double dc = dc_coefficient(x, m);
        if (noise != nullptr)
            dc = fast_grid_laplace_release(*noise, dc, rng);
        std::fill(out, out + m, dc / static_cast<double>(m));
        return;
    }
    std::copy(x, x + m, fft.signal());
    fft.forward();
    std::complex<double>* bins = fft.spectrum();
    if (noise != nullptr) {
        // Re F_0; Re and Im of F_1..F_{k-1}; the Nyquist bin's imaginary part is zero for real input.
        bins[0] = {fast_grid_laplace_release(*noise, bins[0].real(), rng), 0.0};
        for (std::size_t j = 1; j < k; ++j) {
            const double re = fast_grid_laplace_release(*noise, bins[j].real(), rng);
            const double im = 2 * j == m ? 0.0 : fast_grid_laplace_release(*noise, bins[j].imag(), rng);
            bins[j] = {re, im};
        }
    }
    std::fill(bins + k, bins + fft.bins(), std::complex<double>(0.0, 0.0));
    fft.inverse();
    const double* y = fft.signal();
    const double dm = static_cast<double>(m);
    for (std::size_t t = 0; t < m; ++t)
        out[t] = y[t] / dm;
}

void chunk_differences(const double* x, std::size_t n, std::size_t chunk, double* d) {
    for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t last = std::min(n, first + chunk);
        double previous = x[first]; // d may alias x: each x[t] is read before d[t] is written
        d[first] = previous;
        for (std::size_t t = first + 1; t < last; ++t) {
            const double v = x[t];
            d[t] = v - previous;
            previous = v;
        }
    }
}

void dcfpa_block(const double* x, std::size_t m, std::size_t k, const GridLaplace* noise, RealFft& fft,
                 double* out, Rng& rng) {
    chunk_differences(x, m, m, out);
    fpa_block(out, m, k, noise, fft, out, rng);
    for (std::size_t t = 1; t < m; ++t)
        out[t] += out[t - 1];
}

void lpa(SeriesSpan series, double epsilon, double l1_sensitivity, double* out, Rng& rng,
         const CancelCheck& cancel) {
    require_series("series", series);
    require_epsilon("epsilon", epsilon);
    require_positive("l1_sensitivity", l1_sensitivity);
    const GridLaplace noise = GridLaplace::mechanism(l1_sensitivity, epsilon, series.size);
    fast_grid_laplace_release(noise, series.data, out, series.size, rng, cancel);
}

void fpa(SeriesSpan series, std::size_t k, double epsilon, double l2_sensitivity, double* out, Rng& rng) {
    require_series("series", series);
    require_k(k, fpa_max_k(series.size), "floor(n/2) + 1 for a series of " + std::to_string(series.size));
    require_epsilon("epsilon", epsilon);
    require_positive("l2_sensitivity", l2_sensitivity);
    const GridLaplace noise = fpa_mechanism(series.size, k, l2_sensitivity, epsilon);
    fpa_block(series.data, series.size, k, &noise, *real_fft(series.size), out, rng);
}

void cfpa(SeriesSpan series, std::size_t k, std::size_t chunk, double epsilon,
          SeriesSpan chunk_l2_sensitivities, double* out, Rng& rng, const CancelCheck& cancel) {
    check_chunked_arguments(series, k, chunk, epsilon, chunk_l2_sensitivities);
    chunked(series, k, chunk, epsilon, chunk_l2_sensitivities, out, rng, cancel, fpa_block);
}

void dcfpa(SeriesSpan series, std::size_t k, std::size_t chunk, double epsilon,
           SeriesSpan chunk_l2_sensitivities, double* out, Rng& rng, const CancelCheck& cancel) {
    check_chunked_arguments(series, k, chunk, epsilon, chunk_l2_sensitivities);
    chunked(series, k, chunk, epsilon, chunk_l2_sensitivities, out, rng, cancel, dcfpa_block);
}

double nmse(SeriesSpan original, SeriesSpan released) {
    require_series("original", original);
    require_series("released", released);
    if (released.size != original.size)
        throw InvalidArgument("released must have as many elements as original (" +
                              std::to_string(original.size) + "), got " + std::to_string(released.size));
    const double n = static_cast<double>(original.size);
    double squares = 0, sum_a = 0, sum_b = 0;
    for (std::size_t i = 0; i < original.size; ++i) {
        const double d = original.data[i] - released.data[i];
        squares += d * d;
        sum_a += original.data[i];
        sum_b += released.data[i];
    }
    if (squares == 0)
        return 0;
    const double denominator = (sum_a / n) * (sum_b / n);
    if (denominator == 0)
        return std::numeric_limits<double>::infinity();
    return squares / n / denominator;
}

double nmse_utility(SeriesSpan original, SeriesSpan released) {
    return 1 / std::fabs(nmse(original, released)); // +Infinity for identical series, 0 for an infinite NMSE
}

std::size_t k_limit(SeriesMethod method, std::size_t n, std::size_t chunk) {
    return fpa_max_k(is_chunked(method) ? std::min(chunk, n) : n);
}

std::vector<std::size_t> default_k_candidates(std::size_t limit) {
    std::vector<std::size_t> ks;
    for (std::size_t k = 1; k <= limit && k <= 16; ++k)
        ks.push_back(k);
    for (double k = 20; k < static_cast<double>(limit); k *= 1.25)
        ks.push_back(static_cast<std::size_t>(std::lround(k)));
    if (ks.back() != limit)
        ks.push_back(limit);
    return ks;
}

std::vector<KScore> nmse_k_sweep(SeriesSpan series, SeriesMethod method, std::size_t chunk, double epsilon,
                                 SeriesSpan l2_sensitivities, std::vector<std::size_t> candidates,
                                 std::size_t runs, Rng& rng, const CancelCheck& cancel) {
    if (method == SeriesMethod::Lpa)
        throw InvalidArgument("method must be fpa, cfpa or dcfpa: lpa has no k");
    require_series("series", series);
    require_epsilon("epsilon", epsilon);
    if (runs < 1 || runs > 10000)
        throw InvalidArgument("runs must be between 1 and 10000, got " + std::to_string(runs));
    if (is_chunked(method)) {
        require_chunk(chunk);
        require_chunk_sensitivities(l2_sensitivities, chunk_count(series.size, chunk));
    } else if (l2_sensitivities.size != 1) {
        throw InvalidArgument("l2_sensitivities must have a single element for fpa, got " +
                              std::to_string(l2_sensitivities.size));
    } else {
        require_positive("l2_sensitivities", l2_sensitivities.data[0]);
    }
    const std::size_t limit = k_limit(method, series.size, chunk);
    if (candidates.empty())
        candidates = default_k_candidates(limit);
    for (std::size_t k : candidates)
        require_k(k, limit, "the method's limit for this series");
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());

    std::vector<double> released(series.size);
    std::vector<KScore> scores;
    for (std::size_t k : candidates) {
        double total = 0;
        for (std::size_t r = 0; r < runs; ++r) {
            cancel.now();
            switch (method) {
            case SeriesMethod::Fpa:
                fpa(series, k, epsilon, l2_sensitivities.data[0], released.data(), rng);
                break;
            case SeriesMethod::Cfpa:
                cfpa(series, k, chunk, epsilon, l2_sensitivities, released.data(), rng);
                break;
            default:
                dcfpa(series, k, chunk, epsilon, l2_sensitivities, released.data(), rng);
                break;
            }
            total += std::fabs(nmse(series, {released.data(), released.size()}));
        }
        scores.push_back({k, total / static_cast<double>(runs)});
    }
    return scores;
}

} // namespace gazepriv::core
