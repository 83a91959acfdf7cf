// The heatmap's point-spread function (Liu et al. 2019 §1.7; Duchowski et al. 2012): a Gaussian blur.
// It is applied after the noise, so it is post-processing and changes no privacy guarantee.
//
// The kernel is the sampled Gaussian w_k = exp(-k^2 / (2 s^2)), |k| <= ceil(6 s), normalised to sum 1,
// applied along rows and columns; the map is zero outside its edges (mass blurred off the map is lost).
// The convolution is computed exactly (up to single-precision rounding) with FFTW in single precision on
// a zero-padded grid, so its cost does not grow with s: the rows of the map are transformed, then only the
// columns of the frequencies whose response exceeds 1e-9 of the peak (about 2 nx / s of them), then back.
// Plans are made with FFTW_ESTIMATE (deterministic) and cached per geometry for the life of the process
// (the most recent four).
#pragma once

#include <cstdint>

#include "core/common/cancel.hpp"

namespace gazepriv::core {

// values: rows x columns, row-major, blurred in place. sigma in cells, >= 0 (0 leaves values unchanged).
void gaussian_blur(double* values, std::int32_t columns, std::int32_t rows, double sigma,
                   const CancelCheck& cancel);

// The smallest n' >= n that is a multiple of 8 with no prime factor above 7: sizes FFTW transforms fast
// without measuring (odd sizes such as 3 * 5^4 are twice as slow under FFTW_ESTIMATE).
std::int64_t fast_fft_size(std::int64_t n);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
