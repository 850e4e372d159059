// Internal to the CPU SAH builder: the per-node kernels over a range of one sorted event list (the
// SAH sweep and the split of a parent's list into its children's), shared by the serial path and
// the chunked path of wide nodes (kdtree_build_sah_wide.cpp), so both make the same decisions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "renderer/accel/kdtree.h"
#include "renderer/accel/kdtree_build_sah_events.h"

namespace srt::kdsah {

enum Side : uint8_t { kBoth, kLeftOnly, kRightOnly };

struct SplitChoice {
  int axis = -1;
  float pos = 0;
  bool planarLeft = false;
  double cost = std::numeric_limits<double>::infinity();
};

// A straddling triangle clipped to both children.
struct Clipped {
  uint32_t tri;
  bool inL, inR;
  Bounds3f l, r;
};

// What the sweep of one axis of one voxel needs.
struct SweepSetup {
  int k;
  float lo, hi;
  double invArea, da, db, kT, kI, emptyBonus;
};

// False when the voxel is flat (no plane can cut it) on axis k or has no area.
inline bool makeSweepSetup(const Bounds3f& voxel, int k, double kT, double kI, double emptyBonus,
                           SweepSetup* s) {
  const double area = voxel.surfaceArea();
  if (!(area > 0) || !(voxel.lo[k] < voxel.hi[k])) return false;
  const Vec3f d = voxel.diagonal();
  *s = {k,  voxel.lo[k], voxel.hi[k], 2.0 / area, d[(k + 1) % 3], d[(k + 2) % 3],
        kT, kI,          emptyBonus};
  return true;
}

// The sweep of Wald & Havran section 4.3 over events [e, end) of one axis, which start with nl
// triangles left of and nr right of the first plane; `end` must not cut a group of equal
// positions. Planes on the voxel's faces are skipped: they cut off nothing and would recurse
// without end. Ties go to the first plane.
inline SplitChoice sweepRange(const SweepSetup& s, const Event* e, const Event* end, size_t nl,
                              size_t nr) {
  SplitChoice best;
  const auto lambda = [&](size_t l, size_t r) {
    return l == 0 || r == 0 ? 1.0 - s.emptyBonus : 1.0;
  };
  while (e < end) {
    const uint32_t bits = e->posBits();
    const float p = Event::fromOrderedBits(bits);
    const uint64_t endKey = uint64_t(bits) << 2 | kEnd, planarKey = uint64_t(bits) << 2 | kPlanar;
    const uint64_t startKey = uint64_t(bits) << 2 | kStart;
    size_t ends = 0, planars = 0, starts = 0;
    for (; e < end && e->key >> 30 == endKey; ++e) ++ends;
    for (; e < end && e->key >> 30 == planarKey; ++e) ++planars;
    for (; e < end && e->key >> 30 == startKey; ++e) ++starts;
    nr -= planars + ends;
    if (p > s.lo && p < s.hi) {
      const double dl = double(p) - s.lo, dr = double(s.hi) - p;
      const double pl = (dl * (s.da + s.db) + s.da * s.db) * s.invArea;
      const double pr = (dr * (s.da + s.db) + s.da * s.db) * s.invArea;
      const double costL =
          lambda(nl + planars, nr) * (s.kT + s.kI * (pl * double(nl + planars) + pr * double(nr)));
      const double costR =
          lambda(nl, nr + planars) * (s.kT + s.kI * (pl * double(nl) + pr * double(nr + planars)));
      const bool left = costL <= costR;
      const double cost = left ? costL : costR;
      if (cost < best.cost) best = {s.k, p, left, cost};
    }
    nl += starts + planars;
  }
  return best;
}

// Marks the side of every triangle with an event in [e, end) on the split axis (section 5.2);
// triangles must be marked kBoth beforehand.
inline void markSides(const Event* e, const Event* end, const SplitChoice& s, uint8_t* side) {
  const uint32_t split = Event::orderedBits(s.pos);  // compares like the position
  for (; e < end; ++e) {
    const uint32_t t = e->type(), p = e->posBits();
    if (t == kEnd && p <= split) side[e->tri()] = kLeftOnly;
    if (t == kStart && p >= split) side[e->tri()] = kRightOnly;
    if (t == kPlanar) {
      const bool toLeft = p < split || (p == split && s.planarLeft);
      side[e->tri()] = toLeft ? kLeftOnly : kRightOnly;
    }
  }
}

// The events of the straddlers in the children on axis k, unsorted; returns the ends.
inline void straddlerEvents(const std::vector<Clipped>& clipped, int k, Event* l, Event* r,
                            Event** lEnd, Event** rEnd) {
  for (const Clipped& c : clipped) {
    if (c.inL) l = addAxisEvents(c.tri, c.l.lo[k], c.l.hi[k], l);
    if (c.inR) r = addAxisEvents(c.tri, c.r.lo[k], c.r.hi[k], r);
  }
  *lEnd = l;
  *rEnd = r;
}

// The parent's events [e, end) filtered by side, merged with the sorted new events [nl, nlEnd)
// and [nr, nrEnd) (all of which follow the range's earlier events), written at *l and *r.
inline void mergeRange(const Event* e, const Event* end, const uint8_t* side, const Event* nl,
                       const Event* nlEnd, const Event* nr, const Event* nrEnd, Event** lOut,
                       Event** rOut) {
  Event *l = *lOut, *r = *rOut;
  for (; e < end; ++e) {
    const uint8_t sd = side[e->tri()];
    if (sd == kLeftOnly) {
      while (nl < nlEnd && *nl < *e) *l++ = *nl++;
      *l++ = *e;
    } else if (sd == kRightOnly) {
      while (nr < nrEnd && *nr < *e) *r++ = *nr++;
      *r++ = *e;
    }
  }
  while (nl < nlEnd) *l++ = *nl++;
  while (nr < nrEnd) *r++ = *nr++;
  *lOut = l;
  *rOut = r;
}

}  // namespace srt::kdsah
