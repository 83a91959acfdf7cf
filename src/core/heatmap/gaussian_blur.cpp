#include "core/heatmap/gaussian_blur.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr double kTruncation = 6.0; // kernel radius in standard deviations (the tail beyond holds < 2e-9)
// Frequencies where the kernel's response along x is below this fraction of its peak are dropped: their
// contribution is below single-precision rounding.
constexpr double kNegligibleResponse = 1e-9;
constexpr std::int64_t kMaxPaddedPoints = std::int64_t{1} << 30; // 4 GiB of floats: refuse beyond

struct PlanDeleter {
    void operator()(fftwf_plan_s* p) const { fftwf_destroy_plan(p); }
};
using Plan = std::unique_ptr<fftwf_plan_s, PlanDeleter>;

struct FftwDeleter {
    void operator()(void* p) const { fftwf_free(p); }
};
template <typename T> using FftwBuffer = std::unique_ptr<T[], FftwDeleter>;

// Real rows of length nx (rows of them), their half spectra, and the columns kept (columns of length ny).
struct Buffers {
    FftwBuffer<float> rows;
    FftwBuffer<fftwf_complex> spectra;
    FftwBuffer<fftwf_complex> columns;
};

// The buffers of the last blur, kept for the next one of the same geometry when they are small: fresh
// buffers of a 1680 x 1050 map cost their page faults, 15-20% of a release's time.
constexpr std::size_t kRetainedBytes = std::size_t{64} << 20;
struct RetainedBuffers {
    std::int64_t nx = 0, ny = 0, rows = 0, kept = 0;
    Buffers buffers;
};
RetainedBuffers& retained_buffers() {
    static RetainedBuffers retained;
    return retained;
}

struct CachedPlans {
    std::int64_t nx, ny, rows, kept;
    Plan rows_forward, columns_forward, columns_inverse, rows_inverse;
};

// Plans for one geometry, made on first use with FFTW_ESTIMATE (deterministic) and reused with FFTW's
// new-array interface on buffers of the same (fftwf_alloc) alignment.
const CachedPlans& plans_for(std::int64_t nx, std::int64_t ny, std::int64_t rows, std::int64_t kept,
                             Buffers& b) {
    static std::vector<std::unique_ptr<CachedPlans>> cache; // most recently used first
    for (std::size_t i = 0; i < cache.size(); ++i) {
        const CachedPlans& c = *cache[i];
        if (c.nx == nx && c.ny == ny && c.rows == rows && c.kept == kept) {
            std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                        cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            return *cache.front();
        }
    }
    const int n_x = static_cast<int>(nx), n_y = static_cast<int>(ny), half = n_x / 2 + 1;
    auto entry = std::make_unique<CachedPlans>();
    entry->nx = nx;
    entry->ny = ny;
    entry->rows = rows;
    entry->kept = kept;
    entry->rows_forward.reset(fftwf_plan_many_dft_r2c(1, &n_x, static_cast<int>(rows), b.rows.get(), nullptr,
                                                      1, n_x, b.spectra.get(), nullptr, 1, half,
                                                      FFTW_ESTIMATE));
    entry->columns_forward.reset(fftwf_plan_many_dft(1, &n_y, static_cast<int>(kept), b.columns.get(),
                                                     nullptr, 1, n_y, b.columns.get(), nullptr, 1, n_y,
                                                     FFTW_FORWARD, FFTW_ESTIMATE));
    entry->columns_inverse.reset(fftwf_plan_many_dft(1, &n_y, static_cast<int>(kept), b.columns.get(),
                                                     nullptr, 1, n_y, b.columns.get(), nullptr, 1, n_y,
                                                     FFTW_BACKWARD, FFTW_ESTIMATE));
    entry->rows_inverse.reset(fftwf_plan_many_dft_c2r(1, &n_x, static_cast<int>(rows), b.spectra.get(),
                                                      nullptr, 1, half, b.rows.get(), nullptr, 1, n_x,
                                                      FFTW_ESTIMATE));
    if (!entry->rows_forward || !entry->columns_forward || !entry->columns_inverse || !entry->rows_inverse)
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

template <typename T> FftwBuffer<T> fftw_buffer(std::size_t n, T* (*allocate)(std::size_t)) {
    FftwBuffer<T> b(allocate(n));
    if (!b)
        throw std::bad_alloc();
    return b;
}

} // namespace

std::int64_t fast_fft_size(std::int64_t n) {
    for (std::int64_t m = (std::max<std::int64_t>(n, 1) + 7) / 8 * 8;; m += 8) {
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
    const std::int64_t half = nx / 2 + 1;
    if (nx * ny > kMaxPaddedPoints)
        throw LimitExceeded("the blur of a " + std::to_string(columns) + " x " + std::to_string(rows) +
                            " map with sigma " + format_number(sigma) + " cells needs too large a transform");
    const std::vector<double> hx = kernel_response(w, rx, total, nx, half);
    const std::vector<double> hy = kernel_response(w, ry, total, ny, ny / 2 + 1);
    // The 2-D convolution is separable: transform the map's rows (not the zero rows of the padding), then
    // only the columns of frequencies the kernel keeps, then back.
    std::int64_t kept = half;
    while (kept > 1 && std::fabs(hx[static_cast<std::size_t>(kept - 1)]) < kNegligibleResponse * hx[0])
        --kept;

    RetainedBuffers& retained = retained_buffers();
    Buffers b;
    if (retained.buffers.rows && retained.nx == nx && retained.ny == ny && retained.rows == rows &&
        retained.kept == kept)
        b = std::move(retained.buffers);
    else
        b = Buffers{fftw_buffer(static_cast<std::size_t>(nx * rows), fftwf_alloc_real),
                    fftw_buffer(static_cast<std::size_t>(half * rows), fftwf_alloc_complex),
                    fftw_buffer(static_cast<std::size_t>(ny * kept), fftwf_alloc_complex)};
    const CachedPlans& plans = plans_for(nx, ny, rows, kept, b);

    for (std::int64_t y = 0; y < rows; ++y) {
        float* row = b.rows.get() + y * nx;
        const double* src = values + y * columns;
        for (std::int64_t x = 0; x < columns; ++x)
            row[x] = static_cast<float>(src[x]);
        std::fill(row + columns, row + nx, 0.0f);
    }
    fftwf_execute_dft_r2c(plans.rows_forward.get(), b.rows.get(), b.spectra.get());
    cancel.now();
    fftwf_complex* spectra = b.spectra.get();
    fftwf_complex* cols = b.columns.get();
    for (std::int64_t fx = 0; fx < kept; ++fx) {
        fftwf_complex* column = cols + fx * ny;
        for (std::int64_t y = 0; y < rows; ++y) {
            column[y][0] = spectra[y * half + fx][0];
            column[y][1] = spectra[y * half + fx][1];
        }
        std::fill(&column[rows][0], &column[ny][0], 0.0f);
    }
    fftwf_execute_dft(plans.columns_forward.get(), cols, cols);
    cancel.now();
    const double norm = 1.0 / (static_cast<double>(nx) * static_cast<double>(ny));
    for (std::int64_t fx = 0; fx < kept; ++fx) {
        fftwf_complex* column = cols + fx * ny;
        const double gx = hx[static_cast<std::size_t>(fx)] * norm;
        for (std::int64_t fy = 0; fy < ny; ++fy) {
            const float g =
                static_cast<float>(gx * hy[static_cast<std::size_t>(fy <= ny / 2 ? fy : ny - fy)]);
            column[fy][0] *= g;
            column[fy][1] *= g;
        }
    }
    fftwf_execute_dft(plans.columns_inverse.get(), cols, cols);
    cancel.now();
    for (std::int64_t y = 0; y < rows; ++y) {
        fftwf_complex* line = spectra + y * half;
        for (std::int64_t fx = 0; fx < kept; ++fx) {
            line[fx][0] = cols[fx * ny + y][0];
            line[fx][1] = cols[fx * ny + y][1];
        }
        std::fill(&line[kept][0], &line[half][0], 0.0f);
    }
    fftwf_execute_dft_c2r(plans.rows_inverse.get(), spectra, b.rows.get());
    cancel.now();
    for (std::int64_t y = 0; y < rows; ++y) {
        const float* row = b.rows.get() + y * nx;
        double* dst = values + y * columns;
        for (std::int64_t x = 0; x < columns; ++x)
            dst[x] = row[x];
    }
    const auto bytes = static_cast<std::size_t>(nx * rows) * sizeof(float) +
                       static_cast<std::size_t>(half * rows + ny * kept) * sizeof(fftwf_complex);
    if (bytes <= kRetainedBytes) {
        retained.buffers = std::move(b);
        retained.nx = nx;
        retained.ny = ny;
        retained.rows = rows;
        retained.kept = kept;
    }
}

} // namespace gazepriv::core
