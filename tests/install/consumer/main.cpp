// Compacts a stream through the installed streamrt::primitives: the CPU primitive always, and
// cub on a CUDA device when one is visible. Prints "consumer: ok" when every result is right.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <primitives/compaction/compaction.h>
#include <vector>

using namespace srt;

// Keeps every third element of 0..n-1 and checks the survivors and their count.
static bool check(const char* spec, MemorySpace space) {
  const uint32_t n = 1000;
  std::vector<uint8_t> keep(n);
  std::vector<uint32_t> values(n);
  for (uint32_t i = 0; i < n; ++i) keep[i] = i % 3 == 0, values[i] = i;
  Buffer<uint8_t> dKeep(space, keep);
  Buffer<uint32_t> src(space, values), dst(space, n), kept(space, 1);
  compaction::Field field{src.data(), dst.data(), 4};
  compaction::Request r;
  r.keep = dKeep.data();
  r.fields = &field;
  r.numFields = 1;
  r.count = n;
  r.numKept = kept.data();
  r.memory = space;
  compaction::Registry::global().create(spec)->compact(r);
  if (space == MemorySpace::Cuda) cudaDeviceSynchronize();
  const uint32_t count = kept.download(1)[0];
  const std::vector<uint32_t> out = dst.download(count);
  bool ok = count == (n + 2) / 3;
  for (uint32_t i = 0; ok && i < count; ++i) ok = out[i] == 3 * i;
  std::printf("consumer: %s: %u kept, %s\n", spec, count, ok ? "right" : "WRONG");
  return ok;
}

int main() {
  bool ok = check("cpu", MemorySpace::Host);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
    ok = check("cub", MemorySpace::Cuda) && ok;
  else
    std::printf("consumer: no CUDA device, cub not run\n");
  std::printf("consumer: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
