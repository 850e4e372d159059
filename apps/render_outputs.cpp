#include "apps/render_outputs.h"

#include <chrono>
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

RenderOutputs::RenderOutputs(std::string image, std::optional<std::string> stats, int frames,
                             ImageEncoding encoding)
    : image_(std::move(image)), stats_(std::move(stats)), frames_(frames), encoding_(encoding) {
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

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What the line of a process ended by a signal says was kept.
std::string keptNote(int written, int frames) {
  if (written == 0) return "nothing was written";
  return (written == 1 ? "frame 1" : "frames 1-" + std::to_string(written)) + " of " +
         std::to_string(frames) + " written";
}

}  // namespace

void RenderOutputs::writeFrame(int frame, Image image, float exposure, FrameStats stats) {
  if (frames_ <= 1) {
    const FrameWrite done = writeSingle(frame, image, exposure, stats);
    std::lock_guard<std::mutex> hold(writtenLock_);
    newlyWritten_.push_back(done);
    return;
  }
  if (!writer_) writer_ = std::make_unique<OrderedWriter>(2);
  auto shared = std::make_shared<Image>(std::move(image));
  writer_->submit([this, frame, shared, exposure, stats = std::move(stats)] {
    writeInSequence(frame, *shared, exposure, stats);
  });
}

FrameWrite RenderOutputs::writeSingle(int frame, const Image& image, float exposure,
                                      const FrameStats& stats) {
  interrupt::Deferral finishWriting;  // a signal now waits for the files to be whole
  FrameWrite done{frame, 0, 0};
  const std::string path = imagePath(frame);
  auto t0 = std::chrono::steady_clock::now();
  const std::string bytes = encodeImage(path, image, exposure, encoding_);
  done.encodeSeconds = secondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  StagedFile imageFile(checkOutputFile(path, "-o"), "image");
  imageFile.write(bytes);
  done.writeSeconds = secondsSince(t0);
  if (stats_) {
    StagedFile statsFile(checkOutputFile(*stats_, "--stats"), "statistics");
    statsFile.write(stats(done));
    StagedFile::commitTogether({&statsFile, &imageFile});
  } else {
    imageFile.commit();
  }
  ++written_;
  interrupt::setExitNote(path + " was written");
  return done;
}

// On the writer thread: the image, then its statistics appended to the stream, in frame order.
void RenderOutputs::writeInSequence(int frame, const Image& image, float exposure,
                                    const FrameStats& stats) {
  FrameWrite done{frame, 0, 0};
  const std::string path = imagePath(frame);
  auto t0 = std::chrono::steady_clock::now();
  const std::string bytes = encodeImage(path, image, exposure, encoding_);
  done.encodeSeconds = secondsSince(t0);
  interrupt::Deferral finishWriting;
  t0 = std::chrono::steady_clock::now();
  StagedFile imageFile(checkOutputFile(path, "-o"), "image");
  imageFile.write(bytes);
  done.writeSeconds = secondsSince(t0);
  imageFile.commit();
  if (statsStream_)
    statsStream_->write(std::string(written_ > 0 ? ",\n" : "") + indented(stats(done), 4));
  const int written = ++written_;
  interrupt::setExitNote(keptNote(written, frames_) + (stats_ ? ", no statistics" : ""));
  std::lock_guard<std::mutex> hold(writtenLock_);
  newlyWritten_.push_back(done);
}

std::vector<FrameWrite> RenderOutputs::takeWritten() {
  std::lock_guard<std::mutex> hold(writtenLock_);
  std::vector<FrameWrite> out;
  out.swap(newlyWritten_);
  return out;
}

void RenderOutputs::finish() {
  if (writer_) writer_->drain();
  if (!statsStream_) return;
  interrupt::Deferral finishWriting;
  statsStream_->write(std::string(written_ > 0 ? "\n" : "") + "  ]\n}\n");
  statsStream_->commit();
  statsStream_.reset();
}

}  // namespace srt
