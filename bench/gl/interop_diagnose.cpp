#include "bench/gl/interop_diagnose.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <epoxy/gl.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
#include <stdexcept>
#include <vector>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "primitives/compaction/compaction.h"
#include "primitives/compaction/gl/gl_stream_gather.h"
#include "primitives/gl/external_buffer.h"
#include "primitives/gl/gl_context.h"
#include "primitives/gl/interop_wait.h"

namespace srt::bench {
namespace {

using compaction::Field;
using compaction::Registry;
using compaction::Request;

void say(const std::string& line) {
  std::printf("[diag] %s\n", line.c_str());
  std::fflush(stdout);
}

std::string hex(const gl::vulkan::Uuid& u) {
  std::string s;
  char b[3];
  for (uint8_t x : u) {
    std::snprintf(b, sizeof b, "%02x", x);
    s += b;
  }
  return s;
}

std::string glString(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return s ? s : "?";
}

// The devices: GL's vendor, renderer and UUIDs, CUDA's device and UUID, which CUDA devices GL's
// context runs on (cudaGLGetDevices), and whether Vulkan finds GL's device.
void printEnvironment() {
  say("step: GL context (EGL device platform)");
  gl::ensureCurrentContext();
  say("GL vendor: " + glString(GL_VENDOR) + " | renderer: " + glString(GL_RENDERER) +
      " | version: " + glString(GL_VERSION));
  gl::vulkan::Uuid glUuid{}, cudaUuid{};
  const bool haveGl = gl::glDeviceUuid(&glUuid);
  say("GL device UUID (GL_EXT_memory_object): " + (haveGl ? hex(glUuid) : "none"));
  if (epoxy_has_gl_extension("GL_EXT_memory_object")) {
    gl::vulkan::Uuid driver{};
    glGetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, driver.data());
    say("GL driver UUID: " + hex(driver));
  }
  for (const char* ext : {"GL_EXT_memory_object_fd", "GL_EXT_semaphore_fd"})
    say(std::string(ext) + ": " + (epoxy_has_gl_extension(ext) ? "yes" : "NO"));
  say("step: CUDA device");
  say("CUDA: " + cudaDeviceDescription());
  const bool haveCuda = gl::cudaDeviceUuid(&cudaUuid);
  say("CUDA device UUID: " + (haveCuda ? hex(cudaUuid) : "none") +
      (haveGl && haveCuda ? (glUuid == cudaUuid ? " (same as GL's)" : " (DIFFERENT from GL's)")
                          : ""));
  unsigned count = 0;
  int devices[8] = {};
  const cudaError_t e = cudaGLGetDevices(&count, devices, 8, cudaGLDeviceListAll);
  std::string list;
  for (unsigned i = 0; i < count && i < 8; ++i) list += " " + std::to_string(devices[i]);
  say("cudaGLGetDevices (CUDA devices of the current GL context): " +
      (e == cudaSuccess ? std::to_string(count) + ":" + list
                        : std::string(cudaGetErrorName(e))));
  if (e != cudaSuccess) (void)cudaGetLastError();
  std::string why;
  say("Vulkan on GL's device, semaphores: " +
      std::string(haveGl && gl::vulkan::available(glUuid, true, &why) ? "yes" : "no: " + why));
}

// A request over CUDA memory on the default stream.
Request cudaRequest(const uint8_t* keep, const Field* fields, int numFields, uint32_t count,
                    uint32_t* numKept) {
  return Request{keep, fields, numFields, count, numKept, MemorySpace::Cuda};
}

// External memory alone, before any compaction: where CUDA's pointer lives, and whether a CUDA
// kernel (the payload gather's) can read it after GL imported it.
void checkExternalKernelAccess(gl::ExternalSource source) {
  say(std::string("step: ") + gl::toString(source) +
      " buffer, pointer attributes, then the gather kernel reading indices from it");
  gl::ExternalBuffer buffer(source, gl::StreamSide::Cuda, 4096);
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, buffer.pointer());
  if (e != cudaSuccess) (void)cudaGetLastError();
  say("CUDA pointer " + std::to_string(reinterpret_cast<uintptr_t>(buffer.pointer())) +
      ": cudaPointerGetAttributes " + cudaGetErrorName(e) + ", type " + std::to_string(int(a.type)) +
      " (2 = device), device " + std::to_string(a.device));
  SRT_CUDA_CHECK(cudaMemsetAsync(buffer.pointer(), 0, 4096));
  gl::waitCudaStream(nullptr, "cudaMemsetAsync into the external buffer");
  say("cudaMemsetAsync into it: ok");
  Buffer<uint32_t> src(MemorySpace::Cuda, std::vector<uint32_t>(16, 7)), dst(MemorySpace::Cuda, 16);
  Buffer<uint32_t> kept(MemorySpace::Cuda, 1);
  Field f{src.data(), dst.data(), 4};
  const Request r = cudaRequest(nullptr, &f, 1, 16, kept.data());
  compaction::gl::gatherOnCuda(r, static_cast<const uint32_t*>(buffer.pointer()), 16, nullptr);
  gl::waitCudaStream(nullptr, "the gather kernel reading indices from the external buffer");
  say("gather kernel reading it: ok");
}

// Compacts a known stream (every word names its element) and compares with the reference.
bool checkStream(compaction::Compactor& c, uint32_t n, uint32_t fields, uint32_t bytes,
                 uint32_t seed) {
  std::vector<uint8_t> keep(n);
  uint32_t x = seed;
  for (auto& k : keep) k = ((x = x * 1664525u + 1013904223u) >> 28) < 9;  // about 56% kept
  if (n == 1) keep[0] = 1;
  const uint32_t words = bytes / 4;
  std::vector<Buffer<uint32_t>> src, dst;
  std::vector<Field> fs;
  for (uint32_t f = 0; f < fields; ++f) {
    std::vector<uint32_t> v(size_t(n) * words);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(i) * 8 + f;
    src.emplace_back(MemorySpace::Cuda, v);
    dst.emplace_back(MemorySpace::Cuda, std::vector<uint32_t>(v.size(), 0xdeadbeef));
  }
  for (uint32_t f = 0; f < fields; ++f) fs.push_back({src[f].data(), dst[f].data(), bytes});
  Buffer<uint8_t> dKeep(MemorySpace::Cuda, keep);
  Buffer<uint32_t> dKept(MemorySpace::Cuda, std::vector<uint32_t>{0xffffffffu});
  const Request r = cudaRequest(dKeep.data(), fs.data(), int(fields), n, dKept.data());
  const std::string what = "n = " + std::to_string(n) + ", " + std::to_string(fields) + " x " +
                           std::to_string(bytes) + " B";
  say("step: compact " + what);
  c.compact(r);
  gl::waitCudaStream(nullptr, "compact " + what);
  uint32_t want = 0;
  for (uint8_t k : keep) want += k;
  const uint32_t got = dKept.download()[0];
  if (got != want) {
    say("compact " + what + ": WRONG COUNT " + std::to_string(got) + ", want " +
        std::to_string(want) + " | " + c.choiceSummary());
    return false;
  }
  for (uint32_t f = 0; f < fields; ++f) {
    const std::vector<uint32_t> out = dst[f].download();
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (!keep[i]) continue;
      for (uint32_t w = 0; w < words; ++w)
        if (out[size_t(k) * words + w] != (i * words + w) * 8 + f) {
          say("compact " + what + ": WRONG field " + std::to_string(f) + " survivor " +
              std::to_string(k) + " word " + std::to_string(w) + " = " +
              std::to_string(out[size_t(k) * words + w]) + " | " + c.choiceSummary());
          return false;
        }
      ++k;
    }
  }
  say("compact " + what + ": ok (" + std::to_string(got) + " kept)");
  return true;
}

std::string selfPath() {
  std::vector<char> buf(4096, 0);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), size_t(n)) : "streamrt-bench-gl";
}

}  // namespace

int runInteropDiagnoseOne(const std::string& spec) {
  gl::setInteropTrace(true);
  try {
    printEnvironment();
    if (!cudaDeviceAvailable()) {
      say("no CUDA device: nothing to diagnose");
      return 3;
    }
    if (spec.find("interop=vulkan") != std::string::npos)
      checkExternalKernelAccess(gl::ExternalSource::Vulkan);
    if (spec.find("interop=vmm") != std::string::npos)
      checkExternalKernelAccess(gl::ExternalSource::CudaVmm);
    say("step: make " + spec);
    auto c = Registry::global().create(spec);
    bool ok = true;
    ok &= checkStream(*c, 1000, 1, 4, 1);
    if (ok) say("interop that ran: " + c->choiceSummary());
    ok = ok && checkStream(*c, 1, 1, 4, 2);
    ok = ok && checkStream(*c, 5003, 1, 4, 3);
    ok = ok && checkStream(*c, 1000, 4, 16, 4);
    ok = ok && checkStream(*c, 300000, 1, 4, 5);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    say(std::string("ERROR: ") + e.what());
    return 2;
  }
}

int runInteropDiagnose(double childSeconds) {
  struct Case {
    std::string spec;
    const char* env;
  };
  std::vector<Case> cases;
  for (const char* payload : {"payload=cuda", "payload=gl"}) {
    cases.push_back({std::string("gl-roger:interop=registered,") + payload, ""});
    cases.push_back({std::string("gl-roger:interop=host,") + payload, ""});
    for (const char* interop : {"vulkan", "vmm"})
      for (const char* sync : {"semaphores", "fences"})
        cases.push_back({std::string("gl-roger:interop=") + interop + ",sync=" + sync + "," +
                             payload,
                         ""});
    cases.push_back({std::string("gl-roger:") + payload, ""});
  }
  cases.push_back({"gl-roger", "SRT_GL_INTEROP_EXTERNAL=1 "});
  const std::string self = selfPath();
  std::printf(
      "== CUDA-GL interop diagnosis: %zu cases, each a child process (limit %.0f s, hand-off "
      "deadline SRT_GL_INTEROP_TIMEOUT=5 s)\n",
      cases.size(), childSeconds);
  std::vector<std::string> summary;
  bool autoWorks = false;
  for (const Case& k : cases) {
    const std::string label = std::string(k.env) + k.spec;
    std::printf("\n-- %s\n", label.c_str());
    std::fflush(stdout);
    const std::string cmd = std::string("env ") + k.env + "SRT_GL_INTEROP_TIMEOUT=5 timeout -s KILL " +
                            std::to_string(int(childSeconds)) + " '" + self +
                            "' --interop-diagnose-one '" + k.spec + "' 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
      summary.push_back("COULD NOT RUN  " + label);
      continue;
    }
    char line[4096];
    std::string last, lastStep, failure;
    while (std::fgets(line, sizeof line, p)) {
      std::printf("   %s", line);
      std::fflush(stdout);
      last = line;
      if (last.rfind("[interop]", 0) == 0 || last.find("step:") != std::string::npos)
        lastStep = last;
      if (last.find("ERROR") != std::string::npos || last.find("WRONG") != std::string::npos)
        failure = last;
    }
    const int status = pclose(p);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto trim = [](std::string s) {
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      return s;
    };
    if (code == 3) {
      std::printf("no CUDA device here: nothing to diagnose\n");
      return 1;
    }
    std::string verdict;
    if (code == 0)
      verdict = "PASS ";
    else if (code == 137 || code == 124 || code == -1)
      verdict = "HANG  (killed after " + std::to_string(int(childSeconds)) +
                " s; last step started: " + trim(lastStep) + ")";
    else
      verdict = "FAIL  (exit " + std::to_string(code) + ": " + trim(failure.empty() ? last : failure) +
                ")";
    if (code == 0 && k.spec.find("interop=") == std::string::npos) autoWorks = true;
    std::printf("   => %s\n", verdict.c_str());
    summary.push_back(verdict.substr(0, 5) + "  " + label);
    if (code != 0) summary.back() += "\n         " + verdict.substr(6);
  }
  std::printf("\n== summary (PASS: the interop gives the reference on every stream)\n");
  for (const auto& s : summary) std::printf("  %s\n", s.c_str());
  std::printf("auto (the renderer's default): %s\n", autoWorks ? "works" : "FAILS");
  return autoWorks ? 0 : 1;
}

}  // namespace srt::bench
