// Internal to the CPU SAH builder: split events (Wald & Havran 2006) as sortable integers, and a
// node's three event lists.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

namespace srt::kdsah {

enum EventType : uint32_t { kEnd = 0, kPlanar = 1, kStart = 2 };

// An event as one integer key: the position's bits made to sort as unsigned integers (-0 made
// +0), then the type, then the triangle. Sorts and merges compare integers, and events at the same
// position and of the same type are in triangle order, so the order never depends on the threads.
struct Event {
  uint64_t key;
  static uint32_t orderedBits(float x) {
    x += 0.f;  // -0 -> +0
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return (u & 0x80000000u) ? ~u : u | 0x80000000u;
  }
  static float fromOrderedBits(uint32_t u) {
    u = (u & 0x80000000u) ? u & 0x7fffffffu : ~u;
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  }
  static Event make(float pos, EventType type, uint32_t tri) {
    return {uint64_t(orderedBits(pos)) << 32 | uint64_t(type) << 30 | tri};
  }
  uint32_t posBits() const { return uint32_t(key >> 32); }
  float pos() const { return fromOrderedBits(posBits()); }
  uint32_t type() const { return uint32_t(key >> 30) & 3u; }
  uint32_t tri() const { return uint32_t(key) & 0x3fffffffu; }
};
inline bool operator<(const Event& a, const Event& b) {
  return a.key < b.key;
}

// A node's three event lists in one allocation: axis k is [begin[k], end[k]).
struct NodeEvents {
  std::unique_ptr<Event[]> data;
  size_t begin[3] = {}, end[3] = {};
  size_t count = 0;  // triangles
  const Event* first(int k) const { return data.get() + begin[k]; }
  const Event* last(int k) const { return data.get() + end[k]; }
};

// Writes the events of one triangle's range [lo, hi] on one axis; returns the end.
inline Event* addAxisEvents(uint32_t tri, float lo, float hi, Event* out) {
  if (lo == hi) {
    *out++ = Event::make(lo, kPlanar, tri);
  } else {
    *out++ = Event::make(lo, kStart, tri);
    *out++ = Event::make(hi, kEnd, tri);
  }
  return out;
}

}  // namespace srt::kdsah
