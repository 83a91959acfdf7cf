// The stimulus a heatmap is laid over: a PNG (libpng) or baseline/progressive JPEG (libjpeg-turbo) decoded
// into RGBA pixels. The bytes are hostile: the dimensions are read from the header and checked against the
// caller's limit before any pixel memory is allocated (LimitExceeded), and anything the libraries refuse,
// or warn about, or a progressive JPEG of more than 256 scans, is InvalidArgument (22023: the caller can fix
// the image).
// The libraries' setjmp/longjmp error handling stays inside C-style functions of stimulus_image.cpp that
// hold no C++ object across it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gazepriv::core {

struct RgbaImage {
    std::uint32_t width = 0, height = 0;
    std::vector<std::uint8_t> rgba; // width * height * 4, row-major
};

// Decodes a PNG or JPEG (told apart by their signatures). max_pixels: width * height above it is refused
// with LimitExceeded naming `limit_name`.
RgbaImage decode_stimulus(const std::uint8_t* bytes, std::size_t size, std::uint64_t max_pixels,
                          const char* limit_name);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
