#include "core/gaussian_blur.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include "core/errors.hpp"
#include "core/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr double kTruncation = 4.0;                              // kernel radius in standard deviations
constexpr std::int64_t kMaxPaddedPoints = std::int64_t{1} << 30; // 4 GiB of floats: refuse beyond

struct PlanDeleter {
    void operator()(fftwf_plan_s* p) const { fftwf_destroy_plan(p); }
};
using Plan = std::unique_ptr<fftwf_plan_s, PlanDeleter>;

struct FloatDeleter {
    void operator()(void* p) const { fftwf_free(p); }
};
template <typename T> using FftwBuffer = std::unique_ptr<T[], FloatDeleter>;

struct CachedPlans {
    std::int64_t nx, ny;
    Plan forward, inverse;
};

// Plans for an ny x nx real grid, made on first use with the given (fftwf_alloc-aligned) buffers and
// reused with FFTW's new-array interface afterwards.
const CachedPlans& plans_for(std::int64_t nx, std::int64_t ny, float* real, fftwf_complex* spectrum) {
    static std::vector<std::unique_ptr<CachedPlans>> cache; // most recently used first
    for (std::size_t i = 0; i < cache.size(); ++i) {
        if (cache[i]->nx == nx && cache[i]->ny == ny) {
            std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                        cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            return *cache.front();
        }
    }
    auto entry = std::make_unique<CachedPlans>();
    entry->nx = nx;
    entry->ny = ny;
    entry->forward.reset(fftwf_plan_dft_r2c_2d(static_cast<int>(ny), static_cast<int>(nx), real, spectrum,
                                               FFTW_ESTIMATE | FFTW_DESTROY_INPUT));
    entry->inverse.reset(fftwf_plan_dft_c2r_2d(static_cast<int>(ny), static_cast<int>(nx), spectrum, real,
                                               FFTW_ESTIMATE | FFTW_DESTROY_INPUT));
    if (!entry->forward || !entry->inverse)
        throw InternalError("FFTW could not plan a " + std::to_string(nx) + " x " + std::to_string(ny) +
                            " transform");
    cache.insert(cache.begin(), std::move(entry));
    if (cache.size() > 4)
        cache.pop_back();
    return *cache.front();
}

// The DFT (length n, real and even) of the kernel w_{-radius..radius} / total, at frequencies 0..count-1.
std::vector<double> kernel_response(const std::vector<double>& w, std::int64_t radius, double total,
                                    std::int64_t n, std::int64_t count) {
    std::vector<double> h(static_cast<std::size_t>(count));
    for (std::int64_t f = 0; f < count; ++f) {
        // cos(theta k) by the Chebyshev recurrence, in double (error ~ radius * 1e-16).
        const double theta = 2 * M_PI * static_cast<double>(f) / static_cast<double>(n);
        const double two_cos = 2 * std::cos(theta);
        double c_prev = 1, c = std::cos(theta);
        double sum = w[0];
        for (std::int64_t k = 1; k <= radius; ++k) {
            sum += 2 * w[static_cast<std::size_t>(k)] * c;
            const double next = two_cos * c - c_prev;
            c_prev = c;
            c = next;
        }
        h[static_cast<std::size_t>(f)] = sum / total;
    }
    return h;
}

} // namespace

std::int64_t fast_fft_size(std::int64_t n) {
    for (std::int64_t m = std::max<std::int64_t>(n, 1);; ++m) {
        std::int64_t r = m;
        for (std::int64_t p : {2, 3, 5, 7})
            while (r % p == 0)
                r /= p;
        if (r == 1)
            return m;
    }
}

void gaussian_blur(double* values, std::int32_t columns, std::int32_t rows, double sigma,
                   const CancelCheck& cancel) {
    require_non_negative("blur sigma", sigma);
    if (sigma == 0 || columns <= 0 || rows <= 0)
        return;
    const std::int64_t full_radius = static_cast<std::int64_t>(std::ceil(kTruncation * sigma));
    std::vector<double> w(static_cast<std::size_t>(full_radius) + 1);
    double total = 0;
    for (std::int64_t k = 0; k <= full_radius; ++k) {
        const double x = static_cast<double>(k) / sigma;
        w[static_cast<std::size_t>(k)] = std::exp(-0.5 * x * x);
        total += k == 0 ? w[0] : 2 * w[static_cast<std::size_t>(k)];
    }
    // Outputs inside the map only see inputs inside it, so the kernel can stop at the map's extent, and a
    // period of extent + radius keeps the circular convolution from wrapping onto the map.
    const std::int64_t rx = std::min<std::int64_t>(full_radius, columns - 1);
    const std::int64_t ry = std::min<std::int64_t>(full_radius, rows - 1);
    const std::int64_t nx = fast_fft_size(columns + rx);
    const std::int64_t ny = fast_fft_size(rows + ry);
    if (nx * ny > kMaxPaddedPoints)
        throw LimitExceeded("the blur of a " + std::to_string(columns) + " x " + std::to_string(rows) +
                            " map with sigma " + format_number(sigma) + " cells needs too large a transform");
    const std::int64_t half = nx / 2 + 1;
    FftwBuffer<float> real(fftwf_alloc_real(static_cast<std::size_t>(nx * ny)));
    FftwBuffer<fftwf_complex> spectrum(fftwf_alloc_complex(static_cast<std::size_t>(ny * half)));
    if (!real || !spectrum)
        throw std::bad_alloc();
    const CachedPlans& plans = plans_for(nx, ny, real.get(), spectrum.get());

    for (std::int64_t y = 0; y < ny; ++y) {
        float* row = real.get() + y * nx;
        if (y < rows) {
            const double* src = values + y * columns;
            for (std::int64_t x = 0; x < columns; ++x)
                row[x] = static_cast<float>(src[x]);
            std::fill(row + columns, row + nx, 0.0f);
        } else {
            std::fill(row, row + nx, 0.0f);
        }
    }
    cancel.now();
    const std::vector<double> hx = kernel_response(w, rx, total, nx, half);
    const std::vector<double> hy = kernel_response(w, ry, total, ny, ny / 2 + 1);
    fftwf_execute_dft_r2c(plans.forward.get(), real.get(), spectrum.get());
    cancel.now();
    const double norm = 1.0 / (static_cast<double>(nx) * static_cast<double>(ny));
    for (std::int64_t fy = 0; fy < ny; ++fy) {
        const std::int64_t ky = fy <= ny / 2 ? fy : ny - fy; // the response is even
        const double gy = hy[static_cast<std::size_t>(ky)] * norm;
        fftwf_complex* line = spectrum.get() + fy * half;
        for (std::int64_t fx = 0; fx < half; ++fx) {
            const float g = static_cast<float>(gy * hx[static_cast<std::size_t>(fx)]);
            line[fx][0] *= g;
            line[fx][1] *= g;
        }
    }
    fftwf_execute_dft_c2r(plans.inverse.get(), spectrum.get(), real.get());
    cancel.now();
    for (std::int64_t y = 0; y < rows; ++y) {
        const float* row = real.get() + y * nx;
        double* dst = values + y * columns;
        for (std::int64_t x = 0; x < columns; ++x)
            dst[x] = row[x];
    }
}

} // namespace gazepriv::core
