// The files a render writes: its image (one per frame, numbered) and the --stats file. All are
// checked before any work (regular files or new names, in writable folders, no file named
// twice) and written so that nothing is clobbered or left half-written: a single frame's image
// and statistics are renamed into place together once both are on disk; a sequence's frames
// appear one by one and its statistics are streamed to a temporary file, one frame at a time,
// and renamed into place at the end, so memory does not grow with the frame count.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/atomic_file.h"
#include "base/image_io.h"

namespace srt {

// "out.png" with frame 3 of several -> "out-0003.png".
std::string framePath(const std::string& path, int frame, int frames);

class RenderOutputs {
 public:
  // Checks the paths (throws FileWriteError naming the flag). No `stats`: no statistics.
  RenderOutputs(std::string image, std::optional<std::string> stats, int frames);
  ~RenderOutputs();

  // Writes frame `frame` (its image, and its statistics as one JSON object).
  void writeFrame(int frame, const Image& image, float exposure, const std::string& statsJson);
  // Ends the statistics of a sequence, with the frames written so far, and renames them into
  // place. A render stopped early calls it too; an error does not (the temporary is removed).
  void finish();

  std::string imagePath(int frame) const { return framePath(image_, frame, frames_); }
  int framesWritten() const { return written_; }

 private:
  std::string image_;
  std::optional<std::string> stats_;
  int frames_;
  int written_ = 0;
  std::unique_ptr<StagedFile> statsStream_;  // a sequence's statistics, as frames finish
};

}  // namespace srt
