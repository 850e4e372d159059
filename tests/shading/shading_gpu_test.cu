// The shading headers compiled for the device: the sampler must give the CPU's numbers bit for
// bit, and a BSDF sample / emitter sample must agree with the CPU to float precision. Also proves
// every header builds as device code (this file compiles on machines without a GPU).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "primitives/common/cuda_check.h"
#include "primitives/common/memory.h"
#include "renderer/shading/bsdf.h"
#include "renderer/shading/environment.h"
#include "renderer/shading/lights.h"
#include "renderer/shading/rng.h"
#include "tests/shading/env_test_util.h"

namespace srt {
namespace {

constexpr int kDims = 16;

__global__ void samplerKernel(uint32_t n, float* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Sampler s = Sampler::at(i * 7919u, i % 5, i % 3, 0xdeadbeefu);
  for (int d = 0; d < kDims; ++d) out[i * kDims + d] = s.next1D();
}

struct ShadeResult {
  Vec3f bsdfF, bsdfWi;
  float bsdfPdf;
  int bsdfOk;
  float fresnel;
  Vec3f lightP;
  float lightPdf, emitterPdf;
  int lightOk;
};

SRT_CPU_GPU ShadeResult shade(uint32_t i, const DeviceMaterial* materials, uint32_t materialCount,
                              EmitterView emitters, const Vec3f* positions,
                              const uint32_t* indices) {
  ShadeResult r{};
  Sampler s = Sampler::at(i, 0, 1, 7);
  const Bsdf b =
      makeBsdf(materials[i % materialCount], nullptr, Vec3f(0.1f, 0.2f, 1.f), Vec2f{0.3f, 0.4f});
  const Vec3f wo = normalize(Vec3f(0.4f, -0.3f, 0.8f - 0.1f * float(i % 9)));
  BsdfSample bs;
  const float uc = s.next1D();
  r.bsdfOk = b.sample(wo, uc, s.next2D(), &bs);
  if (r.bsdfOk) r.bsdfF = bs.f, r.bsdfWi = bs.wi, r.bsdfPdf = bs.pdf;
  r.fresnel = fresnelDielectric(0.01f * float(i % 200) - 1.f, 1.5f);
  LightSample ls;
  const float ul = s.next1D();
  r.lightOk =
      sampleEmitter(emitters, positions, indices, Vec3f(0.1f, 0.f, 0.f), s.next2D(), ul, &ls);
  if (r.lightOk) {
    r.lightP = ls.p, r.lightPdf = ls.pdf;
    r.emitterPdf = emitterPdf(emitters, ls.triangle, Vec3f(0.1f, 0.f, 0.f), ls.p, ls.n);
  }
  return r;
}

__global__ void shadeKernel(uint32_t n, const DeviceMaterial* materials, uint32_t materialCount,
                            EmitterView emitters, const Vec3f* positions, const uint32_t* indices,
                            ShadeResult* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = shade(i, materials, materialCount, emitters, positions, indices);
}

TEST(ShadingGpu, SamplerMatchesCpuBitForBit) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: the sampler runs on the CPU only";
  constexpr uint32_t n = 100003;  // not a multiple of the block size
  Buffer<float> d(MemorySpace::Cuda, size_t(n) * kDims);
  samplerKernel<<<(n + 255) / 256, 256>>>(n, d.data());
  SRT_CUDA_CHECK_LAUNCH();
  const std::vector<float> gpu = d.download();
  std::vector<float> cpu(gpu.size());
  for (uint32_t i = 0; i < n; ++i) {
    Sampler s = Sampler::at(i * 7919u, i % 5, i % 3, 0xdeadbeefu);
    for (int k = 0; k < kDims; ++k) cpu[i * kDims + k] = s.next1D();
  }
  EXPECT_EQ(0, std::memcmp(cpu.data(), gpu.data(), cpu.size() * sizeof(float)));
}

TEST(ShadingGpu, BsdfAndEmitterSamplesMatchCpu) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: shading runs on the CPU only";
  std::vector<DeviceMaterial> mats(4);
  mats[1].type = MaterialType::Glossy, mats[1].ks = Vec3f(0.5f), mats[1].alpha = 0.2f;
  mats[2].type = MaterialType::Dielectric;
  mats[3].type = MaterialType::Mirror, mats[3].ks = Vec3f(0.9f);
  FlatGeometry g;
  g.positions = {{-1, 2, -1}, {1, 2, -1}, {0, 2, 1}, {2, -1, -1}, {2, 1, 0}, {2, -1, 1.5f}};
  g.indices = {0, 1, 2, 3, 4, 5};
  g.materialIds = {0, 1};
  std::vector<Material> sceneMats(2);
  sceneMats[0].ke = Vec3f(4.f), sceneMats[1].ke = Vec3f(1.f, 2.f, 3.f);
  const EmitterTable table = buildEmitters(g, sceneMats);

  Buffer<DeviceMaterial> dMats(MemorySpace::Cuda, mats);
  Buffer<Vec3f> dPos(MemorySpace::Cuda, g.positions), dRad(MemorySpace::Cuda, table.radiance);
  Buffer<uint32_t> dIdx(MemorySpace::Cuda, g.indices), dTri(MemorySpace::Cuda, table.triangles);
  Buffer<float> dArea(MemorySpace::Cuda, table.areas), dCdf(MemorySpace::Cuda, table.cdf),
      dPmf(MemorySpace::Cuda, table.pmf);
  Buffer<int32_t> dMap(MemorySpace::Cuda, table.triangleToEmitter);
  // Every array the view points to, uploaded: no host pointer may reach the kernel.
  EmitterView dv;
  dv.triangles = dTri.data(), dv.radiance = dRad.data(), dv.areas = dArea.data();
  dv.cdf = dCdf.data(), dv.pmf = dPmf.data(), dv.triangleToEmitter = dMap.data();
  dv.count = uint32_t(table.size()), dv.triangleCount = uint32_t(table.triangleToEmitter.size());
  ASSERT_TRUE(table.keTextures.empty());  // no emission maps to upload

  constexpr uint32_t n = 4099;
  Buffer<ShadeResult> out(MemorySpace::Cuda, n);
  shadeKernel<<<(n + 127) / 128, 128>>>(n, dMats.data(), 4, dv, dPos.data(), dIdx.data(),
                                        out.data());
  SRT_CUDA_CHECK_LAUNCH();
  const std::vector<ShadeResult> gpu = out.download();
  const EmitterView hv = hostView(table);
  auto close = [](float a, float b) {
    return std::fabs(a - b) <= 1e-4f * std::fmax(1.f, std::fabs(a));
  };
  for (uint32_t i = 0; i < n; ++i) {
    const ShadeResult c = shade(i, mats.data(), 4, hv, g.positions.data(), g.indices.data());
    const ShadeResult& d = gpu[i];
    ASSERT_EQ(c.bsdfOk, d.bsdfOk) << i;
    ASSERT_EQ(c.lightOk, d.lightOk) << i;
    ASSERT_TRUE(close(c.fresnel, d.fresnel)) << i;
    if (c.bsdfOk) {
      ASSERT_TRUE(close(c.bsdfPdf, d.bsdfPdf)) << i;
      for (int k = 0; k < 3; ++k) {
        ASSERT_TRUE(close(c.bsdfF[k], d.bsdfF[k])) << i;
        ASSERT_TRUE(close(c.bsdfWi[k], d.bsdfWi[k])) << i;
      }
    }
    if (c.lightOk) {
      ASSERT_TRUE(close(c.lightPdf, d.lightPdf)) << i;
      ASSERT_TRUE(close(d.lightPdf, d.emitterPdf)) << i;
      for (int k = 0; k < 3; ++k) ASSERT_TRUE(close(c.lightP[k], d.lightP[k])) << i;
    }
  }
}

struct EnvResult {
  Vec3f wi, Le, lookup;
  float pdf, pdfAgain;
  int ok;
};

SRT_CPU_GPU EnvResult envSample(uint32_t i, EnvironmentView env) {
  EnvResult r{};
  Sampler s = Sampler::at(i, 0, 2, 11);
  EnvironmentSample es;
  r.ok = sampleEnvironment(env, s.next2D(), &es);
  if (r.ok) r.wi = es.wi, r.Le = es.Le, r.pdf = es.pdf, r.pdfAgain = environmentPdf(env, es.wi);
  r.lookup = environmentRadiance(env, sampleUniformSphere(s.next2D()));
  return r;
}

__global__ void envKernel(uint32_t n, EnvironmentView env, EnvResult* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = envSample(i, env);
}

// The environment light's sampling, density and lookup give the CPU's numbers on the device
// (to float precision: atan2f, acosf and sinf may differ in the last bits).
TEST(ShadingGpu, EnvironmentSamplesMatchCpu) {
  if (!cudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device: shading runs on the CPU only";
  EnvironmentMap map = test::mapOf(test::syntheticSky(67, 33, 6.f), "sky");
  map.rotationDegrees = 41.f;
  map.scale = 0.7f;
  const EnvironmentTable table = buildEnvironment(map);
  Buffer<Vec3f> texels(MemorySpace::Cuda, table.texels);
  Buffer<float> marginal(MemorySpace::Cuda, table.distribution.marginalCdf),
      conditional(MemorySpace::Cuda, table.distribution.conditionalCdf);
  const EnvironmentView dv =
      makeEnvironmentView(table, texels.data(), marginal.data(), conditional.data());
  constexpr uint32_t n = 10007;
  Buffer<EnvResult> out(MemorySpace::Cuda, n);
  envKernel<<<(n + 127) / 128, 128>>>(n, dv, out.data());
  SRT_CUDA_CHECK_LAUNCH();
  const std::vector<EnvResult> gpu = out.download();
  const EnvironmentView hv = hostView(table);
  auto close = [](float a, float b) {
    return std::fabs(a - b) <= 1e-3f * std::fmax(1.f, std::fabs(a));
  };
  int differ = 0;  // a sample on a texel edge may fall on either side on the two machines
  for (uint32_t i = 0; i < n; ++i) {
    const EnvResult c = envSample(i, hv), d = gpu[i];
    ASSERT_EQ(c.ok, d.ok) << i;
    bool same = true;
    for (int k = 0; k < 3; ++k)
      same = same && close(c.wi[k], d.wi[k]) && close(c.Le[k], d.Le[k]) &&
             close(c.lookup[k], d.lookup[k]);
    same = same && (!c.ok || (close(c.pdf, d.pdf) && close(c.pdfAgain, d.pdfAgain)));
    differ += !same;
  }
  EXPECT_LE(differ, int(n / 1000));
}

}  // namespace
}  // namespace srt
