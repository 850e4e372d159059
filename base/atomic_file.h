// Output files appear whole or not at all: written to a temporary sibling, then renamed.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace srt {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Calls writer(temporaryPath); when it returns true, renames the temporary file to `path`. On any
// failure (folder missing or read-only, writer false or throwing, rename failing) the temporary
// file is removed and FileWriteError names `path` and the cause. `what` names the kind of file
// in messages ("image", "statistics").
void writeAtomically(const std::string& path, const std::function<bool(const std::string&)>& writer,
                     const std::string& what);

// Writes `contents` as the whole file.
void writeFileAtomically(const std::string& path, const std::string& contents,
                         const std::string& what = "file");

}  // namespace srt
