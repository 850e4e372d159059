// clipTriangleBounds without polygon arrays: a streaming Sutherland-Hodgman, one stage per voxel
// face, each vertex handed down the stages as it is produced. A stage keeps only its first and its
// previous vertex, so with the stage index a template argument every value has a fixed place and
// a GPU thread keeps them in registers, where the array clipper (clip.h) works in local memory.
// Each stage sees its edges in the array clipper's order and cuts them with the same
// clipEdgePoint, so the result is clipTriangleBounds' bit for bit (a CPU test checks it).
#pragma once

#include "renderer/accel/clip.h"

namespace srt {
namespace streamclip {

// Faces in clipTriangle's order: stage s clips by the lower (s even) or upper (s odd) face of
// axis s / 2, pushed out by eps.
constexpr int kStages = 6;

struct Stage {
  ClipVertex first, prev;
  float plane;
  bool active;   // the face cuts the triangle's bounds (else vertices pass through)
  bool started;  // a vertex has arrived
  bool firstIn, prevIn;
};

struct State {
  Stage st[kStages];
  float lo[3], hi[3];  // bounds of the vertices out of the last stage, in their order
  int count;
};

template <int S>
SRT_CPU_GPU inline bool inside(const ClipVertex& v, float plane) {
  return S % 2 == 0 ? v[S / 2] >= plane : v[S / 2] <= plane;
}

template <int S>
SRT_CPU_GPU inline void push(State& c, const ClipVertex& v);

// The vertices an edge from `p` (inside: pIn) to `q` (qIn) emits: p when inside, then the
// crossing point when the edge crosses the plane; handed to the next stage from one call site, so
// the stages inline into straight code instead of multiplying.
template <int S>
SRT_CPU_GPU inline void edge(State& c, const ClipVertex& p, bool pIn, const ClipVertex& q,
                             bool qIn) {
  ClipVertex cross;
  if (pIn != qIn) clipEdgePoint(p, q, S / 2, c.st[S].plane, &cross);
  const int n = int(pIn) + int(pIn != qIn);
#if SRT_IS_GPU_CODE
#pragma unroll 1
#endif
  for (int e = 0; e < n; ++e) push<S + 1>(c, e == 0 && pIn ? p : cross);
}

template <>
SRT_CPU_GPU inline void push<kStages>(State& c, const ClipVertex& v) {
  for (int k = 0; k < 3; ++k) {
    c.lo[k] = c.count == 0 ? v[k] : clipMin(c.lo[k], v[k]);
    c.hi[k] = c.count == 0 ? v[k] : clipMax(c.hi[k], v[k]);
  }
  ++c.count;
}

template <int S>
SRT_CPU_GPU inline void push(State& c, const ClipVertex& v) {
  Stage& s = c.st[S];
  if (!s.active) {
    push<S + 1>(c, v);
    return;
  }
  const bool in = inside<S>(v, s.plane);
  if (s.started) {
    edge<S>(c, s.prev, s.prevIn, v, in);
  } else {
    s.started = true;
    s.first = v;
    s.firstIn = in;
  }
  s.prev = v;
  s.prevIn = in;
}

// The closing edge of every stage, in stage order (each may emit into the next).
template <int S>
SRT_CPU_GPU inline void flush(State& c) {
  if constexpr (S < kStages) {
    const Stage& s = c.st[S];
    if (s.active && s.started) edge<S>(c, s.prev, s.prevIn, s.first, s.firstIn);
    flush<S + 1>(c);
  }
}

}  // namespace streamclip

// clipTriangleBounds (clip.h), computed by the streaming clipper: the same result bit for bit.
SRT_CPU_GPU inline bool clipTriangleBoundsStreaming(const Vec3f v[3], const Vec3f& voxelLo,
                                                    const Vec3f& voxelHi, float eps, Vec3f* outLo,
                                                    Vec3f* outHi) {
  float tlo[3], thi[3];
  triangleBounds(v, tlo, thi);
  streamclip::State c;
  bool clipped = false;
  for (int s = 0; s < streamclip::kStages; ++s) {
    const int k = s / 2;
    streamclip::Stage& st = c.st[s];
    // clipToPlane's test and pushed-out plane.
    st.active = s % 2 == 0 ? tlo[k] < voxelLo[k] - eps : thi[k] > voxelHi[k] + eps;
    st.plane = s % 2 == 0 ? voxelLo[k] - eps : voxelHi[k] + eps;
    st.started = st.firstIn = st.prevIn = false;
    clipped = clipped || st.active;
  }
  float lo[3], hi[3];
  if (clipped) {
    c.count = 0;
#if SRT_IS_GPU_CODE
#pragma unroll 1
#endif
    for (int i = 0; i < 3; ++i) {
      ClipVertex p;
      for (int k = 0; k < 3; ++k) p[k] = v[i][k];
      streamclip::push<0>(c, p);
    }
    streamclip::flush<0>(c);
    if (c.count == 0) return false;
    for (int k = 0; k < 3; ++k) lo[k] = c.lo[k], hi[k] = c.hi[k];
  } else {
    for (int k = 0; k < 3; ++k) lo[k] = tlo[k], hi[k] = thi[k];
  }
  return finishClippedBounds(lo, hi, tlo, thi, voxelLo, voxelHi, eps, outLo, outHi);
}

}  // namespace srt
