//===- ImageTest.cpp - PNG/JPEG decoding and the CLIP image processor vs Pillow ----===//
//
// Goldens from Pillow 9.4 (test/unit/Inputs/images/gen_image_goldens.py): decoding and
// Pillow's bicubic resize must match bit for bit (both are integer algorithms on the same
// decoders: libpng, libjpeg-turbo); the processor's float32 pixel values must match to
// the float32 rounding of the same operations, which are done in the same order (so
// exactly: tolerance 0).
//
//===----------------------------------------------------------------------===//
#include "runtime/core/Error.h"
#include "runtime/image/ClipImageProcessor.h"
#include "runtime/io/FileUtil.h"
#include "runtime/io/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace mm::rt {
namespace {

const std::string kDir = MM_IMAGE_INPUTS; // test/unit/Inputs/images

/// The golden [H, W, 3] uint8 array as an RgbImage.
RgbImage goldenRgb(const std::string &file) {
  const Tensor t = io::readNpy(kDir + "/" + file);
  EXPECT_EQ(t.dtype, DType::u8) << file;
  EXPECT_EQ(t.rank(), 3) << file;
  RgbImage im;
  im.height = t.shape[0];
  im.width = t.shape[1];
  im.pixels.assign(t.as<uint8_t>(), t.as<uint8_t>() + t.numel());
  return im;
}

void expectSameImage(const RgbImage &got, const RgbImage &want, const std::string &what) {
  ASSERT_EQ(got.height, want.height) << what;
  ASSERT_EQ(got.width, want.width) << what;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.pixels.size(); ++i)
    if (got.pixels[i] != want.pixels[i] && bad++ == 0)
      first = i;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.pixels.size()
                     << " bytes differ, the first at " << first << " ("
                     << int(got.pixels[first]) << " vs " << int(want.pixels[first]) << ")";
}

TEST(ImageTest, DecodesAsPillowConvertRgb) {
  // gray16: Pillow's mode I, clamped to 255 by convert("RGB"); la: grey + alpha;
  // noiend: rgb.png without its IEND chunk, which Pillow decodes.
  for (const char *name : {"rgb.png", "gray.png", "rgba.png", "palette.png", "gray16.png",
                           "la.png", "noiend.png", "photo.jpg", "progressive.jpg", "gray.jpg"})
    expectSameImage(decodeImageFile(kDir + "/" + name), goldenRgb(std::string(name) + ".rgb.npy"),
                    name);
}

TEST(ImageTest, BicubicResizeIsPillows) {
  struct Case {
    const char *image;
    int64_t h, w;
  };
  for (const Case &c : {Case{"rgb.png", 17, 24}, {"rgb.png", 101, 80}, {"rgb.png", 37, 20},
                        {"rgb.png", 5, 7}, {"photo.jpg", 96, 128}, {"photo.jpg", 9, 12}}) {
    const std::string name = std::string(c.image) + ".resize_" + std::to_string(c.h) + "x" +
                             std::to_string(c.w) + ".npy";
    expectSameImage(resizeBicubic(decodeImageFile(kDir + "/" + c.image), c.h, c.w),
                    goldenRgb(name), name);
  }
  const RgbImage im = decodeImageFile(kDir + "/rgb.png");
  expectSameImage(resizeBicubic(im, im.height, im.width), im, "same size");
  EXPECT_THROW(resizeBicubic(im, 0, 5), Error);
}

TEST(ImageTest, ClipPixelValuesAreTransformers) {
  for (const char *config : {"clip", "pad"}) {
    const ClipProcessorConfig c = parseClipProcessorConfig(
        io::readFile(kDir + "/" + config + ".preprocessor_config.json"), config);
    for (const char *name : {"rgb.png", "photo.jpg", "gray.png"}) {
      const std::string what = std::string(name) + " / " + config;
      int64_t h = 0, w = 0;
      const std::vector<float> got = clipPixelValues(decodeImageFile(kDir + "/" + name), c, h, w);
      const Tensor want = io::readNpy(kDir + "/" + name + "." + config + ".npy");
      ASSERT_EQ(want.shape, (Shape{3, h, w})) << what;
      ASSERT_EQ(int64_t(got.size()), want.numel()) << what;
      int64_t bad = 0;
      for (int64_t i = 0; i < want.numel(); ++i)
        bad += got[size_t(i)] != want.as<float>()[i]; // also false for NaN
      EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.numel() << " values differ";
    }
  }
}

TEST(ImageTest, ProcessorConfigErrorsNameTheField) {
  auto message = [](const std::string &json) {
    try {
      parseClipProcessorConfig(json, "cfg.json");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("[1]").find("cfg.json: not a JSON object"), std::string::npos);
  EXPECT_NE(message(R"({"image_processor_type": "SiglipImageProcessor"})")
                .find("this reader takes CLIPImageProcessor"),
            std::string::npos);
  // The spellings the dispatcher accepts (ImageProcessor.h) are accepted here too.
  EXPECT_EQ(message(R"({"image_processor_type": "CLIPImageProcessorFast"})"), "no error");
  EXPECT_EQ(message(R"({"feature_extractor_type": "CLIPFeatureExtractor"})"), "no error");
  EXPECT_NE(message(R"({"resample": 0})").find("resample 0 (nearest) is not supported"),
            std::string::npos);
  EXPECT_NE(message(R"({"do_pad": true})").find("'do_pad' true is not supported"),
            std::string::npos);
  EXPECT_EQ(message(R"({"resample": 2})"), "no error"); // bilinear: Pillow-exact too
  EXPECT_NE(message(R"({"size": {"height": 4, "width": 4}})").find("no shortest_edge"),
            std::string::npos);
  EXPECT_NE(message(R"({"size": -3})").find("'size' is not a positive"), std::string::npos);
  EXPECT_NE(message(R"({"crop_size": {"height": 4}})").find("height and width"),
            std::string::npos);
  EXPECT_NE(message(R"({"image_mean": [0.5, 0.5]})").find("'image_mean' is not a number or a list of 3"),
            std::string::npos);
  EXPECT_NE(message(R"({"image_std": [0.5, 0, 0.5]})").find("not positive"), std::string::npos);
  EXPECT_NE(message(R"({"do_resize": "yes"})").find("'do_resize' is not true or false"),
            std::string::npos);
  EXPECT_NE(message(R"({"crop_size": {"height": 65536, "width": 65536}})").find("is over 178956970"),
            std::string::npos);
  const ClipProcessorConfig c = parseClipProcessorConfig(R"({"size": 336, "crop_size": 336})", "x");
  EXPECT_EQ(c.shortestEdge, 336);
  EXPECT_EQ(c.cropHeight, 336);
  EXPECT_EQ(c.cropWidth, 336);
}

/// Writes `bytes` to a temporary file and returns decodeImageFile's error for it.
std::string decodeError(const std::string &bytes) {
  const std::string path = ::testing::TempDir() + "/mm-image-test.bin";
  std::ofstream(path, std::ios::binary) << bytes;
  try {
    decodeImageFile(path);
  } catch (const Error &e) {
    std::remove(path.c_str());
    return e.what();
  }
  std::remove(path.c_str());
  return "no error";
}

TEST(ImageTest, BadFilesGiveClearErrors) {
  EXPECT_NE(decodeError("").find("not a PNG or JPEG image (0 bytes)"), std::string::npos);
  EXPECT_NE(decodeError("GIF89a....").find("not a PNG or JPEG"), std::string::npos);
  const std::string png = io::readFile(kDir + "/rgb.png"), jpg = io::readFile(kDir + "/photo.jpg");
  for (size_t cut : {size_t(8), size_t(40), png.size() / 2, png.size() - 25})
    EXPECT_NE(decodeError(png.substr(0, cut)).find("corrupt PNG"), std::string::npos) << cut;
  for (size_t cut : {size_t(3), size_t(200), jpg.size() / 2, jpg.size() - 2})
    EXPECT_NE(decodeError(jpg.substr(0, cut)).find("corrupt JPEG"), std::string::npos) << cut;
  std::string flipped = png;
  flipped[png.size() / 2] ^= 0x55; // a damaged IDAT: zlib or CRC error
  EXPECT_NE(decodeError(flipped).find("corrupt PNG"), std::string::npos);
  // An IHDR claiming 70000 x 70000 pixels (with a valid CRC) and a CMYK JPEG.
  EXPECT_NE(decodeError(io::readFile(kDir + "/huge-header.png"))
                .find("image size 70000 x 70000 is empty or over 178956970 pixels"),
            std::string::npos);
  EXPECT_NE(decodeError(io::readFile(kDir + "/cmyk.jpg")).find("CMYK/YCCK JPEG images are not"),
            std::string::npos);
  try {
    decodeImageFile(kDir + "/no-such-image.png");
    ADD_FAILURE() << "a missing file decoded";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no-such-image.png"), std::string::npos);
  }
}

} // namespace
} // namespace mm::rt
