#include "core/common/no_postgres.hpp"
#include "core/heatmap/stimulus_image.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>

#include <jpeglib.h>
#include <png.h>

#include "core/common/errors.hpp"

namespace gazepriv::core {

namespace {

// --- PNG: libpng's simplified API handles its own longjmp internally and reports failure by return value.

enum class Decoded { Ok, Corrupt };

// Reads the header only. C-style: no C++ object is alive while libpng runs.
Decoded png_dimensions(const std::uint8_t* bytes, std::size_t size, png_image* image) {
    std::memset(image, 0, sizeof *image);
    image->version = PNG_IMAGE_VERSION;
    return png_image_begin_read_from_memory(image, bytes, size) ? Decoded::Ok : Decoded::Corrupt;
}

Decoded png_pixels(png_image* image, std::uint8_t* out) {
    image->format = PNG_FORMAT_RGBA;
    const int ok = png_image_finish_read(image, nullptr, out, 0, nullptr); // frees the image's state
    png_image_free(image);
    return ok ? Decoded::Ok : Decoded::Corrupt;
}

// --- JPEG: libjpeg calls error_exit on any error; ours longjmps back into the function that set the jump,
// which holds only plain C data. Warnings (corrupt data libjpeg would paper over) are counted and refused.

struct JpegError {
    jpeg_error_mgr base; // first member: libjpeg's pointer to it is a pointer to this
    std::jmp_buf jump;
};

extern "C" void jpeg_fail(j_common_ptr info) {
    std::longjmp(reinterpret_cast<JpegError*>(info->err)->jump, 1);
}
extern "C" void jpeg_quiet(j_common_ptr) {} // no output to the server's stderr

// A progressive JPEG may hold any number of scans, each a pass over the whole image: a small file could keep
// the decoder busy for minutes. Ordinary encoders write at most a dozen; more than kMaxScans is refused.
constexpr int kMaxScans = 256;
extern "C" void jpeg_count_scans(j_common_ptr info) {
    if (reinterpret_cast<j_decompress_ptr>(info)->input_scan_number > kMaxScans)
        std::longjmp(reinterpret_cast<JpegError*>(info->err)->jump, 1);
}

// Dimensions when out == nullptr; otherwise the pixels as RGBA into out (width * height * 4 bytes, the
// dimensions known from a first call).
Decoded jpeg_read(const std::uint8_t* bytes, std::size_t size, std::uint32_t* width, std::uint32_t* height,
                  std::uint8_t* out) {
    jpeg_decompress_struct info;
    JpegError error;
    jpeg_progress_mgr progress;
    info.err = jpeg_std_error(&error.base);
    error.base.error_exit = jpeg_fail;
    error.base.output_message = jpeg_quiet;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        return Decoded::Corrupt;
    }
    jpeg_create_decompress(&info);
    progress.progress_monitor = jpeg_count_scans;
    info.progress = &progress;
    jpeg_mem_src(&info, bytes, static_cast<unsigned long>(size));
    jpeg_read_header(&info, TRUE);
    if (out == nullptr) {
        *width = info.image_width;
        *height = info.image_height;
        jpeg_destroy_decompress(&info);
        return Decoded::Ok;
    }
    if (info.image_width != *width || info.image_height != *height) {
        jpeg_destroy_decompress(&info);
        return Decoded::Corrupt;
    }
    info.out_color_space = JCS_EXT_RGBA; // libjpeg-turbo: RGBA output, gray and CMYK converted
    jpeg_start_decompress(&info);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = out + std::size_t{info.output_scanline} * info.output_width * 4;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    const long warnings = error.base.num_warnings;
    jpeg_destroy_decompress(&info);
    return warnings == 0 ? Decoded::Ok : Decoded::Corrupt;
}

void check_size(std::uint32_t width, std::uint32_t height, std::uint64_t max_pixels, const char* limit_name) {
    if (width == 0 || height == 0)
        throw InvalidArgument("the stimulus image has no pixels");
    const std::uint64_t pixels = std::uint64_t{width} * height;
    if (pixels > max_pixels)
        throw LimitExceeded("the stimulus image has " + std::to_string(width) + " x " +
                            std::to_string(height) + " pixels, more than " + limit_name + " (" +
                            std::to_string(max_pixels) + ")");
}

} // namespace

RgbaImage decode_stimulus(const std::uint8_t* bytes, std::size_t size, std::uint64_t max_pixels,
                          const char* limit_name) {
    static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    RgbaImage image;
    if (size >= 8 && std::memcmp(bytes, kPng, 8) == 0) {
        png_image png;
        if (png_dimensions(bytes, size, &png) != Decoded::Ok)
            throw InvalidArgument("the stimulus is not a valid PNG image");
        try {
            check_size(png.width, png.height, max_pixels, limit_name);
            image.rgba.resize(std::size_t{png.width} * png.height * 4);
        } catch (...) {
            png_image_free(&png);
            throw;
        }
        image.width = png.width;
        image.height = png.height;
        if (png_pixels(&png, image.rgba.data()) != Decoded::Ok)
            throw InvalidArgument("the stimulus is not a valid PNG image");
        return image;
    }
    if (size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) {
        if (jpeg_read(bytes, size, &image.width, &image.height, nullptr) != Decoded::Ok)
            throw InvalidArgument("the stimulus is not a valid JPEG image");
        check_size(image.width, image.height, max_pixels, limit_name);
        image.rgba.resize(std::size_t{image.width} * image.height * 4);
        if (jpeg_read(bytes, size, &image.width, &image.height, image.rgba.data()) != Decoded::Ok)
            throw InvalidArgument("the stimulus is not a valid JPEG image");
        return image;
    }
    throw InvalidArgument("the stimulus must be a PNG or JPEG image");
}

} // namespace gazepriv::core
