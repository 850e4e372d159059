#include "base/atomic_file.h"

#include "base/paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace srt {
namespace {

// Temporaries being written, so that a process stopped by a signal can remove them. Created and
// renamed under the lock, so a name is listed whenever its file may exist. Never destroyed: the
// signal thread may use it while the process exits.
struct Registry {
  std::mutex lock;
  std::set<std::string> temporaries;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::string errorText(int error) {
  return std::strerror(error);
}

[[noreturn]] void refuse(const std::string& label, const std::string& path,
                         const std::string& why) {
  throw FileWriteError(label + " " + path + ": " + why);
}

std::string baseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What a write to `path` replaces: symlinks at `path` followed to their end (a dangling one to
// the name it points at, as a shell's `>` does). Folders on the way are the kernel's to resolve.
std::string followLinks(const std::string& label, const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string link(PATH_MAX, '\0');
    const ssize_t n = readlink(p.c_str(), link.data(), link.size());
    if (n < 0) refuse(label, path, "cannot read the symlink (" + errorText(errno) + ")");
    link.resize(size_t(n));
    const size_t slash = p.find_last_of('/');
    p = link[0] == '/' || slash == std::string::npos ? link : p.substr(0, slash + 1) + link;
  }
  refuse(label, path, "too many levels of symlinks");
}

const char* kindOf(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A new temporary beside `target`, listed in the registry before it exists. Its name keeps the
// target's for a reader of the folder, shortened to stay within NAME_MAX.
int createTemporary(const std::string& target, std::string* name, int* error) {
  static std::atomic<unsigned> counter{0};
  const std::string base = baseName(target).substr(0, 200);
  const size_t slash = target.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  for (int attempt = 0; attempt < 100; ++attempt) {
    *name =
        folder + "." + base + ".tmp" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    r.temporaries.insert(*name);
    const int fd = open(name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    *error = errno;
    r.temporaries.erase(*name);
    if (*error != EEXIST) return -1;
  }
  return -1;
}

void removeTemporary(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  unlink(name.c_str());
  r.temporaries.erase(name);
}

}  // namespace

OutputFile checkOutputFile(const std::string& path, const std::string& label) {
  if (path.empty()) refuse(label, "''", "an empty file name");
  if (path.back() == '/') refuse(label, path, "names a folder, not a file");
  OutputFile out;
  out.path = path;
  out.target = followLinks(label, path);
  const std::string via = out.target == path ? "" : " (the symlink leads to " + out.target + ")";
  const std::string folder = folderOf(out.target);
  struct stat st {};
  if (lstat(out.target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse(label, path, "is a folder, not a file" + via);
    if (!S_ISREG(st.st_mode))
      refuse(label, path,
             std::string(kindOf(st.st_mode)) + via +
                 ", not a regular file (outputs are written to a temporary file and renamed "
                 "over the target)");
    out.exists = true;
    out.device = uint64_t(st.st_dev);
    out.inode = uint64_t(st.st_ino);
  } else if (errno != ENOENT) {
    const int error = errno;
    if (error == ENOTDIR) refuse(label, path, "'" + folder + "' is not a folder" + via);
    refuse(label, path, errorText(error) + via);
  }
  if (stat(folder.c_str(), &st) != 0)
    refuse(label, path, "folder '" + folder + "' does not exist" + via);
  if (!S_ISDIR(st.st_mode)) refuse(label, path, "'" + folder + "' is not a folder" + via);
  // Writability is tried by creating (and removing) a file, since access(2) says yes to root
  // even where a write would fail; once per folder (a sequence of frames shares one).
  static std::mutex probedLock;
  static std::set<std::string> probed;
  std::lock_guard<std::mutex> holdProbed(probedLock);
  if (!probed.count(folder)) {
    std::string probe;
    int error = 0;
    const int fd = createTemporary(out.target, &probe, &error);
    if (fd < 0)
      refuse(label, path, "cannot write in folder '" + folder + "': " + errorText(error) + via);
    close(fd);
    removeTemporary(probe);
    probed.insert(folder);
  }
  char* real = realpath(folder.c_str(), nullptr);
  out.identity = (real ? std::string(real) : folder) + "/" + baseName(out.target);
  std::free(real);
  return out;
}

void checkDistinctOutputs(const std::vector<std::pair<std::string, OutputFile>>& outputs) {
  std::map<std::string, size_t> byName;
  std::map<std::pair<uint64_t, uint64_t>, size_t> byInode;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputFile& o = outputs[i].second;
    auto named = byName.emplace(o.identity, i);
    size_t first = named.second ? i : named.first->second;
    if (o.exists && first == i) {
      auto linked = byInode.emplace(std::make_pair(o.device, o.inode), i);
      if (!linked.second) first = linked.first->second;
    }
    if (first != i)
      throw FileWriteError(outputs[i].first + " " + o.path + ": the same file as " +
                           outputs[first].first + " " + outputs[first].second.path +
                           " (each output needs its own file)");
  }
}

StagedFile::StagedFile(const OutputFile& out, std::string what)
    : out_(out), what_(std::move(what)) {
  int error = 0;
  fd_ = createTemporary(out_.target, &temporary_, &error);
  if (fd_ < 0) fail("", error);
  struct stat st {};
  // A replaced file keeps its permissions.
  if (stat(out_.target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) fchmod(fd_, st.st_mode & 07777);
}

StagedFile::~StagedFile() {
  if (committed_) return;
  if (fd_ >= 0) close(fd_);
  removeTemporary(temporary_);
}

void StagedFile::fail(const std::string& step, int error) const {
  throw FileWriteError("cannot write " + what_ + " '" + out_.path + "': " + step +
                       errorText(error));
}

void StagedFile::write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("", errno);
    p += n;
    size -= size_t(n);
  }
}

void StagedFile::flushAndClose() {
  if (fd_ < 0) return;
  // A full disk or a failing device may only show here (delayed allocation, NFS).
  if (fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("", errno);
  const int rc = close(fd_);
  fd_ = -1;
  if (rc != 0 && errno != EINTR) fail("", errno);
}

void StagedFile::commitTogether(const std::vector<StagedFile*>& files) {
  for (StagedFile* f : files) f->flushAndClose();
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);  // a signal's clean-up sees all renamed or none
  for (StagedFile* f : files) {
    if (std::rename(f->temporary_.c_str(), f->out_.target.c_str()) != 0)
      f->fail("rename failed: ", errno);  // the rest are removed by their destructors
    r.temporaries.erase(f->temporary_);
    f->committed_ = true;
  }
}

void writeFileAtomically(const std::string& path, const std::string& contents,
                         const std::string& what) {
  StagedFile file(checkOutputFile(path, "cannot write " + what), what);
  file.write(contents);
  file.commit();
}

void abandonStagedFiles() noexcept {
  Registry& r = registry();
  r.lock.lock();  // held until the process ends: no temporary starts after this
  for (const std::string& name : r.temporaries) unlink(name.c_str());
}

}  // namespace srt
