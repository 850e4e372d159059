// The chunked work of wide nodes for the CPU SAH builder (see kdtree_build_sah_wide.h).
#include "renderer/accel/kdtree_build_sah_wide.h"

#include <algorithm>

namespace srt::kdsah {
namespace {

// Events per sweep / split chunk: a task of some tens of microseconds.
constexpr size_t kEventGrain = 8192;

// Chunk boundaries over n events, none inside a group of equal positions.
std::vector<size_t> positionCuts(const Event* e, size_t n) {
  const size_t chunks = chunksFor(n, kEventGrain);
  std::vector<size_t> cut(chunks + 1, n);
  cut[0] = 0;
  for (size_t c = 1; c < chunks; ++c) {
    size_t i = std::max(cut[c - 1], n * c / chunks);
    while (i > 0 && i < n && e[i].posBits() == e[i - 1].posBits()) ++i;
    cut[c] = i;
  }
  return cut;
}

}  // namespace

SplitChoice sweepAxisWide(const NodeEvents& ev, const SweepSetup& s, size_t count) {
  const Event* e = ev.first(s.k);
  const std::vector<size_t> cut = positionCuts(e, ev.end[s.k] - ev.begin[s.k]);
  const size_t chunks = cut.size() - 1;
  // Per chunk: triangles that open (start, planar) and close (end, planar) in it.
  std::vector<size_t> opened(chunks), closed(chunks);
  forChunks(chunks, [&](size_t c) {
    size_t n[3] = {0, 0, 0};
    for (const Event* x = e + cut[c]; x < e + cut[c + 1]; ++x) ++n[x->type()];
    opened[c] = n[kStart] + n[kPlanar];
    closed[c] = n[kEnd] + n[kPlanar];
  });
  std::vector<size_t> nl(chunks), nr(chunks);
  size_t l = 0, r = count;
  for (size_t c = 0; c < chunks; ++c) {
    nl[c] = l, nr[c] = r;
    l += opened[c];
    r -= closed[c];
  }
  std::vector<SplitChoice> best(chunks);
  forChunks(chunks,
            [&](size_t c) { best[c] = sweepRange(s, e + cut[c], e + cut[c + 1], nl[c], nr[c]); });
  SplitChoice result;
  for (const SplitChoice& b : best)  // the first of equal costs, as one sweep would pick
    if (b.cost < result.cost) result = b;
  return result;
}

void classifyWide(const NodeEvents& ev, const SplitChoice& s, uint8_t* side,
                  std::vector<Clipped>& straddling, size_t* onlyL, size_t* onlyR) {
  const Event* e0 = ev.first(0);
  const size_t n0 = ev.end[0] - ev.begin[0];
  const size_t chunks0 = chunksFor(n0, kEventGrain);
  const auto range0 = [&](size_t c) {
    return std::make_pair(e0 + n0 * c / chunks0, e0 + n0 * (c + 1) / chunks0);
  };
  forChunks(chunks0, [&](size_t c) {
    const auto [b, end] = range0(c);
    for (const Event* x = b; x < end; ++x)
      if (x->type() != kEnd) side[x->tri()] = kBoth;
  });
  const Event* ek = ev.first(s.axis);
  const size_t nk = ev.end[s.axis] - ev.begin[s.axis];
  const size_t chunksK = chunksFor(nk, kEventGrain);
  forChunks(chunksK, [&](size_t c) {
    markSides(ek + nk * c / chunksK, ek + nk * (c + 1) / chunksK, s, side);
  });
  std::vector<std::vector<uint32_t>> both(chunks0);
  std::vector<size_t> l(chunks0), r(chunks0);
  forChunks(chunks0, [&](size_t c) {
    const auto [b, end] = range0(c);
    size_t nl = 0, nr = 0;
    for (const Event* x = b; x < end; ++x) {
      if (x->type() == kEnd) continue;
      const uint8_t sd = side[x->tri()];
      if (sd == kBoth) both[c].push_back(x->tri());
      nl += sd == kLeftOnly;
      nr += sd == kRightOnly;
    }
    l[c] = nl, r[c] = nr;
  });
  straddling.clear();
  *onlyL = *onlyR = 0;
  for (size_t c = 0; c < chunks0; ++c) {
    for (uint32_t t : both[c]) straddling.push_back({t, false, false, {}, {}});
    *onlyL += l[c];
    *onlyR += r[c];
  }
}

void splitAxisWide(const NodeEvents& ev, int k, const uint8_t* side,
                   const std::vector<Clipped>& clipped, NodeEvents& outL, NodeEvents& outR) {
  std::vector<Event> newL(2 * clipped.size()), newR(2 * clipped.size());
  Event *nlEnd, *nrEnd;
  straddlerEvents(clipped, k, newL.data(), newR.data(), &nlEnd, &nrEnd);
  std::sort(newL.data(), nlEnd);
  std::sort(newR.data(), nrEnd);
  const Event* e = ev.first(k);
  const size_t n = ev.end[k] - ev.begin[k];
  const size_t chunks = chunksFor(n, kEventGrain);
  std::vector<size_t> cut(chunks + 1), keptL(chunks), keptR(chunks);
  for (size_t c = 0; c <= chunks; ++c) cut[c] = n * c / chunks;
  forChunks(chunks, [&](size_t c) {
    size_t nl = 0, nr = 0;
    for (const Event* x = e + cut[c]; x < e + cut[c + 1]; ++x) {
      nl += side[x->tri()] == kLeftOnly;
      nr += side[x->tri()] == kRightOnly;
    }
    keptL[c] = nl, keptR[c] = nr;
  });
  // Chunk c takes the new events below its last parent event's successor: keys are unique, so
  // the concatenated chunks are the whole sorted merge.
  const Event *lEnd = nlEnd, *rEnd = nrEnd;
  std::vector<const Event*> fromL(chunks + 1, lEnd), fromR(chunks + 1, rEnd);
  std::vector<Event*> toL(chunks + 1), toR(chunks + 1);
  fromL[0] = newL.data(), fromR[0] = newR.data();
  for (size_t c = 1; c < chunks; ++c) {
    fromL[c] = std::lower_bound(fromL[c - 1], lEnd, e[cut[c]]);
    fromR[c] = std::lower_bound(fromR[c - 1], rEnd, e[cut[c]]);
  }
  toL[0] = outL.data.get() + outL.begin[k], toR[0] = outR.data.get() + outR.begin[k];
  for (size_t c = 0; c < chunks; ++c) {
    toL[c + 1] = toL[c] + keptL[c] + size_t(fromL[c + 1] - fromL[c]);
    toR[c + 1] = toR[c] + keptR[c] + size_t(fromR[c + 1] - fromR[c]);
  }
  forChunks(chunks, [&](size_t c) {
    Event *l = toL[c], *r = toR[c];
    mergeRange(e + cut[c], e + cut[c + 1], side, fromL[c], fromL[c + 1], fromR[c], fromR[c + 1], &l,
               &r);
  });
  outL.end[k] = size_t(toL[chunks] - outL.data.get());
  outR.end[k] = size_t(toR[chunks] - outR.data.get());
}

}  // namespace srt::kdsah

namespace srt::kdsah {

void radixSortWide(Event* a, Event* tmp, size_t n) {
  const size_t chunks = chunksFor(n, 65536);
  std::vector<uint32_t> offset(chunks * 4096);  // per chunk and digit
  Event* src = a;
  Event* dst = tmp;
  for (int shift = 30; shift < 64; shift += 12) {
    forChunks(chunks, [&](size_t c) {
      uint32_t* h = offset.data() + c * 4096;
      std::fill(h, h + 4096, 0u);
      for (size_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i)
        ++h[(src[i].key >> shift) & 4095];
    });
    uint32_t sum = 0;  // digit-major, then chunk: stable
    for (size_t d = 0; d < 4096; ++d)
      for (size_t c = 0; c < chunks; ++c) {
        const uint32_t x = offset[c * 4096 + d];
        offset[c * 4096 + d] = sum;
        sum += x;
      }
    forChunks(chunks, [&](size_t c) {
      uint32_t* h = offset.data() + c * 4096;
      for (size_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i)
        dst[h[(src[i].key >> shift) & 4095]++] = src[i];
    });
    std::swap(src, dst);
  }
  if (src != a)
    forChunks(chunks, [&](size_t c) {
      const size_t b = n * c / chunks, e = n * (c + 1) / chunks;
      std::copy(src + b, src + e, a + b);
    });
}

}  // namespace srt::kdsah
