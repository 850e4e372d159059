#include "primitives/compaction/gl/gl_stream_compactor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "primitives/common/memory.h"
#include "primitives/gl/external_buffer.h"
#include "primitives/gl/gl_context.h"
#include "primitives/gl/interop_wait.h"

namespace srt::compaction::gl {

GlStreamCompactor::CurrentContext::CurrentContext() {
  srt::gl::ensureCurrentContext();
}

namespace {
// CUDA when there is a device and GL runs on it (same UUID) or on NVIDIA's driver at all.
MemorySpace likelyStreamMemory() {
  if (!cudaDeviceAvailable()) return MemorySpace::Host;
  srt::gl::vulkan::Uuid glUuid{}, cudaUuid{};
  if (srt::gl::glDeviceUuid(&glUuid) && srt::gl::cudaDeviceUuid(&cudaUuid) && glUuid == cudaUuid)
    return MemorySpace::Cuda;
  const auto* vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
  return vendor && std::strstr(vendor, "NVIDIA") ? MemorySpace::Cuda : MemorySpace::Host;
}
}  // namespace

// Besides the layouts: the one-time work a render should not pay inside its loop, as cub
// allocates its temporary storage here. The programs are compiled (and the interop picked, and
// its shared buffers made at full size) by small compactions of the common shapes in the memory
// the streams most likely live in: CUDA when GL runs on the CUDA device.
void GlStreamCompactor::reserve(uint32_t maxCount) {
  srt::gl::ensureCurrentContext();
  grow(maxCount);
  if (warmedUp_) return;
  warmedUp_ = true;
  const MemorySpace space = likelyStreamMemory();
  const uint32_t n = std::min<uint32_t>(std::max(maxCount, 1u), 4096);
  std::vector<uint8_t> keep(n);
  for (uint32_t i = 0; i < n; ++i) keep[i] = uint8_t(i % 5 < 3);
  const Buffer<uint8_t> dKeep(space, keep);
  const RawBuffer src(space, size_t(n) * 64), dst(space, size_t(n) * 64);
  const RawBuffer kept(space, 4);
  for (const uint32_t bytes : {4u, 16u}) {  // one index-like field; the path state's four
    std::vector<Field> fields;
    for (uint32_t f = 0; f < (bytes == 4 ? 1u : 4u); ++f)
      fields.push_back({static_cast<const char*>(src.data()) + size_t(f) * n * bytes,
                        static_cast<char*>(dst.data()) + size_t(f) * n * bytes, bytes});
    Request r;
    r.keep = dKeep.data();
    r.fields = fields.data();
    r.numFields = int(fields.size());
    r.count = n;
    r.numKept = static_cast<uint32_t*>(kept.data());
    r.memory = space;
    compact(r);
    finalize();
  }
  buffers_.prepare(space, maxCount);
  // SRT_GL_INTEROP_STATS counts the caller's calls, not these.
  totals_.clear();
  totalTransferMs_ = 0;
  calls_ = 0;
}

void GlStreamCompactor::grow(uint32_t maxCount) {
  if (maxCount <= capacity_ && capacity_ > 0) return;
  capacity_ = std::max(maxCount, 1u);
  // Room for the block padding; every layout of a kind shares its width.
  const uint64_t padded = uint64_t(capacity_) + 2048;
  elemLog2w_ = srt::gl::chooseLog2Width(padded, minWidth());
  quadLog2w_ = srt::gl::chooseLog2Width(padded / 4 + 1, 1);
  groupLog2w_ = srt::gl::chooseLog2Width(padded / 128 + 1, 1);
  blockLog2w_ = srt::gl::chooseLog2Width(padded / 8 + 1, 1);
  quadOutLog2w_ = srt::gl::chooseLog2Width(padded / 4 + 1, std::max(minWidth() / 2, 1u));
}

uint32_t GlStreamCompactor::readKept() {
  const char* what = "GL compaction: the survivor count";
  lastKept_ = hostCount_.pending() ? hostCount_.take(what) : keptCount();
  return lastKept_;
}

GLenum GlStreamCompactor::fieldFormat(uint32_t bytes) {
  return bytes % 16 == 0 ? GL_RGBA32UI : bytes % 8 == 0 ? GL_RG32UI : GL_R32UI;
}

uint32_t GlStreamCompactor::readTexel(const Texture& t, uint32_t log2w, uint32_t index) {
  uint32_t v = 0;  // a narrow texel fills only its low bytes
  srt::gl::copyTexel(t, log2w, index, 0, &v);
  return v;
}

bool GlStreamCompactor::fusable(const Request& r) const {
  if (r.numFields < 1 || uint32_t(r.numFields) > maxFusedFields()) return false;
  for (int f = 0; f < r.numFields; ++f)
    if (r.fields[f].bytes != 4 && r.fields[f].bytes != 8 && r.fields[f].bytes != 16) return false;
  return true;
}

void GlStreamCompactor::Emit::bind(Program& p) const {
  if (!fused) return;
  for (size_t f = 0; f < owner->fields_.size(); ++f)
    p.bindTexture(("field" + std::to_string(f)).c_str(), kUnitField + int(f),
                  owner->fieldViews_[f]->id());
}

bool GlStreamCompactor::payloadOnStream(const Request& r) const {
  return options_.payload == PayloadSide::Stream ||
         (options_.payload == PayloadSide::Auto && r.memory == MemorySpace::Cuda);
}

// `indicesOnly`: the final pass writes the survivors' indices whatever the fields (the stream
// side moves them).
GlStreamCompactor::Emit GlStreamCompactor::makeEmit(const Request& r, uint32_t n,
                                                    bool indicesOnly) {
  Emit e;
  e.owner = this;
  e.layout = {n, elemLog2w_};
  if (r.numFields == 0) return e;
  e.fused = !indicesOnly && fusable(r);
  const int outputs = e.fused ? r.numFields : 1;
  e.quad = wantsQuad() && !writesBuffers();
  for (int f = 0; f < outputs && e.fused; ++f) e.quad &= r.fields[f].bytes == 4;
  if (e.quad) e.layout = {(n + 3) / 4, quadOutLog2w_};
  e.bands = e.quad && indicesOnly && wantsBands() && buffers_.readsIndexBands();
  const uint32_t band = 2u << quadOutLog2w_;
  if (e.bands) e.layout.count = (e.layout.count + band - 1) / band * band;
  // emitSource() for a fragment stage (render targets) and a geometry stage (varyings), or
  // emitQuad() for a fragment stage writing four elements per texel.
  std::string frag, geom, body, quad;
  for (int f = 0; f < outputs; ++f) {
    const uint32_t bytes = e.fused ? r.fields[f].bytes : 4;
    const std::string k = std::to_string(f);
    const char* type = e.quad ? "uvec4" : bytes == 16 ? "uvec4" : bytes == 8 ? "uvec2" : "uint";
    const char* swizzle = bytes == 16 ? "" : bytes == 8 ? ".rg" : ".r";
    frag += "layout(location = " + k + ") out " + type + " out" + k + ";\n";
    geom += "flat out " + std::string(type) + " out" + k + ";\n";
    const std::string value = e.fused ? "texelFetch(field" + k + ", int(src))" + swizzle : "src";
    if (e.fused) {
      frag += "uniform usamplerBuffer field" + k + ";\n";
      geom += "uniform usamplerBuffer field" + k + ";\n";
    }
    body += "  out" + k + " = " + value + ";\n";
    quad += "uint value" + k + "(uint src) { return " + value + "; }\n";
    e.readPerKept += e.fused ? bytes : 0;
    e.writtenPerKept += bytes;
    const GLenum format = e.quad ? GL_RGBA32UI : e.fused ? fieldFormat(bytes) : GL_R32UI;
    if (!writesBuffers()) e.targets.push_back(&passes_.texture("out." + k, format, e.layout));
  }
  if (e.quad) {
    quad += "void emitQuad(uvec4 src, bvec4 valid) {\n";
    for (int f = 0; f < outputs; ++f) {
      const std::string k = std::to_string(f);
      quad += "  out" + k + " = uvec4(";
      for (int c = 0; c < 4; ++c)
        quad += std::string(c ? ", " : "") + "valid[" + std::to_string(c) + "] ? value" + k +
                "(src[" + std::to_string(c) + "]) : 0u";
      quad += ");\n";
    }
    e.fragment = "#define SRT_QUAD\n#ifdef SRT_FRAGMENT\n" + frag + quad + "}\n#endif\n";
    return e;
  }
  const std::string fn = "void emitSource(uint src) {\n" + body + "}\n";
  e.fragment = "#ifdef SRT_FRAGMENT\n" + frag + fn + "#endif\n#ifdef SRT_GEOMETRY\n" + geom + fn +
               "#endif\n";
  return e;
}

void GlStreamCompactor::compact(const Request& r) {
  validate(r);
  if (r.memory != MemorySpace::Host && r.memory != MemorySpace::Cuda)
    throw std::invalid_argument("GL compaction: unknown memory space");
  srt::gl::ensureCurrentContext();
  finalize();  // the last call's timers and stream-side work, before anything is reused
  transferMs_ = 0;
  steps_.clear();
  if (r.count == 0) return writeZeroCount(r);
  const bool byIndices = r.numFields > 0 && payloadOnStream(r);
  uploadInputs(r, byIndices);
  // The timer starts after the upload: its host work and waits are the interop's host time.
  passes_.start();

  const Emit emit = makeEmit(r, r.count, byIndices);
  run(r.count, emit);
  if (byIndices && gatherWithDeviceCount(r, emit)) return;
  const uint32_t kept = waitForPassesAndCount();
  if (!checkedOnCuda(r, kept)) return compact(r);
  passes_.settle(kept);
  if (byIndices)
    gatherOnStream(r, kept, emit);
  else
    moveOutputs(r, kept, emit);
  pending_ = true;
  lastOnStream_ = byIndices;
  lastHost_ = r.memory == MemorySpace::Host;
  if (r.memory == MemorySpace::Cuda && !checkedCuda_ && !countReceivedByCuda(r, kept)) compact(r);
}

void GlStreamCompactor::writeZeroCount(const Request& r) {
  static const uint32_t zero = 0;
  if (r.memory == MemorySpace::Cuda)
    SRT_CUDA_CHECK(cudaMemcpyAsync(r.numKept, &zero, 4, cudaMemcpyHostToDevice, r.stream));
  else
    *r.numKept = 0;
}

void GlStreamCompactor::uploadInputs(const Request& r, bool byIndices) {
  grow(r.count);
  // State a caller's context may have left on (the viewer's).
  for (GLenum cap : {GL_BLEND, GL_DEPTH_TEST, GL_SCISSOR_TEST, GL_CULL_FACE, GL_RASTERIZER_DISCARD,
                     GL_COLOR_LOGIC_OP})
    SRT_GL_CHECK(glDisable(cap));
  fields_.assign(r.fields, r.fields + r.numFields);
  buffers_.upload(r, r.numFields > 0 && !byIndices);
  keepWords_.view(GL_RGBA32UI, buffers_.keep(), buffers_.keepRoom());
  keepBytes_.view(GL_R8UI, buffers_.keep(), buffers_.keepRoom());
  if (!byIndices) viewFields(r);
}

// Every pass done before the count is read (it waits anyway): the host time measured as interop
// from here on then holds no pass still running.
uint32_t GlStreamCompactor::waitForPassesAndCount() {
  const Texture* countAt = nullptr;
  uint32_t countLog2w = 0, countIndex = 0;
  if (countTexel(&countAt, &countLog2w, &countIndex))
    hostCount_.request(*countAt, countLog2w, countIndex);
  const auto w0 = std::chrono::steady_clock::now();
  srt::gl::waitGl(
      "GL compaction: the passes (after the hand-off to GL: " + buffers_.description() + ")",
      std::max(60.0, srt::gl::interopDeadlineSeconds()));
  const auto w1 = std::chrono::steady_clock::now();
  const uint32_t kept = readKept();
  passWaitMs_ = std::chrono::duration<double, std::milli>(w1 - w0).count();
  countMs_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w1).count();
  return kept;
}

void GlStreamCompactor::gatherOnStream(const Request& r, uint32_t kept, const Emit& emit) {
  StreamBuffers::Output indices;
  if (writesBuffers())
    indices.buffer = indexBuffer();
  else
    indices.texture = emit.targets[0];
  indices.bands = emit.bands;
  // Without a read-back, a "readback" mark would time only the GL timeline's gap until the
  // host's next command is flushed: its wake-up from the wait for the passes and its maps,
  // both timed on the host already.
  if (buffers_.readIndices(r, kept, indices)) passes_.mark("readback");
  buffers_.gatherByIndices(r, kept);
}

// The count as CUDA received it, after the stream side's work.
bool GlStreamCompactor::countReceivedByCuda(const Request& r, uint32_t kept) {
  checkedCuda_ = true;
  uint32_t received = 0;
  SRT_CUDA_CHECK(cudaMemcpyAsync(&received, r.numKept, 4, cudaMemcpyDeviceToHost, r.stream));
  srt::gl::waitCudaStream(
      r.stream, "GL compaction: the first count on CUDA (" + buffers_.description() + ")");
  if (received != kept && buffers_.usesHostCopies())
    throw std::runtime_error("GL compaction (" + buffers_.description() +
                             "): CUDA received the count " + std::to_string(received) +
                             ", GL computed " + std::to_string(kept));
  if (received == kept) return true;
  buffers_.fallBackToHostCopies("CUDA received the count " + std::to_string(received) +
                                ", GL computed " + std::to_string(kept));
  checkedCuda_ = false;
  pending_ = false;
  return false;
}

bool GlStreamCompactor::checkedOnCuda(const Request& r, uint32_t kept) {
  if (r.memory != MemorySpace::Cuda || checkedCuda_ || buffers_.usesHostCopies()) return true;
  std::vector<uint8_t> keep(r.count);
  SRT_CUDA_CHECK(cudaMemcpyAsync(keep.data(), r.keep, r.count, cudaMemcpyDeviceToHost, r.stream));
  srt::gl::waitCudaStream(r.stream, "GL compaction: the keep flags for the first check");
  uint32_t want = 0;
  for (uint8_t k : keep) want += k != 0;
  if (want == kept) return true;
  buffers_.fallBackToHostCopies("GL counted " + std::to_string(kept) + " kept of " +
                                std::to_string(r.count) + ", the flags say " +
                                std::to_string(want));
  return false;
}

void GlStreamCompactor::viewFields(const Request& r) {
  GLint maxTexels = 0;
  SRT_GL_CHECK(glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &maxTexels));
  while (fieldViews_.size() < fields_.size())
    fieldViews_.push_back(std::make_unique<BufferTexture>());
  for (size_t f = 0; f < fields_.size(); ++f) {
    const GLenum format = fieldFormat(fields_[f].bytes);
    const uint64_t bytes = uint64_t(r.count) * fields_[f].bytes;
    if (bytes / srt::gl::texelBytes(format) > uint64_t(maxTexels))
      throw std::invalid_argument("GL compaction: field " + std::to_string(f) + " (" +
                                  std::to_string(bytes) + " bytes) exceeds the " +
                                  std::to_string(maxTexels) + "-texel buffer texture limit");
    fieldViews_[f]->view(format, buffers_.field(int(f)), (bytes + 15) / 16 * 16);
  }
}

// payload=gl: the fields as the final pass wrote them, or gathered by GL passes from the
// indices, then read back.
void GlStreamCompactor::moveOutputs(const Request& r, uint32_t kept, const Emit& emit) {
  std::vector<StreamBuffers::Output> outputs(fields_.size());
  if (emit.fused) {
    for (size_t f = 0; f < fields_.size(); ++f) {
      if (writesBuffers())
        outputs[f].buffer = outputBuffer(int(f));
      else
        outputs[f].texture = emit.targets[f];
    }
  } else if (!fields_.empty() && kept > 0) {
    gather(kept, emit);
    for (size_t f = 0; f < fields_.size(); ++f) outputs[f].texture = outputs_[f];
  }
  buffers_.readOutputs(r, kept, outputs);
  passes_.mark("readback");
  buffers_.copyOutputs(r, kept);
}

bool GlStreamCompactor::gatherWithDeviceCount(const Request& r, const Emit& emit) {
  const Texture* t = nullptr;
  uint32_t log2w = 0, index = 0;
  // After the first call's check, which needs the count on the host.
  if (r.memory != MemorySpace::Cuda || !checkedCuda_ || !buffers_.countOnDevice() ||
      writesBuffers() || emit.targets.empty() || !countTexel(&t, &log2w, &index))
    return false;
  buffers_.packCount(*t, log2w, index);
  hostCount_.request(*t, log2w, index);  // for finalize(): the records' bytes
  passes_.mark("count to CUDA");
  buffers_.gatherWithDeviceCount(r, *emit.targets[0], emit.bands);
  passWaitMs_ = countMs_ = 0;
  settleLater_ = true;
  pending_ = true;
  lastOnStream_ = true;
  lastHost_ = false;
  return true;
}

void GlStreamCompactor::finalize() {
  if (!pending_) return;
  pending_ = false;
  if (settleLater_) passes_.settle(readKept());  // GL is long done by now
  settleLater_ = false;
  steps_ = passes_.readTimes();
  const StreamBuffers::Times t = buffers_.finish();
  transferMs_ = t.hostMs + t.streamCopyMs;
  // GL's read-back, unless a host wait already covered it.
  for (const auto& [name, ms] : steps_)
    if (name == "readback" && !t.readbackWaited) transferMs_ += ms;
  if (t.gathered)
    steps_.emplace_back(lastHost_ ? "payload gather (host)" : "payload gather (cuda)", t.gatherMs);
  // Host time, apart from the GL timers: where the interop's share goes, and the waits for GL.
  for (const auto& [name, ms] : {std::pair<const char*, double>{"host: interop map", t.mapMs},
                                 {"host: interop unmap", t.unmapMs},
                                 {"host: interop copies in", t.copyInMs},
                                 {"host: interop waits", t.waitMs},
                                 {"host: interop total", t.hostMs},
                                 {"host: wait for the passes", passWaitMs_},
                                 {"host: count read-back", countMs_}})
    steps_.emplace_back(name, ms);
  ++calls_;
  totalTransferMs_ += transferMs_;
  for (const auto& [name, ms] : steps_) {
    auto it = std::find_if(totals_.begin(), totals_.end(),
                           [&](const auto& e) { return e.first == name; });
    if (it == totals_.end())
      totals_.emplace_back(name, ms);
    else
      it->second += ms;
  }
}

GlStreamCompactor::~GlStreamCompactor() {
  if (!std::getenv("SRT_GL_INTEROP_STATS") || calls_ == 0) return;
  try {
    finalize();
  } catch (...) {
  }
  std::fprintf(stderr, "streamrt: GL compaction, %llu calls (%s), totals in ms: interop %.3f",
               (unsigned long long)calls_, buffers_.description().c_str(), totalTransferMs_);
  for (const auto& [name, ms] : totals_)
    if (ms != 0 || name.rfind("host: ", 0) != 0)
      std::fprintf(stderr, "; %s %.3f", name.c_str(), ms);
  std::fprintf(stderr, "\n");
}

double GlStreamCompactor::lastTransferMs() const {
  // The times come in once the call's queued work is done; reading them changes nothing else.
  const_cast<GlStreamCompactor*>(this)->finalize();
  return transferMs_;
}

std::vector<std::pair<std::string, double>> GlStreamCompactor::lastStepTimes() const {
  const_cast<GlStreamCompactor*>(this)->finalize();
  return steps_;
}

std::string GlStreamCompactor::choiceSummary() const {
  if (buffers_.description().empty()) return {};
  return "interop: " + buffers_.description() + "; payload: " +
         (lastOnStream_ ? (lastHost_ ? "gathered on the host" : "gathered by CUDA") +
                              std::string(" from GL's survivor indices")
                        : std::string("written by GL"));
}

void GlStreamCompactor::gather(uint32_t kept, const Emit& emit) {
  const Texture* indices = writesBuffers() ? nullptr : emit.targets[0];
  if (!indices) indexView_.view(GL_R32UI, indexBuffer(), (size_t(kept) * 4 + 15) / 16 * 16);
  outputs_.assign(fields_.size(), nullptr);
  for (size_t f = 0; f < fields_.size(); ++f) {
    const uint32_t words = fields_[f].bytes / 4;
    const uint32_t unit = srt::gl::texelBytes(fieldFormat(fields_[f].bytes)) / 4;
    const uint64_t totalWords = uint64_t(kept) * words;
    const uint32_t log2w = srt::gl::chooseLog2Width(uint64_t(capacity_) * words / 4 + 1, 1);
    const Layout out{uint32_t((totalWords + 3) / 4), log2w};
    Texture& t = passes_.texture("gathered." + std::to_string(f), GL_RGBA32UI, out);
    const std::string defines = "#define FIELD_UNIT " + std::to_string(unit) + "\n" +
                                (!indices    ? "#define SRT_INDEX_BUFFER\n"
                                 : emit.quad ? "#define SRT_INDEX_QUAD\n"
                                             : "");
    Program& p = passes_.program("gather.frag", defines);
    if (indices) {
      p.bindTexture("indices", 0, *indices);
      p.set("indexLog2w", emit.layout.log2Width);
    } else {
      p.bindTexture("indexBuffer", 0, indexView_.id());
    }
    p.bindTexture("field", kUnitField, fieldViews_[f]->id());
    p.set("wordsPerElement", words);
    p.set("totalWords", uint32_t(totalWords));
    p.set("log2w", log2w);
    passes_.draw(p, t, out, uint64_t(kept) * (4 + fields_[f].bytes));
    outputs_[f] = &t;
  }
  passes_.mark("gather");
}

}  // namespace srt::compaction::gl
