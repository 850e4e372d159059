// apps/mpi_render.h in a build without MPI: a world of one process, and a clear refusal when
// mpirun starts several (each would otherwise render the whole image and write the same file).
#include <cstdlib>
#include <stdexcept>

#include "apps/mpi_render.h"

namespace srt::mpi {

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

const World& world() {
  static const World one;
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (launched() && !(size && std::atoi(size) == 1))
    throw std::runtime_error(
        "started by mpirun, but this streamrt was built without MPI: install libopenmpi-dev "
        "(scripts/install-deps.sh) and configure again");
  return one;
}

void finish() {}
void reduceFilm(std::vector<unsigned long long>&) {}
void reduceStats(RenderStats&) {}

}  // namespace srt::mpi
