// MPI for `mpirun -n K streamrt render ...`: the ranks split each frame's samples, and rank 0
// receives the sum of their fixed-point films (exact, so the image is one process's bit for bit)
// and of their statistics. Without mpirun nothing here starts MPI: a world of one process. Built
// without MPI (no libopenmpi-dev at configure time), a process started by mpirun is refused.
#pragma once

#include <vector>

#include "renderer/wavefront/render_stats.h"

namespace srt::mpi {

struct World {
  int rank = 0, size = 1;
  int localRank = 0;  // among the ranks of this machine: picks the rank's GPU
  bool root() const { return rank == 0; }
};

// Whether mpirun (or another MPI launcher) started this process, from its environment.
bool launched();

// The ranks of this run. The first call starts MPI when launched() (throws when this build has
// no MPI); otherwise a world of one process with nothing started.
const World& world();

// Ends MPI after a run that went well. After an error MPI is not ended: the process exits
// non-zero and mpirun stops the other ranks, which may be waiting in a reduction.
void finish();

// Sums every rank's film into rank 0's, in place (integer sums: exact in any order). Collective;
// the other ranks' films are left as they were.
void reduceFilm(std::vector<unsigned long long>& film);

// Adds every rank's counts and times into rank 0's statistics (addRenderStats), renderSeconds
// becoming the slowest rank's, and names the ranks in the device line. Collective.
void reduceStats(RenderStats& stats);

}  // namespace srt::mpi
