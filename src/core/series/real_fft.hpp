// Real-input discrete Fourier transforms through FFTW, with plans made once per size and reused.
//
// Convention (FFTW's and numpy's): forward F_j = sum_t x_t e^{-2 pi i j t / n}, unnormalised; the
// inverse of a Hermitian spectrum (given by its bins 0..n/2) returns n times the signal. Plans are
// FFTW_ESTIMATE (no timing, deterministic) and live in a per-process cache of the most recently used
// sizes, each with its own aligned buffers: callers write the input into the buffer, execute, and read
// the output from the other buffer. FFTW's planner is not thread-safe, and neither is this cache;
// PostgreSQL backends are single-threaded.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>

namespace gazepriv::core {

class RealFft {
public:
    explicit RealFft(std::size_t n); // prefer real_fft(n), which caches
    ~RealFft();
    RealFft(const RealFft&) = delete;
    RealFft& operator=(const RealFft&) = delete;

    std::size_t size() const { return n_; }
    std::size_t bins() const { return n_ / 2 + 1; }
    double* signal() { return signal_; }                   // n values
    std::complex<double>* spectrum() { return spectrum_; } // n/2 + 1 bins

    void forward(); // spectrum = DFT(signal); signal is kept
    void inverse(); // signal = n * IDFT(Hermitian spectrum); the spectrum is overwritten

private:
    void release() noexcept;

    std::size_t n_;
    double* signal_ = nullptr;
    std::complex<double>* spectrum_ = nullptr;
    void* forward_plan_ = nullptr;
    void* inverse_plan_ = nullptr;
};

// The transform of size n (1 <= n <= 2^31 - 1) from the per-process cache. A handle stays valid while
// it is held, even if the cache evicts its size.
std::shared_ptr<RealFft> real_fft(std::size_t n);

// How many sizes the cache holds (at most kRealFftCacheSizes).
std::size_t real_fft_cached_sizes();
constexpr std::size_t kRealFftCacheSizes = 32;

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
