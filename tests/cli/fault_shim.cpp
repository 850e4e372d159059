// LD_PRELOAD shim for the output tests: a full disk and a slow flush without root or a tmpfs.
//   SRT_SHIM_DIR=DIR          only files whose path starts with DIR are affected
//   SRT_SHIM_FULL_AFTER=N     write() fails with ENOSPC once N bytes went to such files
//   SRT_SHIM_FSYNC_FAILS=1    fsync() of such files fails with ENOSPC (delayed allocation)
//   SRT_SHIM_FSYNC_PAUSE=FILE fsync() of such files creates FILE, then waits 3 s: a signal sent
//                             once FILE exists arrives while an output is being written
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace {

bool affected(int fd) {
  const char* dir = getenv("SRT_SHIM_DIR");
  if (!dir) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 0) return false;
  path[n] = '\0';
  return strncmp(path, dir, strlen(dir)) == 0;
}

size_t written = 0;

}  // namespace

extern "C" ssize_t write(int fd, const void* data, size_t size) {
  using Write = ssize_t (*)(int, const void*, size_t);
  static Write real = reinterpret_cast<Write>(dlsym(RTLD_NEXT, "write"));
  const char* limit = getenv("SRT_SHIM_FULL_AFTER");
  if (limit && affected(fd)) {
    const size_t room = size_t(strtoull(limit, nullptr, 10));
    if (written >= room) {
      errno = ENOSPC;
      return -1;
    }
    if (size > room - written) size = room - written;  // a short write, as a filling disk gives
    written += size;
  }
  return real(fd, data, size);
}

extern "C" int fsync(int fd) {
  using Fsync = int (*)(int);
  static Fsync real = reinterpret_cast<Fsync>(dlsym(RTLD_NEXT, "fsync"));
  if (affected(fd)) {
    if (getenv("SRT_SHIM_FSYNC_FAILS")) {
      errno = ENOSPC;
      return -1;
    }
    if (const char* marker = getenv("SRT_SHIM_FSYNC_PAUSE")) {
      const int m = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (m >= 0) close(m);
      struct timespec wait = {3, 0};
      while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
      }
    }
  }
  return real(fd);
}
