#include "base/atomic_file.h"

#include "base/paths.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace srt {
void writeAtomically(const std::string& path, const std::function<bool(const std::string&)>& writer,
                     const std::string& what) {
  static std::atomic<unsigned> counter{0};
  const std::string folder = folderOf(path);
  if (access(folder.c_str(), W_OK) != 0)
    throw FileWriteError("cannot write " + what + " '" + path + "': folder '" + folder +
                         "' does not exist or is not writable (" + std::strerror(errno) + ")");
  const size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // The temporary keeps the extension: some writers pick the format from it.
  const std::string tmp = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
                          "." + base + ".tmp" + std::to_string(getpid()) + "-" +
                          std::to_string(counter++) + extensionOf(path);
  bool ok = false;
  try {
    ok = writer(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    throw FileWriteError("cannot write " + what + " '" + path + "': the writer failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw FileWriteError("cannot write " + what + " '" + path + "': rename failed (" + reason +
                         ")");
  }
}

void writeFileAtomically(const std::string& path, const std::string& contents,
                         const std::string& what) {
  writeAtomically(
      path,
      [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary);
        out << contents;
        out.close();
        return bool(out);
      },
      what);
}

}  // namespace srt
