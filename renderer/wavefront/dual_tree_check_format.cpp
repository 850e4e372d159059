#include "renderer/wavefront/dual_tree_check_format.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace srt {
namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ull, kFnvPrime = 1099511628211ull;

uint64_t fnv(uint64_t h, const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * kFnvPrime;
  return h;
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

std::string hexFloat(float f) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%a", double(f));
  return buf;
}

float parseFloat(const std::string& s) {
  char* end = nullptr;
  const float f = std::strtof(s.c_str(), &end);
  if (end == s.c_str() || *end) throw std::runtime_error("dual-tree file: bad float '" + s + "'");
  return f;
}

uint32_t parseUint(const std::string& s) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (end == s.c_str() || *end) throw std::runtime_error("dual-tree file: bad integer '" + s + "'");
  return uint32_t(v);
}

constexpr char kTreeMagic[8] = {'S', 'R', 'T', 'K', 'D', '1', '\n', '\0'};

}  // namespace

uint64_t hashKdTree(const KdTree& tree) {
  uint64_t h = fnv(kFnvOffset, tree.nodes.data(), tree.nodes.size() * sizeof(KdNode));
  h = fnv(h, tree.primIndices.data(), tree.primIndices.size() * sizeof(uint32_t));
  return fnv(h, &tree.bounds, sizeof tree.bounds);
}

uint64_t hashMesh(const TriangleMeshView& m) {
  uint64_t h = kFnvOffset;
  for (uint32_t t = 0; t < m.triangleCount; ++t)
    for (int k = 0; k < 3; ++k) {
      const uint32_t i = m.indices[3 * size_t(t) + k];
      h = fnv(h, &i, sizeof i);
      h = fnv(h, &m.positions[i], sizeof(Vec3f));
    }
  return h;
}

void writeDualTreeHeader(std::ostream& out, const DualTreeHeader& h) {
  out << "#dual-tree primary=" << h.primaryBuilder << " second=" << h.secondBuilder
      << " primary_hash=" << h.primaryHash << " second_hash=" << h.secondHash
      << " mesh_hash=" << h.meshHash << " triangles=" << h.triangles << "\n";
  out << "# kind pass pixel sample ox oy oz dx dy dz tmax occluded ran, then per run (integrator, "
         "primary standard, second standard, primary persistent, second persistent): t tri b1 b2\n";
}

void writeDualTreeRecord(std::ostream& out, const DualTreeRecord& r) {
  out << (r.shadow ? "shadow" : "closest") << ' ' << r.pass << ' ' << r.pixel << ' ' << r.sample;
  for (float f : r.o) out << ' ' << hexFloat(f);
  for (float f : r.d) out << ' ' << hexFloat(f);
  out << ' ' << hexFloat(r.tMax) << ' ' << r.occluded << ' ' << r.ran;
  for (int k = 0; k < kDualTreeRuns; ++k)
    out << "  " << hexFloat(r.t[k]) << ' ' << r.tri[k] << ' ' << hexFloat(r.b1[k]) << ' '
        << hexFloat(r.b2[k]);
  out << '\n';
}

DualTreeFile readDualTreeFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  DualTreeFile f;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#dual-tree ", 0) == 0) {
      std::istringstream s(line.substr(11));
      std::string kv;
      while (s >> kv) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos) continue;
        const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        if (k == "primary") f.header.primaryBuilder = v;
        if (k == "second") f.header.secondBuilder = v;
        if (k == "primary_hash") f.header.primaryHash = std::stoull(v);
        if (k == "second_hash") f.header.secondHash = std::stoull(v);
        if (k == "mesh_hash") f.header.meshHash = std::stoull(v);
        if (k == "triangles") f.header.triangles = parseUint(v);
      }
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string w[12];
    for (std::string& x : w)
      if (!(s >> x)) throw std::runtime_error("dual-tree file: short line: " + line);
    DualTreeRecord r;
    if (w[0] != "closest" && w[0] != "shadow")
      throw std::runtime_error("dual-tree file: bad kind: " + line);
    r.shadow = w[0] == "shadow";
    r.pass = parseUint(w[1]), r.pixel = parseUint(w[2]), r.sample = parseUint(w[3]);
    for (int k = 0; k < 3; ++k) r.o[k] = parseFloat(w[4 + k]), r.d[k] = parseFloat(w[7 + k]);
    r.tMax = parseFloat(w[10]);
    r.occluded = parseUint(w[11]);
    std::string ran;
    if (!(s >> ran)) throw std::runtime_error("dual-tree file: short line: " + line);
    r.ran = parseUint(ran);
    for (int k = 0; k < kDualTreeRuns; ++k) {
      std::string t, tri, b1, b2;
      if (!(s >> t >> tri >> b1 >> b2))
        throw std::runtime_error("dual-tree file: short line: " + line);
      r.t[k] = parseFloat(t), r.tri[k] = parseUint(tri);
      r.b1[k] = parseFloat(b1), r.b2[k] = parseFloat(b2);
    }
    f.records.push_back(r);
  }
  return f;
}

void writeKdTreeFile(const std::string& path, const KdTree& tree) {
  std::ofstream out(path, std::ios::binary);
  const uint64_t n = tree.nodes.size(), p = tree.primIndices.size();
  out.write(kTreeMagic, sizeof kTreeMagic);
  out.write(reinterpret_cast<const char*>(&n), sizeof n);
  out.write(reinterpret_cast<const char*>(&p), sizeof p);
  out.write(reinterpret_cast<const char*>(&tree.bounds), sizeof tree.bounds);
  out.write(reinterpret_cast<const char*>(tree.nodes.data()), std::streamsize(n * sizeof(KdNode)));
  out.write(reinterpret_cast<const char*>(tree.primIndices.data()),
            std::streamsize(p * sizeof(uint32_t)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

KdTree readKdTreeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot read " + path);
  const uint64_t size = uint64_t(in.tellg());
  in.seekg(0);
  char magic[sizeof kTreeMagic];
  uint64_t n = 0, p = 0;
  KdTree tree;
  in.read(magic, sizeof magic);
  in.read(reinterpret_cast<char*>(&n), sizeof n);
  in.read(reinterpret_cast<char*>(&p), sizeof p);
  in.read(reinterpret_cast<char*>(&tree.bounds), sizeof tree.bounds);
  const uint64_t head = sizeof magic + 2 * sizeof(uint64_t) + sizeof tree.bounds;
  // Sizes from the header are checked against the bytes present before anything is allocated.
  if (!in || std::memcmp(magic, kTreeMagic, sizeof magic) != 0 || n > size || p > size ||
      head + n * sizeof(KdNode) + p * sizeof(uint32_t) != size)
    throw std::runtime_error(path + ": not a kd-tree file");
  tree.nodes.resize(n);
  tree.primIndices.resize(p);
  in.read(reinterpret_cast<char*>(tree.nodes.data()), std::streamsize(n * sizeof(KdNode)));
  in.read(reinterpret_cast<char*>(tree.primIndices.data()), std::streamsize(p * sizeof(uint32_t)));
  if (!in) throw std::runtime_error(path + ": truncated");
  return tree;
}

bool dualTreeRunsAgree(const DualTreeRecord& r, int a, int b) {
  if (r.shadow) return ((r.occluded >> a) & 1u) == ((r.occluded >> b) & 1u);
  if (r.tri[a] != r.tri[b]) return false;
  if (r.tri[a] == ~0u) return true;
  return bitsOf(r.t[a]) == bitsOf(r.t[b]) && bitsOf(r.b1[a]) == bitsOf(r.b1[b]) &&
         bitsOf(r.b2[a]) == bitsOf(r.b2[b]);
}

}  // namespace srt
