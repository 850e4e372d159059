// The files a render writes: its image (one per frame, numbered) and the --stats file. All are
// checked before any work (regular files or new names, in writable folders, no file named
// twice) and written so that nothing is clobbered or left half-written: a single frame's image
// and statistics are renamed into place together once both are on disk; a sequence's frames
// appear one by one and its statistics are streamed to a temporary file, one frame at a time,
// and renamed into place at the end, so memory does not grow with the frame count. A sequence's
// frames are written by one background thread, in order, while the next frame renders.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "apps/ordered_writer.h"
#include "base/atomic_file.h"
#include "base/image_io.h"

namespace srt {

// What writing one frame's image took.
struct FrameWrite {
  int frame = 0;
  double encodeSeconds = 0;  // the image encoded (PNG, EXR, PFM)
  double writeSeconds = 0;   // its bytes written to the temporary file
};
// Makes a frame's statistics (one JSON object) once its image is encoded and written, so they can
// hold those times. A sequence calls it on the writer thread: it must own what it reads.
using FrameStats = std::function<std::string(const FrameWrite&)>;

// "out.png" with frame 3 of several -> "out-0003.png".
std::string framePath(const std::string& path, int frame, int frames);

class RenderOutputs {
 public:
  // Checks the paths (throws FileWriteError naming the flag). No `stats`: no statistics.
  RenderOutputs(std::string image, std::optional<std::string> stats, int frames,
                ImageEncoding encoding = {});
  ~RenderOutputs();

  // Writes frame `frame`: its image, and its statistics unless there is no --stats file. A
  // single frame is written before this returns. A sequence's frame is queued for the writer
  // thread (waiting while two are queued); an error writing an earlier frame is thrown here.
  void writeFrame(int frame, Image image, float exposure, FrameStats stats);
  // The frames written since the last call, in order (for the "wrote" lines).
  std::vector<FrameWrite> takeWritten();
  // Waits for the frames queued, then ends the statistics of a sequence with the frames written
  // and renames them into place. A render stopped early calls it too; an error does not (the
  // temporary is removed).
  void finish();

  std::string imagePath(int frame) const { return framePath(image_, frame, frames_); }
  int framesWritten() const { return written_; }

 private:
  FrameWrite writeSingle(int frame, const Image& image, float exposure, const FrameStats& stats);
  void writeInSequence(int frame, const Image& image, float exposure, const FrameStats& stats);

  std::string image_;
  std::optional<std::string> stats_;
  int frames_;
  ImageEncoding encoding_;
  std::atomic<int> written_{0};
  std::unique_ptr<StagedFile> statsStream_;  // a sequence's statistics, as frames finish
  std::mutex writtenLock_;
  std::vector<FrameWrite> newlyWritten_;
  std::unique_ptr<OrderedWriter> writer_;  // last: stopped first, before what its jobs use
};

}  // namespace srt
