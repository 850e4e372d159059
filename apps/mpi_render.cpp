// MPI through OpenMPI (libopenmpi-dev). Only the main thread calls MPI (MPI_THREAD_FUNNELED):
// --devices threads never do.
#include "apps/mpi_render.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "renderer/multi_device.h"

namespace srt::mpi {
namespace {

World gWorld;
bool gStarted = false;

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("MPI: ") + what + ": " + std::string(text, size_t(length)));
}

// The counts and times addRenderStats adds, as one array of doubles (exact for counts below
// 2^53): samples, stopped, paths in flight, then the bounces, then the passes.
constexpr int kBounceFields = 10, kPassFields = 12;

std::vector<double> pack(const RenderStats& s) {
  std::vector<double> v = {double(s.samplesDone), s.stopped ? 1.0 : 0.0, double(s.poolSize),
                           double(s.bounces.size()), double(s.iterations.size())};
  for (const BounceStats& b : s.bounces)
    v.insert(v.end(), {double(b.raysIn), double(b.lanes), double(b.raysAlive), double(b.shadowRays),
                       b.compactionMs, b.transferMs, b.traceMs, b.shadeMs, b.shadowMs,
                       double(b.compactionBytes)});
  for (const IterationStats& i : s.iterations)
    v.insert(v.end(), {double(i.lanes), double(i.alive), double(i.regenerated), double(i.idle),
                       i.traceMs, i.shadeMs, i.shadowMs, i.compactionMs, i.regenerateMs,
                       i.transferMs, i.idleMs, double(i.compactionBytes)});
  return v;
}

RenderStats unpack(const std::vector<double>& v) {
  RenderStats s;
  size_t k = 0;
  const auto next = [&] {
    if (k >= v.size()) throw std::runtime_error("MPI: a rank's statistics are cut short");
    return v[k++];
  };
  s.samplesDone = int(next());
  s.stopped = next() != 0.0;
  s.poolSize = uint32_t(next());
  s.bounces.resize(size_t(next()));
  s.iterations.resize(size_t(next()));
  for (BounceStats& b : s.bounces) {
    b.raysIn = uint64_t(next()), b.lanes = uint64_t(next()), b.raysAlive = uint64_t(next());
    b.shadowRays = uint64_t(next()), b.compactionMs = next(), b.transferMs = next();
    b.traceMs = next(), b.shadeMs = next(), b.shadowMs = next();
    b.compactionBytes = uint64_t(next());
  }
  for (IterationStats& i : s.iterations) {
    i.lanes = uint32_t(next()), i.alive = uint32_t(next()), i.regenerated = uint32_t(next());
    i.idle = uint32_t(next()), i.traceMs = next(), i.shadeMs = next(), i.shadowMs = next();
    i.compactionMs = next(), i.regenerateMs = next(), i.transferMs = next(), i.idleMs = next();
    i.compactionBytes = uint64_t(next());
  }
  static_assert(kBounceFields == 10 && kPassFields == 12, "pack() and unpack() list every field");
  return s;
}

}  // namespace

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

const World& world() {
  if (gStarted || !launched()) return gWorld;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  gStarted = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &gWorld.rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &gWorld.size), "MPI_Comm_size");
  MPI_Comm local;
  check(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, gWorld.rank, MPI_INFO_NULL, &local),
      "MPI_Comm_split_type");
  check(MPI_Comm_rank(local, &gWorld.localRank), "MPI_Comm_rank");
  MPI_Comm_free(&local);
  return gWorld;
}

void finish() {
  if (!gStarted) return;
  gStarted = false;
  MPI_Finalize();
}

void reduceFilm(std::vector<unsigned long long>& film) {
  if (gWorld.size <= 1) return;
  constexpr size_t kChunk = size_t(1) << 26;  // MPI counts are ints
  for (size_t at = 0; at < film.size(); at += kChunk) {
    const int n = int(std::min(kChunk, film.size() - at));
    unsigned long long* data = film.data() + at;
    check(MPI_Reduce(gWorld.root() ? MPI_IN_PLACE : data, gWorld.root() ? data : nullptr, n,
                     MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD),
          "MPI_Reduce of the film");
  }
}

void reduceStats(RenderStats& stats) {
  if (gWorld.size <= 1) return;
  double slowest = stats.renderSeconds;
  check(MPI_Reduce(gWorld.root() ? MPI_IN_PLACE : &slowest, gWorld.root() ? &slowest : nullptr, 1,
                   MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
        "MPI_Reduce of the render time");
  const int kTag = 17;
  if (!gWorld.root()) {
    const std::vector<double> mine = pack(stats);
    check(MPI_Send(mine.data(), int(mine.size()), MPI_DOUBLE, 0, kTag, MPI_COMM_WORLD),
          "MPI_Send of the statistics");
    return;
  }
  for (int r = 1; r < gWorld.size; ++r) {
    MPI_Status status;
    check(MPI_Probe(r, kTag, MPI_COMM_WORLD, &status), "MPI_Probe");
    int count = 0;
    check(MPI_Get_count(&status, MPI_DOUBLE, &count), "MPI_Get_count");
    std::vector<double> theirs(size_t(std::max(count, 0)));
    check(MPI_Recv(theirs.data(), count, MPI_DOUBLE, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv of the statistics");
    addRenderStats(stats, unpack(theirs));
  }
  stats.renderSeconds = slowest;
  stats.device = std::to_string(gWorld.size) + " MPI ranks; rank 0: " + stats.device;
}

}  // namespace srt::mpi
