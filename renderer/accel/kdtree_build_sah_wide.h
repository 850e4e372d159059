// Internal to the CPU SAH builder: the work of one wide node (many triangles) in chunks, as OpenMP
// tasks over all threads, so the top levels of the tree, where there are fewer nodes than
// threads, do not run on one thread each. Every function gives what the serial kernels of
// kdtree_build_sah_node.h give on the whole list, whatever the chunking.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "renderer/accel/kdtree_build_sah_events.h"
#include "renderer/accel/kdtree_build_sah_node.h"
#include "renderer/accel/kdtree_build_sah_span.h"

namespace srt::kdsah {

// How many chunks for n items of which `grain` are worth one task (at most 64).
inline size_t chunksFor(size_t n, size_t grain) {
  return std::clamp<size_t>(n / grain, 1, 64);
}

// fn(c) for every c < chunks, as tasks (chunk 0 on this thread); returns when all are done.
// Inside a parallel region; the caller's task may only wait on these (libgomp's taskwait runs
// the waiting task's own children only).
template <typename F>
void forChunks(size_t chunks, const F& fn) {
  if (span::enabled()) return span::measureChunks(chunks, fn);
  const F* f = &fn;
  for (size_t c = 1; c < chunks; ++c) {
#pragma omp task firstprivate(c, f)
    (*f)(c);
  }
  fn(0);
#pragma omp taskwait
}

// The best plane on the axis of `s` over a node of `count` triangles.
SplitChoice sweepAxisWide(const NodeEvents& ev, const SweepSetup& s, size_t count);

// Marks every triangle's side of the split, lists the straddlers (in the order of axis 0's
// events) and counts the triangles that go to one child only.
void classifyWide(const NodeEvents& ev, const SplitChoice& s, uint8_t* side,
                  std::vector<Clipped>& straddling, size_t* onlyL, size_t* onlyR);

// Axis k of both children (their begin[k] set, end[k] filled in).
void splitAxisWide(const NodeEvents& ev, int k, const uint8_t* side,
                   const std::vector<Clipped>& clipped, NodeEvents& outL, NodeEvents& outR);

// LSD radix sort of events generated in triangle order by their position and type (key bits 30
// to 63, three passes of 12 bits), in chunks; stable, so the result is in full key order. n < 2^32.
void radixSortWide(Event* a, Event* tmp, size_t n);

}  // namespace srt::kdsah
