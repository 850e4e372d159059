// streamrt-bench-image: how fast a rendered image becomes file bytes, per format and setting.
// Encodes one image (a file given, or a synthetic noisy gradient) with every PNG setting of ours
// (zlib level, row filter, threads), the baselines a user would otherwise get (stb_image_write,
// the previous encoder; libpng at a fast level where it is installed), every EXR compression
// tinyexr writes, and PFM; prints a table (median ms, MB/s of the image's bytes, file size) and
// writes JSON.
//   streamrt-bench-image [--image FILE.pfm|.exr|.png] [--width W --height H] [--repeats N]
//                        [--json out.json]
#include <omp.h>
#include <stb_image_write.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#ifdef SRT_BENCH_LIBPNG
#include <png.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/image_io.h"
#include "base/png_encode.h"

using namespace srt;

namespace {

Image syntheticImage(int width, int height) {
  Image image(width, height);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> noise(0.f, 0.15f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      image.at(x, y) = {float(x) / width + noise(rng), float(y) / height + noise(rng),
                        0.5f + noise(rng)};
  return image;
}

std::string stbPng(const std::vector<uint8_t>& rgb, int width, int height) {
  std::string out;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  stbi_write_png_to_func(append, &out, width, height, 3, rgb.data(), width * 3);
  return out;
}

#ifdef SRT_BENCH_LIBPNG
std::string libpng(const std::vector<uint8_t>& rgb, int width, int height, int level, int filter) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t size) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<char*>(data), size);
      },
      nullptr);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, filter);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(&rgb[size_t(y) * size_t(width) * 3]));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}
#endif

struct Row {
  std::string format, setting;
  int threads = 1;
  double medianMs = 0, minMs = 0;
  size_t bytes = 0;     // the file
  size_t rawBytes = 0;  // the pixels as the format stores them (8-bit or float RGB)
};

Row timeIt(const std::string& format, const std::string& setting, int threads, size_t raw,
           int repeats, const std::function<std::string()>& encode) {
  std::vector<double> ms;
  size_t bytes = 0;
  for (int r = 0; r < repeats + 1; ++r) {  // the first is a warm-up
    const auto t0 = std::chrono::steady_clock::now();
    bytes = encode().size();
    const double t =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  Row row{format, setting, threads, ms[ms.size() / 2], ms.front(), bytes, raw};
  std::printf("%-5s %-34s %3d %9.2f %9.2f %9.1f %10zu %6.3f\n", format.c_str(), setting.c_str(),
              threads, row.medianMs, row.minMs, double(raw) / 1e6 / (row.medianMs / 1e3), bytes,
              double(bytes) / double(raw));
  std::fflush(stdout);
  return row;
}

// What every row encodes, and how: the image, its 8-bit sRGB pixels, the timing settings.
struct EncodeInput {
  const Image& image;
  const std::vector<uint8_t>& rgb;
  int cores, repeats;
  size_t raw8, raw32;
};

// The tone map alone: our table, in one thread and in all, and the previous pow per channel.
void addToneMapRows(const EncodeInput& in, std::vector<Row>& rows) {
  const Image& image = in.image;
  const size_t raw8 = in.raw8;
  rows.push_back(timeIt("png", "tone map, thresholds (ours)", 1, raw8, in.repeats, [&] {
    std::string out(raw8, '\0');
    for (size_t i = 0; i < raw8; ++i) out[i] = char(linearToSrgb8((&image.pixels.data()->x)[i]));
    return out;
  }));
  rows.push_back(timeIt("png", "tone map, thresholds (ours)", in.cores, raw8, in.repeats,
                        [&] { return std::string(toSrgb8(image, 0.f).size(), '\0'); }));
  rows.push_back(timeIt("png", "tone map, a pow per channel (previous)", 1, raw8, in.repeats, [&] {
    std::string out(raw8, '\0');
    for (size_t i = 0; i < raw8; ++i) {
      const float v = (&image.pixels.data()->x)[i];
      out[i] = char(std::lround(linearToSrgb(std::isnan(v) ? 0.f : clampf(v, 0.f, 1.f)) * 255.f));
    }
    return out;
  }));
}

// What -o out.png costs now and cost before (the tone map and the encoder together), and the
// encoders a user would otherwise get, alone.
void addWholePngAndBaselineRows(const EncodeInput& in, std::vector<Row>& rows) {
  const Image& image = in.image;
  const std::vector<uint8_t>& rgb = in.rgb;
  const size_t raw8 = in.raw8;
  rows.push_back(timeIt("png", "whole: table + ours (default)", in.cores, raw8, in.repeats,
                        [&] { return encodeImage("x.png", image); }));
  rows.push_back(timeIt("png", "whole: pow + stb_image_write (previous)", 1, raw8, in.repeats, [&] {
    std::vector<uint8_t> bytes(raw8);
    for (size_t i = 0; i < raw8; ++i) {
      const float v = (&image.pixels.data()->x)[i];
      bytes[i] =
          uint8_t(std::lround(linearToSrgb(std::isnan(v) ? 0.f : clampf(v, 0.f, 1.f)) * 255.f));
    }
    return stbPng(bytes, image.width, image.height);
  }));
  rows.push_back(timeIt("png", "stb_image_write (previous)", 1, raw8, in.repeats,
                        [&] { return stbPng(rgb, image.width, image.height); }));
#ifdef SRT_BENCH_LIBPNG
  for (int level : {1, 3, 6})
    for (auto [name, filter] :
         {std::pair{"up", PNG_FILTER_UP}, {"sub", PNG_FILTER_SUB}, {"all", PNG_ALL_FILTERS}})
      rows.push_back(timeIt("png", "libpng level " + std::to_string(level) + " filter " + name, 1,
                            raw8, in.repeats,
                            [&] { return libpng(rgb, image.width, image.height, level, filter); }));
#endif
}

// Our PNG encoder in one thread and in all, at every level and row filter, with and without RLE.
void addOurPngRows(const EncodeInput& in, std::vector<Row>& rows) {
  const Image& image = in.image;
  const std::vector<uint8_t>& rgb = in.rgb;
  for (int threads : {1, in.cores})
    for (int level : {1, 2, 3, 6})
      for (PngFilter filter :
           {PngFilter::None, PngFilter::Sub, PngFilter::Up, PngFilter::Paeth, PngFilter::Adaptive})
        for (bool rle : {false, true}) {
          if (rle && level != 1) continue;  // Z_RLE ignores the level's match search
          const PngSettings s{level, filter, rle, threads};
          rows.push_back(timeIt("png",
                                std::string("ours level ") + std::to_string(level) + " " +
                                    toString(filter) + (rle ? " rle" : ""),
                                threads, in.raw8, in.repeats, [&] {
                                  return encodePngRgb8(rgb.data(), image.width, image.height, s);
                                }));
        }
}

// Every EXR compression tinyexr writes (ours for none), and PFM.
void addExrAndPfmRows(const EncodeInput& in, std::vector<Row>& rows) {
  const Image& image = in.image;
  for (ExrCompression c : {ExrCompression::None, ExrCompression::Rle, ExrCompression::Zips,
                           ExrCompression::Zip, ExrCompression::Piz}) {
    ImageEncoding e;
    e.exr = c;
    const std::string name = c == ExrCompression::None
                                 ? std::string("ours none (parallel rows)")
                                 : std::string("tinyexr ") + toString(c) +
                                       (c == ExrCompression::Zip ? " (previous)" : "");
    rows.push_back(timeIt("exr", name, c == ExrCompression::None ? in.cores : 1, in.raw32,
                          in.repeats, [&] { return encodeImage("x.exr", image, 0.f, e); }));
  }
  rows.push_back(
      timeIt("pfm", "ours", 1, in.raw32, in.repeats, [&] { return encodeImage("x.pfm", image); }));
}

void writeJson(const std::string& path, const std::string& input, const Image& image, int cores,
               const std::vector<Row>& rows) {
  nlohmann::json j;
  j["image"] = input.empty() ? "synthetic" : input;
  j["resolution"] = {image.width, image.height};
  j["threads"] = cores;
  for (const Row& r : rows)
    j["rows"].push_back({{"format", r.format},
                         {"setting", r.setting},
                         {"threads", r.threads},
                         {"median_ms", r.medianMs},
                         {"min_ms", r.minMs},
                         {"bytes", r.bytes},
                         {"raw_bytes", r.rawBytes},
                         {"mb_per_s", double(r.rawBytes) / 1e6 / (r.medianMs / 1e3)}});
  std::ofstream(path) << j.dump(2) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Image encoding speed per format and setting"};
  std::string input, jsonPath;
  int width = 1920, height = 1080, repeats = 5;
  app.add_option("--image", input, "Image to encode (.pfm, .exr, .png); else a synthetic one");
  app.add_option("--width", width, "Synthetic image width")->capture_default_str();
  app.add_option("--height", height, "Synthetic image height")->capture_default_str();
  app.add_option("--repeats", repeats, "Timed repeats (median reported)")->capture_default_str();
  app.add_option("--json", jsonPath, "Write the rows as JSON here");
  CLI11_PARSE(app, argc, argv);

  const Image image = input.empty() ? syntheticImage(width, height) : readImage(input);
  const int cores = omp_get_max_threads();
  const size_t raw8 = image.pixels.size() * 3, raw32 = image.pixels.size() * 12;
  std::printf(
      "%dx%d image (%s), %d threads; MB/s of the stored pixels (8-bit RGB for PNG, float "
      "RGB for EXR and PFM)\n",
      image.width, image.height, input.empty() ? "synthetic" : input.c_str(), cores);
  std::printf("%-5s %-34s %3s %9s %9s %9s %10s %6s\n", "fmt", "setting", "thr", "median ms",
              "min ms", "MB/s", "bytes", "ratio");
  std::vector<Row> rows;
  const std::vector<uint8_t> rgb = toSrgb8(image, 0.f);
  const EncodeInput in{image, rgb, cores, repeats, raw8, raw32};
  addToneMapRows(in, rows);
  addWholePngAndBaselineRows(in, rows);
  addOurPngRows(in, rows);
  addExrAndPfmRows(in, rows);
  if (!jsonPath.empty()) writeJson(jsonPath, input, image, cores, rows);
  return 0;
}
