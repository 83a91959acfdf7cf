#include "core/series/real_fft.hpp"

#include <climits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <fftw3.h>

#include "core/common/errors.hpp"

namespace gazepriv::core {

RealFft::RealFft(std::size_t n) : n_(n) {
    if (n < 1 || n > static_cast<std::size_t>(INT_MAX))
        throw InvalidArgument("transform size must be between 1 and 2147483647, got " + std::to_string(n));
    signal_ = fftw_alloc_real(n);
    spectrum_ = reinterpret_cast<std::complex<double>*>(fftw_alloc_complex(n / 2 + 1));
    if (signal_ == nullptr || spectrum_ == nullptr) {
        fftw_free(signal_);
        fftw_free(spectrum_);
        throw std::bad_alloc();
    }
    auto* bins = reinterpret_cast<fftw_complex*>(spectrum_);
    const int size = static_cast<int>(n);
    forward_plan_ = fftw_plan_dft_r2c_1d(size, signal_, bins, FFTW_ESTIMATE);
    inverse_plan_ = fftw_plan_dft_c2r_1d(size, bins, signal_, FFTW_ESTIMATE);
    if (forward_plan_ == nullptr || inverse_plan_ == nullptr) {
        release();
        throw InternalError("FFTW could not plan a transform of size " + std::to_string(n));
    }
}

RealFft::~RealFft() {
    release();
}

void RealFft::release() noexcept {
    if (forward_plan_ != nullptr)
        fftw_destroy_plan(static_cast<fftw_plan>(forward_plan_));
    if (inverse_plan_ != nullptr)
        fftw_destroy_plan(static_cast<fftw_plan>(inverse_plan_));
    fftw_free(signal_);
    fftw_free(spectrum_);
    forward_plan_ = inverse_plan_ = nullptr;
    signal_ = nullptr;
    spectrum_ = nullptr;
}

void RealFft::forward() {
    fftw_execute(static_cast<fftw_plan>(forward_plan_));
}

void RealFft::inverse() {
    fftw_execute(static_cast<fftw_plan>(inverse_plan_));
}

namespace {

// Most recently used last.
std::vector<std::shared_ptr<RealFft>>& cache() {
    static std::vector<std::shared_ptr<RealFft>> entries;
    return entries;
}

} // namespace

std::shared_ptr<RealFft> real_fft(std::size_t n) {
    auto& entries = cache();
    for (std::size_t i = entries.size(); i-- > 0;) {
        if (entries[i]->size() == n) {
            auto hit = entries[i];
            if (i + 1 != entries.size()) {
                entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
                entries.push_back(hit);
            }
            return hit;
        }
    }
    auto made = std::make_shared<RealFft>(n);
    if (entries.size() == kRealFftCacheSizes)
        entries.erase(entries.begin());
    entries.push_back(made);
    return made;
}

std::size_t real_fft_cached_sizes() {
    return cache().size();
}

} // namespace gazepriv::core
