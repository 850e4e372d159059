#include "apps/render_outputs.h"

#include <cstdio>
#include <optional>
#include <set>
#include <utility>

#include "apps/interrupt.h"

namespace srt {
namespace {

// `json` (lines ending in '\n') with every line indented by `spaces`, without the last newline.
std::string indented(const std::string& json, int spaces) {
  std::string out;
  const std::string pad(size_t(spaces), ' ');
  size_t start = 0;
  while (start < json.size()) {
    size_t end = json.find('\n', start);
    if (end == std::string::npos) end = json.size();
    if (!out.empty()) out += '\n';
    out += pad + json.substr(start, end - start);
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string framePath(const std::string& path, int frame, int frames) {
  if (frames <= 1) return path;
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  const bool hasExt = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  char number[16];
  std::snprintf(number, sizeof number, "-%04d", frame);
  return hasExt ? path.substr(0, dot) + number + path.substr(dot) : path + number;
}

RenderOutputs::RenderOutputs(std::string image, std::optional<std::string> stats, int frames)
    : image_(std::move(image)), stats_(std::move(stats)), frames_(frames) {
  // Every frame's name is checked: one of them may be a folder or a FIFO. Only the identities
  // are kept, and only until the check is done.
  std::optional<OutputFile> statsFile;
  if (stats_) statsFile = checkOutputFile(*stats_, "--stats");
  std::set<std::string> frameFiles;
  for (int f = 0; f < frames_; ++f) {
    OutputFile out = checkOutputFile(imagePath(f), "-o");
    if (!frameFiles.insert(out.identity).second)
      throw FileWriteError("-o " + out.path + ": the same file as another frame's");
    if (statsFile) checkDistinctOutputs({{"--stats", *statsFile}, {"-o", std::move(out)}});
  }
  checkImageExtension(image_);  // after the checks above, which name a device or a folder
  if (stats_ && frames_ > 1) {
    statsStream_ = std::make_unique<StagedFile>(*statsFile, "statistics");
    statsStream_->write("{\n  \"frames\": [\n");
  }
}

RenderOutputs::~RenderOutputs() = default;

void RenderOutputs::writeFrame(int frame, const Image& image, float exposure,
                               const std::string& statsJson) {
  const std::string path = imagePath(frame);
  const std::string bytes = encodeImage(path, image, exposure);
  interrupt::Deferral finishWriting;  // a signal now waits for the files to be whole
  StagedFile imageFile(checkOutputFile(path, "-o"), "image");
  imageFile.write(bytes);
  if (statsStream_) {
    imageFile.commit();
    statsStream_->write(std::string(written_ > 0 ? ",\n" : "") + indented(statsJson, 4));
  } else if (stats_) {
    StagedFile statsFile(checkOutputFile(*stats_, "--stats"), "statistics");
    statsFile.write(statsJson);
    StagedFile::commitTogether({&statsFile, &imageFile});
  } else {
    imageFile.commit();
  }
  ++written_;
}

void RenderOutputs::finish() {
  if (!statsStream_) return;
  interrupt::Deferral finishWriting;
  statsStream_->write(std::string(written_ > 0 ? "\n" : "") + "  ]\n}\n");
  statsStream_->commit();
  statsStream_.reset();
}

}  // namespace srt
