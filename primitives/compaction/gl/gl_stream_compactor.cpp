#include "primitives/compaction/gl/gl_stream_compactor.h"

#include <stdexcept>

#include "primitives/gl/gl_context.h"

namespace srt::compaction::gl {

using Clock = std::chrono::steady_clock;
static double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

GlStreamCompactor::CurrentContext::CurrentContext() { srt::gl::ensureCurrentContext(); }

void GlStreamCompactor::reserve(uint32_t maxCount) {
  srt::gl::ensureCurrentContext();
  if (maxCount <= capacity_ && capacity_ > 0) return;
  capacity_ = std::max(maxCount, 1u);
  // Room for the block padding; every index stream shares this width.
  log2Width_ = srt::gl::chooseLog2Width(uint64_t(capacity_) + 2048, minWidth());
}

GlStreamCompactor::FieldFormat GlStreamCompactor::fieldFormat(uint32_t bytes) {
  if (bytes % 16 == 0) return {GL_RGBA32UI, GL_RGBA_INTEGER, 16, bytes / 16};
  if (bytes % 8 == 0) return {GL_RG32UI, GL_RG_INTEGER, 8, bytes / 8};
  return {GL_R32UI, GL_RED_INTEGER, 4, bytes / 4};
}

Layout GlStreamCompactor::fieldLayout(uint32_t elements, uint32_t bytes) {
  const uint64_t texels = uint64_t(fieldFormat(bytes).tpe) * std::max(capacity_, elements);
  return {elements * fieldFormat(bytes).tpe, srt::gl::chooseLog2Width(texels, 1)};
}

uint32_t GlStreamCompactor::readValue(Texture& t, const Layout& l, uint32_t index) {
  uint32_t v = 0;
  SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  SRT_GL_CHECK(glGetTextureSubImage(t.id(), 0, GLint(index & (l.width() - 1)),
                                    GLint(index >> l.log2Width), 0, 1, 1, 1, GL_RED_INTEGER,
                                    GL_UNSIGNED_INT, sizeof v, &v));
  return v;
}

void GlStreamCompactor::compact(const Request& r) {
  validate(r);
  if (r.memory != MemorySpace::Host && r.memory != MemorySpace::Cuda)
    throw std::invalid_argument("GL compaction: unknown memory space");
  srt::gl::ensureCurrentContext();
  transferMs_ = 0;
  steps_.clear();
  if (r.count == 0) {
    hostCount_ = 0;
    if (r.memory == MemorySpace::Cuda)
      SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, &hostCount_, 4, cudaMemcpyHostToDevice, r.stream));
    else
      *r.numKept = 0;
    return;
  }
  reserve(r.count);
  // State a caller's context may have left on (the viewer's).
  for (GLenum cap : {GL_BLEND, GL_DEPTH_TEST, GL_SCISSOR_TEST, GL_CULL_FACE, GL_RASTERIZER_DISCARD})
    SRT_GL_CHECK(glDisable(cap));

  const Layout keepLayout{r.count, log2Width_};
  Texture& keep = passes_.pool().get("keep", GL_R8UI, keepLayout.width(), keepLayout.rows());
  timer_.start();
  upload(r, keep, keepLayout);
  timer_.mark("upload");

  const Indices idx = computeIndices(keep, keepLayout);

  for (int f = 0; f < r.numFields; ++f) {
    const FieldFormat ff = fieldFormat(r.fields[f].bytes);
    const Layout in = fieldLayout(r.count, r.fields[f].bytes);
    const Layout out = fieldLayout(idx.layout.count, r.fields[f].bytes);
    Texture& src =
        passes_.pool().get("field.in." + std::to_string(f), ff.internal, in.width(), in.rows());
    Texture& dst = passes_.pool().get("field.out." + std::to_string(f), ff.internal, out.width(),
                                      std::max(out.rows(), 1u));
    const char* type = ff.texelBytes == 16 ? "uvec4" : ff.texelBytes == 8 ? "uvec2" : "uint";
    Program& p = passes_.program("gather.frag", std::string("#define FIELD_T ") + type + "\n");
    p.bindTexture("indices", 0, *idx.texture);
    p.bindTexture("field", 1, src);
    p.set("indexLog2w", idx.layout.log2Width);
    p.set("fieldLog2w", in.log2Width);
    p.set("tpe", ff.tpe);
    p.set("log2w", out.log2Width);
    passes_.draw(p, dst, out);
  }
  if (r.numFields > 0) timer_.mark("gather");
  readBack(r, idx);
  timer_.mark("readback");
  steps_ = timer_.read();
  // GPU time of the GL side of the copies; the CUDA/host side was added by upload/readBack.
  for (const auto& [name, ms] : steps_)
    if (name == "upload" || name == "readback") transferMs_ += ms;
}

void GlStreamCompactor::upload(const Request& r, Texture& keep, const Layout& keepLayout) {
  const auto t0 = Clock::now();
  if (r.memory == MemorySpace::Host) {
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
    srt::gl::uploadTexels(keep, keepLayout, GL_RED_INTEGER, GL_UNSIGNED_BYTE, 1, r.keep);
    for (int f = 0; f < r.numFields; ++f) {
      const FieldFormat ff = fieldFormat(r.fields[f].bytes);
      const Layout in = fieldLayout(r.count, r.fields[f].bytes);
      Texture& src =
          passes_.pool().get("field.in." + std::to_string(f), ff.internal, in.width(), in.rows());
      srt::gl::uploadTexels(src, in, ff.format, GL_UNSIGNED_INT, ff.texelBytes, r.fields[f].src);
    }
    transferMs_ += msSince(t0);
    return;
  }
  // CUDA memory: copy into registered buffers on the request's stream, then let GL fill the
  // textures from them (pixel-unpack buffers), without a host round-trip.
  keepBuffer_.reserve(r.count, cudaGraphicsRegisterFlagsWriteDiscard);
  while (inBuffers_.size() < size_t(r.numFields))
    inBuffers_.push_back(std::make_unique<srt::gl::CudaGlBuffer>());
  std::vector<srt::gl::CudaGlBuffer*> buffers{&keepBuffer_};
  for (int f = 0; f < r.numFields; ++f) {
    inBuffers_[f]->reserve(size_t(r.count) * r.fields[f].bytes,
                           cudaGraphicsRegisterFlagsWriteDiscard);
    buffers.push_back(inBuffers_[f].get());
  }
  {
    srt::gl::CudaGlMapping map(buffers, r.stream);
    SRT_CUDA_CHECK(
        cudaMemcpyAsync(map.pointer(0), r.keep, r.count, cudaMemcpyDeviceToDevice, r.stream));
    for (int f = 0; f < r.numFields; ++f)
      SRT_CUDA_CHECK(cudaMemcpyAsync(map.pointer(f + 1), r.fields[f].src,
                                     size_t(r.count) * r.fields[f].bytes, cudaMemcpyDeviceToDevice,
                                     r.stream));
    map.unmap();
  }
  SRT_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  transferMs_ += msSince(t0);
  SRT_GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, keepBuffer_.id()));
  srt::gl::uploadTexels(keep, keepLayout, GL_RED_INTEGER, GL_UNSIGNED_BYTE, 1, nullptr);
  for (int f = 0; f < r.numFields; ++f) {
    const FieldFormat ff = fieldFormat(r.fields[f].bytes);
    const Layout in = fieldLayout(r.count, r.fields[f].bytes);
    Texture& src =
        passes_.pool().get("field.in." + std::to_string(f), ff.internal, in.width(), in.rows());
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, inBuffers_[f]->id()));
    srt::gl::uploadTexels(src, in, ff.format, GL_UNSIGNED_INT, ff.texelBytes, nullptr);
  }
  SRT_GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
}

void GlStreamCompactor::readBack(const Request& r, const Indices& idx) {
  const uint32_t kept = idx.layout.count;
  hostCount_ = kept;
  const auto t0 = Clock::now();
  if (r.memory == MemorySpace::Host) {
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
    for (int f = 0; f < r.numFields && kept > 0; ++f) {
      const FieldFormat ff = fieldFormat(r.fields[f].bytes);
      const Layout out = fieldLayout(kept, r.fields[f].bytes);
      Texture& dst = passes_.pool().get("field.out." + std::to_string(f), ff.internal, out.width(),
                                        out.rows());
      srt::gl::downloadTexels(dst, out, ff.format, GL_UNSIGNED_INT, ff.texelBytes, r.fields[f].dst,
                              size_t(kept) * r.fields[f].bytes);
    }
    *r.numKept = kept;
    transferMs_ += msSince(t0);
    return;
  }
  while (outBuffers_.size() < size_t(r.numFields))
    outBuffers_.push_back(std::make_unique<srt::gl::CudaGlBuffer>());
  std::vector<srt::gl::CudaGlBuffer*> buffers;
  for (int f = 0; f < r.numFields && kept > 0; ++f) {
    const FieldFormat ff = fieldFormat(r.fields[f].bytes);
    const Layout out = fieldLayout(kept, r.fields[f].bytes);
    Texture& dst =
        passes_.pool().get("field.out." + std::to_string(f), ff.internal, out.width(), out.rows());
    outBuffers_[f]->reserve(size_t(kept) * r.fields[f].bytes, cudaGraphicsRegisterFlagsReadOnly);
    SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, outBuffers_[f]->id()));
    srt::gl::downloadTexels(dst, out, ff.format, GL_UNSIGNED_INT, ff.texelBytes, nullptr,
                            outBuffers_[f]->bytes());
    buffers.push_back(outBuffers_[f].get());
  }
  SRT_GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  const auto t1 = Clock::now();
  {
    // Mapping waits for the GL read-backs into the buffers before the copies on the stream.
    srt::gl::CudaGlMapping map(buffers, r.stream);
    for (size_t f = 0; f < buffers.size(); ++f)
      SRT_CUDA_CHECK(cudaMemcpyAsync(r.fields[f].dst, map.pointer(f),
                                     size_t(kept) * r.fields[f].bytes, cudaMemcpyDeviceToDevice,
                                     r.stream));
    map.unmap();
  }
  SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, &hostCount_, 4, cudaMemcpyHostToDevice, r.stream));
  SRT_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  transferMs_ += msSince(t1);
}

}  // namespace srt::compaction::gl
