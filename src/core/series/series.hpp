// Time-series release of one signal (Bozkir, Günlü, Fuhl, Schaefer, Kasneci, PLOS ONE 16(8) e0255979,
// 2021; doc/privacy/series.md): LPA, FPA (Rastogi & Nath 2010 with the corrected lambda), CFPA (FPA per
// chunk) and DCFPA (FPA on the differences inside each chunk), plus the NMSE utility metric and the
// choice of k.
//
// FPA_k, exactly as implemented. F = DFT(x) (unnormalised, length n). The perturbed real coordinates
// are Re F_0 and Re, Im of F_1..F_{k-1}, except the imaginary part of the Nyquist bin F_{n/2} (n even,
// k = n/2 + 1), which is identically zero for real x, as is Im F_0: 2k - 1 coordinates, or 2k - 2 with
// the Nyquist bin. Each gets Laplace(lambda) noise with lambda = sqrt(n k) Delta_2 / epsilon. Why that
// is epsilon-DP: with a = |F_0|, Parseval and |F_j| = |F_{n-j}| give sum_{j=1}^{k-1} |F_j|^2 <= (n ||x||^2
// - a^2) / 2 when k <= floor(n/2) + 1, so the L1 norm of the perturbed coordinates of F(x) - F(x') is at
// most a + sqrt(k - 1) sqrt(n ||x - x'||^2 - a^2) <= sqrt(n k) ||x - x'||_2 (Cauchy-Schwarz over the
// k - 1 pairs, then maximising over a; the Nyquist bin, a real coordinate, enters like a and gives the
// same bound). The bins from k on are zeroed, the spectrum is completed Hermitian (F_{n-j} = conj F_j)
// and inverted by FFTW's c2r (post-processing): the output is real and keeps the full amplitude of
// every kept frequency, and each output sample carries noise of variance 2 lambda^2 (4k - 3) / n^2
// (2 lambda^2 (4k - 6) / n^2 with the Nyquist bin). The paper-literal RN10 scale sqrt(k) Delta_2 /
// epsilon is not offered: it is only correct for a unitary DFT and is sqrt(n) too small here.
//
// Noise is drawn on a power-of-two grid with the rounding charged (GridLaplace::mechanism with one
// coordinate per perturbed real value), with the fast exact sampler of fast_exact_noise.hpp. The bound
// above is for exact arithmetic; FFTW's rounding error (relative ~1e-16 log2 n) shifts epsilon by a
// like relative amount. Dataset releases with public bounds add a bound on it to the sensitivity
// (series_release.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/noise.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

struct SeriesSpan {
    const double* data;
    std::size_t size;
};

enum class SeriesMethod { Lpa, Fpa, Cfpa, Dcfpa };
SeriesMethod parse_series_method(const std::string& name); // "lpa", "fpa", "cfpa", "dcfpa"
const char* to_string(SeriesMethod method);
inline bool is_chunked(SeriesMethod m) {
    return m == SeriesMethod::Cfpa || m == SeriesMethod::Dcfpa;
}

// floor(n/2) + 1: the largest k whose kept bins contain no conjugate pair.
inline std::size_t fpa_max_k(std::size_t n) {
    return n / 2 + 1;
}
// The number of real coordinates FPA_k perturbs for length n: 2k - 1, or 2k - 2 with the Nyquist bin.
std::size_t fpa_coordinates(std::size_t n, std::size_t k);
// lambda = sqrt(n k) l2_sensitivity / epsilon (Bozkir Eq. 8; the non-unitary DFT).
double fpa_lambda(std::size_t n, std::size_t k, double l2_sensitivity, double epsilon);
// The noise variance FPA_k adds to each output sample (doc/privacy/series.md §3).
double fpa_noise_variance(std::size_t n, std::size_t k, double lambda);

// ceil(n / chunk); the last chunk has n - (count - 1) chunk elements.
inline std::size_t chunk_count(std::size_t n, std::size_t chunk) {
    return (n + chunk - 1) / chunk;
}
// The k used for a chunk of length m: k, lowered to fpa_max_k(m) for a short last chunk.
inline std::size_t chunk_k(std::size_t k, std::size_t m) {
    return k < fpa_max_k(m) ? k : fpa_max_k(m);
}

// The public default k (a function of epsilon and the limit only, never of the data): keep one more
// coefficient while the per-sample noise it adds, 2 (8k + 1) Delta_2^2 / (m epsilon^2) with Delta_2 =
// sqrt(m) (hi - lo), stays below the variance of a signal spread evenly over a tenth of its bounds,
// (hi - lo)^2 / 400: k = 1 + #{j >= 1 : 800 (8j + 1) < epsilon^2}, at most `limit`. So k = 1 (the mean of
// each block) up to epsilon = 84.8. Calibrated on public data: on the Hoppe 2018 features the
// NMSE-optimal k was 1 for every method up to epsilon = 10 (bench/series/series_utility.cpp), and the
// bound-filling assumption (variance (hi - lo)^2 / 4) kept a second bin at epsilon = 10 that cost utility.
std::size_t public_k(double epsilon, std::size_t limit);

// The mechanisms on one signal. Each checks every argument first (InvalidArgument naming it: series
// empty or not finite, epsilon or sensitivities not finite and > 0, k outside [1, fpa_max_k], chunk
// < 2, a sensitivity list whose length is neither 1 nor the number of chunks), then writes
// series.size values to out (which may alias series.data).
void lpa(SeriesSpan series, double epsilon, double l1_sensitivity, double* out, Rng& rng,
         const CancelCheck& cancel = CancelCheck());
void fpa(SeriesSpan series, std::size_t k, double epsilon, double l2_sensitivity, double* out, Rng& rng);
// chunk_l2_sensitivities: one per chunk, or one for every chunk. Each chunk of length m is released
// with its own lambda = sqrt(m k_m) Delta_2(chunk) / epsilon and k_m = chunk_k(k, m); epsilon is per
// chunk (see series_release.hpp for what a whole signal then costs).
void cfpa(SeriesSpan series, std::size_t k, std::size_t chunk, double epsilon,
          SeriesSpan chunk_l2_sensitivities, double* out, Rng& rng,
          const CancelCheck& cancel = CancelCheck());
// As cfpa on the chunk's differences d_1 = x_1, d_t = x_t - x_{t-1}, summed back cumulatively;
// chunk_l2_sensitivities are those of the difference chunks.
void dcfpa(SeriesSpan series, std::size_t k, std::size_t chunk, double epsilon,
           SeriesSpan chunk_l2_sensitivities, double* out, Rng& rng,
           const CancelCheck& cancel = CancelCheck());

// Building blocks for dataset releases, which validate their own inputs. `noise` is the mechanism for
// the block's coordinates, or nullptr for none (a zero empirical sensitivity).
class RealFft;
void fpa_block(const double* x, std::size_t m, std::size_t k, const GridLaplace* noise, RealFft& fft,
               double* out, Rng& rng);
void dcfpa_block(const double* x, std::size_t m, std::size_t k, const GridLaplace* noise, RealFft& fft,
                 double* out, Rng& rng);
// d_1 = x_1, d_t = x_t - x_{t-1} for each chunk of x (length n), into d.
void chunk_differences(const double* x, std::size_t n, std::size_t chunk, double* d);
// The mechanism FPA_k uses on a block of length m with the given L2 sensitivity (> 0).
GridLaplace fpa_mechanism(std::size_t m, std::size_t k, double l2_sensitivity, double epsilon,
                          double extra_l1 = 0);

// NMSE = (1/n) sum (a_i - b_i)^2 / (mean(a) mean(b)) (Bozkir Eqs. 4-5): 0 when a = b, +Infinity when a
// mean is zero otherwise. Utility = 1 / |NMSE| (Eq. 6).
double nmse(SeriesSpan original, SeriesSpan released);
double nmse_utility(SeriesSpan original, SeriesSpan released);

// The paper's choice of k (not private: it looks at the data): for each candidate k, the mean |NMSE|
// of `runs` releases of the series with the method (fpa, cfpa or dcfpa). Candidates are checked
// against the method's limit; empty means default_k_candidates(limit).
struct KScore {
    std::size_t k;
    double mean_abs_nmse;
};
std::vector<KScore> nmse_k_sweep(SeriesSpan series, SeriesMethod method, std::size_t chunk, double epsilon,
                                 SeriesSpan l2_sensitivities, std::vector<std::size_t> candidates,
                                 std::size_t runs, Rng& rng, const CancelCheck& cancel = CancelCheck());
// 1..16, then about 1.25x apart, and the limit itself.
std::vector<std::size_t> default_k_candidates(std::size_t limit);
// The largest k a method allows for a series of length n: fpa_max_k(n), or fpa_max_k(min(chunk, n)).
std::size_t k_limit(SeriesMethod method, std::size_t n, std::size_t chunk);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
