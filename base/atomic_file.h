// Output files appear whole or not at all, and only where a regular file may be: each is written
// to a temporary sibling of the file it replaces, flushed to disk, then renamed over it. Devices,
// FIFOs and folders are refused before any work, and a symlink is written through to its target.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace srt {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output the user named, checked before any work.
struct OutputFile {
  std::string path;      // as the user gave it: messages name this
  std::string target;    // the file the rename replaces: `path`, or where a symlink at it leads
  std::string identity;  // the target's canonical folder and name: equal for one file
  bool exists = false;   // the target is an existing regular file...
  uint64_t device = 0, inode = 0;  // ...with this identity (hard links are one file too)
};

// Checks that `path` can take an output: a regular file or a new name in an existing, writable
// folder, following symlinks. Throws FileWriteError "<label> <path>: <why>", e.g. "-o /dev/null:
// a character device, not a regular file".
OutputFile checkOutputFile(const std::string& path, const std::string& label);

// Throws FileWriteError when two outputs are one file ("--stats s.png: the same file as -o
// s.png"). Each entry is the flag that names it and the checked output.
void checkDistinctOutputs(const std::vector<std::pair<std::string, OutputFile>>& outputs);

// A file being written: a temporary sibling of the target, renamed over it by commit(). The
// destructor removes the temporary unless it was committed. Every error names the user's path
// and the cause (errno), never the temporary.
class StagedFile {
 public:
  // `what` names the kind of file in messages ("image", "statistics").
  StagedFile(const OutputFile& out, std::string what);
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile();

  void write(const void* data, size_t size);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // Flushes to disk (where a full disk may only show), closes and renames.
  void commit() { commitTogether({this}); }
  // All written and flushed first, then all renamed: a failure in any leaves none of them.
  static void commitTogether(const std::vector<StagedFile*>& files);

  const OutputFile& output() const { return out_; }

 private:
  [[noreturn]] void fail(const std::string& step, int error) const;
  void flushAndClose();

  OutputFile out_;
  std::string what_;
  std::string temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `contents` as the whole file at `path` (checked as checkOutputFile does).
void writeFileAtomically(const std::string& path, const std::string& contents,
                         const std::string& what = "file");

// For a process about to exit on a signal: removes every temporary still being written and keeps
// new ones from starting. Safe to call from any thread (not from an asynchronous signal handler).
void abandonStagedFiles() noexcept;

}  // namespace srt
