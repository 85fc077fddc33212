//===- Image.cpp - PNG (libpng) and JPEG (libjpeg-turbo) decoding -----------===//
#include "runtime/image/Image.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

namespace mm::rt {
namespace {

bool isPng(const std::string &b) {
  return b.size() >= 8 && png_sig_cmp(reinterpret_cast<png_const_bytep>(b.data()), 0, 8) == 0;
}
bool isJpeg(const std::string &b) {
  return b.size() >= 3 && uint8_t(b[0]) == 0xff && uint8_t(b[1]) == 0xd8 && uint8_t(b[2]) == 0xff;
}

void checkSize(uint64_t height, uint64_t width, const std::string &what) {
  if (height == 0 || width == 0 || height * width > uint64_t(kMaxImagePixels))
    fail(what, ": image size ", width, " x ", height, " is empty or over ", kMaxImagePixels,
         " pixels");
}

/// Sizes `v` to `n` bytes; false with `message` "out of memory" when that fails. Used
/// inside the decoders' setjmp regions, where an exception must not skip their cleanup.
bool allocatePixels(std::vector<uint8_t> &v, size_t n, char *message, size_t size) {
  try {
    v.resize(n);
    return true;
  } catch (const std::bad_alloc &) {
    std::snprintf(message, size, "out of memory");
    return false;
  }
}

// ---- PNG ----------------------------------------------------------------------------

struct PngReader {
  const std::string &bytes;
  size_t offset = 0;
  char message[200] = {};
};

void pngRead(png_structp png, png_bytep out, png_size_t n) {
  auto *r = static_cast<PngReader *>(png_get_io_ptr(png));
  if (n > r->bytes.size() - r->offset)
    png_error(png, "truncated data");
  std::memcpy(out, r->bytes.data() + r->offset, n);
  r->offset += n;
}

void pngError(png_structp png, png_const_charp msg) {
  auto *r = static_cast<PngReader *>(png_get_error_ptr(png));
  std::snprintf(r->message, sizeof r->message, "%s", msg);
  png_longjmp(png, 1);
}
void pngWarning(png_structp, png_const_charp) {}

/// Reads the rows into `image`; 16-bit grey (Pillow's mode I) through `wide`, clamped to
/// 255 as Pillow's convert("RGB") clamps it. Runs inside decodePngInto's setjmp region:
/// it creates no object with a destructor, and a failed allocation is caught here.
void readPngRows(png_structp png, png_infop info, PngReader &reader, RgbImage &image,
                 std::vector<uint8_t> &wide, bool grey16) {
  const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  const size_t rowBytes = size_t(width) * (grey16 ? 2 : 3);
  if (png_get_rowbytes(png, info) != rowBytes) {
    std::snprintf(reader.message, sizeof reader.message, "unexpected row layout");
    return;
  }
  if (!allocatePixels(image.pixels, size_t(width) * height * 3, reader.message,
                      sizeof reader.message) ||
      !allocatePixels(wide, grey16 ? size_t(height) * rowBytes : 0, reader.message,
                      sizeof reader.message))
    return;
  // Row by row (each interlace pass over every row), so no row-pointer array: Pillow
  // reads up to the last image row and accepts a file that ends there (no IEND), so the
  // chunks after the image data are not read.
  uint8_t *base = grey16 ? wide.data() : image.pixels.data();
  const int passes = png_set_interlace_handling(png);
  for (int p = 0; p < passes; ++p)
    for (png_uint_32 y = 0; y < height; ++y)
      png_read_row(png, base + size_t(y) * rowBytes, nullptr);
  if (grey16)
    for (size_t i = 0; i < size_t(width) * height; ++i) {
      const unsigned v = unsigned(wide[2 * i]) << 8 | wide[2 * i + 1]; // big-endian
      image.pixels[3 * i] = image.pixels[3 * i + 1] = image.pixels[3 * i + 2] =
          uint8_t(std::min(v, 255u));
    }
  image.height = height;
  image.width = width;
  reader.message[0] = 0;
}

/// Decodes into `image`; returns false with reader.message set on a libpng error, or
/// with it empty and image.height/width set when the size is refused.
bool decodePngInto(PngReader &reader, RgbImage &image, std::vector<uint8_t> &wide,
                   const std::string &what) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, pngError, pngWarning);
  if (!png)
    fail(what, ": cannot create a PNG reader");
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    fail(what, ": cannot create a PNG reader");
  }
  volatile bool ok = false;
  if (setjmp(png_jmpbuf(png)) == 0) {
    png_set_read_fn(png, &reader, pngRead);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff); // kMaxImagePixels decides
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info),
                      height = png_get_image_height(png, info);
    if (uint64_t(width) * height <= uint64_t(kMaxImagePixels) && width && height) {
      const bool grey16 = png_get_bit_depth(png, info) == 16 &&
                          png_get_color_type(png, info) == PNG_COLOR_TYPE_GRAY;
      // As Pillow's convert("RGB"): expand palettes and low depths, keep the high byte
      // of other 16-bit samples, replicate grey, drop alpha (and tRNS) without compositing.
      png_set_expand(png);
      if (!grey16) {
        png_set_strip_16(png);
        png_set_gray_to_rgb(png);
      }
      png_set_strip_alpha(png);
      png_read_update_info(png, info);
      readPngRows(png, info, reader, image, wide, grey16);
      ok = reader.message[0] == 0;
    } else {
      image.height = height;
      image.width = width;
    }
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return ok;
}

RgbImage decodePng(const std::string &bytes, const std::string &what) {
  PngReader reader{bytes};
  RgbImage image;
  std::vector<uint8_t> wide;
  const bool ok = decodePngInto(reader, image, wide, what);
  if (!ok && reader.message[0] == 0)
    checkSize(uint64_t(image.height), uint64_t(image.width), what);
  if (!ok)
    fail(what, ": corrupt PNG (", reader.message, ")");
  return image;
}

// ---- JPEG ---------------------------------------------------------------------------

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
};

void jpegErrorExit(j_common_ptr cinfo) {
  auto *e = reinterpret_cast<JpegError *>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}
/// libjpeg warns, and fills the rest grey, when the data end early; Pillow refuses such
/// a file ("image file is truncated"), so that warning is an error here. Other warnings
/// (extraneous bytes between markers) are ignored, as Pillow ignores them.
void jpegWarning(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF)
    cinfo->err->error_exit(cinfo);
}

/// Decodes into `image`; returns false with err.message set on a libjpeg error.
/// `tooLarge` / `cmyk` report a refused header.
bool decodeJpegInto(const std::string &bytes, RgbImage &image, JpegError &err, bool &tooLarge,
                    bool &cmyk) {
  jpeg_decompress_struct cinfo{};
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpegErrorExit;
  err.mgr.emit_message = jpegWarning;
  volatile bool ok = false;
  if (setjmp(err.jump) == 0) {
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char *>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    tooLarge = uint64_t(cinfo.image_width) * cinfo.image_height > uint64_t(kMaxImagePixels);
    image.height = cinfo.image_height;
    image.width = cinfo.image_width;
    if (!cmyk && !tooLarge) {
      cinfo.out_color_space = JCS_RGB;
      jpeg_start_decompress(&cinfo);
      if (cinfo.output_components == 3 &&
          allocatePixels(image.pixels, size_t(image.width) * size_t(image.height) * 3,
                         err.message, sizeof err.message)) {
        while (cinfo.output_scanline < cinfo.output_height) {
          JSAMPROW row = image.pixels.data() + size_t(cinfo.output_scanline) * image.width * 3;
          jpeg_read_scanlines(&cinfo, &row, 1);
        }
        jpeg_finish_decompress(&cinfo);
        ok = true;
      } else if (err.message[0] == 0)
        std::snprintf(err.message, sizeof err.message, "%d output components",
                      cinfo.output_components);
    }
  }
  jpeg_destroy_decompress(&cinfo);
  return ok;
}

RgbImage decodeJpeg(const std::string &bytes, const std::string &what) {
  RgbImage image;
  JpegError err;
  bool tooLarge = false, cmyk = false;
  if (decodeJpegInto(bytes, image, err, tooLarge, cmyk))
    return image;
  if (cmyk)
    fail(what, ": CMYK/YCCK JPEG images are not supported (convert to RGB first)");
  if (tooLarge)
    checkSize(uint64_t(image.height), uint64_t(image.width), what);
  fail(what, ": corrupt JPEG (", err.message, ")");
}

} // namespace

RgbImage decodeImage(const std::string &bytes, const std::string &what) {
  if (isPng(bytes))
    return decodePng(bytes, what);
  if (isJpeg(bytes))
    return decodeJpeg(bytes, what);
  fail(what, ": not a PNG or JPEG image (", bytes.size(), " bytes)");
}

RgbImage decodeImageFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail("cannot open image '", path, "': ", std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail("'", path, "' is not a regular file");
  if (uint64_t(st.st_size) > kMaxImageFileBytes)
    fail("'", path, "' is ", uint64_t(st.st_size), " bytes, over the ", kMaxImageFileBytes,
         " an image file may have");
  return decodeImage(io::readFile(path), "'" + path + "'");
}

} // namespace mm::rt
