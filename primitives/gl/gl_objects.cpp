#include "primitives/gl/gl_objects.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "primitives/gl/gl_context.h"

namespace srt::gl {
namespace {
uint32_t log2u32(uint32_t v) {
  uint32_t r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
}  // namespace

int maxTextureSize() {
  GLint v = 0;
  SRT_GL_CHECK(glGetIntegerv(GL_MAX_TEXTURE_SIZE, &v));
  return v;
}

uint32_t texelBytes(GLenum f) {
  switch (f) {
    case GL_R8UI:
      return 1;
    case GL_R16UI:
    case GL_RG8UI:
      return 2;
    case GL_R32UI:
    case GL_RG16UI:
    case GL_RGBA8UI:
      return 4;
    case GL_RG32UI:
    case GL_RGBA16UI:
      return 8;
    case GL_RGBA32UI:
      return 16;
  }
  throw GlError("texelBytes: not an unsigned integer colour format (0x" + std::to_string(f) + ")");
}

GLenum uintFormat(uint64_t maxValue) {
  return maxValue <= 0xff ? GL_R8UI : maxValue <= 0xffff ? GL_R16UI : GL_R32UI;
}

uint32_t chooseLog2Width(uint64_t capacity, uint32_t minWidth) {
  const uint64_t maxSize = uint64_t(maxTextureSize());
  uint32_t log2w = 0;
  while ((1ull << log2w) < minWidth) ++log2w;
  // About square: width = 2^ceil(log2(sqrt(capacity))).
  while ((1ull << (2 * log2w)) < capacity) ++log2w;
  if ((1ull << log2w) > maxSize) log2w = uint32_t(std::log2(double(maxSize)));
  const uint64_t rows = (capacity + (1ull << log2w) - 1) >> log2w;
  if ((1ull << log2w) < minWidth || rows > maxSize)
    throw GlError("a stream of " + std::to_string(capacity) + " elements does not fit a " +
                  std::to_string(maxSize) + "x" + std::to_string(maxSize) + " texture");
  return log2w;
}

Texture::Texture(GLenum internalFormat, uint32_t width, uint32_t rows)
    : width_(width), rows_(std::max(rows, 1u)), format_(internalFormat) {
  SRT_GL_CHECK(glCreateTextures(GL_TEXTURE_2D, 1, &id_));
  SRT_GL_CHECK(glTextureStorage2D(id_, 1, internalFormat, GLsizei(width_), GLsizei(rows_)));
  SRT_GL_CHECK(glTextureParameteri(id_, GL_TEXTURE_MIN_FILTER, GL_NEAREST));
  SRT_GL_CHECK(glTextureParameteri(id_, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
}

Texture& Texture::operator=(Texture&& o) noexcept {
  if (this != &o) {
    release();
    std::swap(id_, o.id_);
    std::swap(fbo_, o.fbo_);
    std::swap(width_, o.width_);
    std::swap(rows_, o.rows_);
    std::swap(format_, o.format_);
  }
  return *this;
}

GLuint Texture::framebuffer() {
  if (!fbo_) {
    SRT_GL_CHECK(glCreateFramebuffers(1, &fbo_));
    SRT_GL_CHECK(glNamedFramebufferTexture(fbo_, GL_COLOR_ATTACHMENT0, id_, 0));
    const GLenum status = glCheckNamedFramebufferStatus(fbo_, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
      throw GlError("framebuffer for a " + std::to_string(width_) + "x" + std::to_string(rows_) +
                    " texture is incomplete (status 0x" + std::to_string(status) + ")");
  }
  return fbo_;
}

void Texture::release() noexcept {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (id_) glDeleteTextures(1, &id_);
  fbo_ = id_ = 0;
}

BufferObject::BufferObject(size_t bytes, GLenum usage) : bytes_(bytes) {
  SRT_GL_CHECK(glCreateBuffers(1, &id_));
  SRT_GL_CHECK(glNamedBufferData(id_, GLsizeiptr(std::max<size_t>(bytes, 4)), nullptr, usage));
}

BufferObject BufferObject::adopt(GLuint id, size_t bytes) {
  BufferObject b;
  b.id_ = id;
  b.bytes_ = bytes;
  return b;
}

BufferObject& BufferObject::operator=(BufferObject&& o) noexcept {
  if (this != &o) {
    release();
    std::swap(id_, o.id_);
    std::swap(bytes_, o.bytes_);
  }
  return *this;
}

void BufferObject::release() noexcept {
  if (id_) glDeleteBuffers(1, &id_);
  id_ = 0;
}

void BufferTexture::view(GLenum internalFormat, GLuint buffer, size_t bytes) {
  if (!id_) SRT_GL_CHECK(glCreateTextures(GL_TEXTURE_BUFFER, 1, &id_));
  SRT_GL_CHECK(glTextureBufferRange(id_, internalFormat, buffer, 0, GLsizeiptr(bytes)));
}

void BufferTexture::release() noexcept {
  if (id_) glDeleteTextures(1, &id_);
  id_ = 0;
}

namespace {
std::string infoLog(GLuint object, bool program) {
  GLint len = 0;
  program ? glGetProgramiv(object, GL_INFO_LOG_LENGTH, &len)
          : glGetShaderiv(object, GL_INFO_LOG_LENGTH, &len);
  std::string log(size_t(std::max(len, 1)), '\0');
  program ? glGetProgramInfoLog(object, len, nullptr, log.data())
          : glGetShaderInfoLog(object, len, nullptr, log.data());
  return log.c_str();
}
}  // namespace

Program::Program(const std::string& name, const std::vector<Stage>& stages,
                 const std::vector<const char*>& feedbackVaryings)
    : name_(name) {
  id_ = glCreateProgram();
  std::vector<GLuint> shaders;
  for (const Stage& st : stages) {
    const GLuint sh = glCreateShader(st.type);
    const char* src = st.source.c_str();
    glShaderSource(sh, 1, &src, nullptr);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
      const std::string log = infoLog(sh, false);
      glDeleteShader(sh);
      for (GLuint s : shaders) glDeleteShader(s);
      release();
      throw GlError("shader '" + name + "' does not compile:\n" + log);
    }
    glAttachShader(id_, sh);
    shaders.push_back(sh);
  }
  if (!feedbackVaryings.empty())
    glTransformFeedbackVaryings(id_, GLsizei(feedbackVaryings.size()), feedbackVaryings.data(),
                                GL_SEPARATE_ATTRIBS);  // one buffer per varying
  glLinkProgram(id_);
  for (GLuint s : shaders) glDeleteShader(s);
  GLint ok = 0;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = infoLog(id_, true);
    release();
    throw GlError("program '" + name + "' does not link:\n" + log);
  }
  SRT_GL_CHECK((void)0);
}

Program& Program::operator=(Program&& o) noexcept {
  if (this != &o) {
    release();
    std::swap(id_, o.id_);
    std::swap(name_, o.name_);
    std::swap(locations_, o.locations_);
  }
  return *this;
}

void Program::release() noexcept {
  if (id_) glDeleteProgram(id_);
  id_ = 0;
}

void Program::use() const {
  SRT_GL_CHECK(glUseProgram(id_));
}

GLint Program::location(const char* name) {
  auto it = locations_.find(name);
  if (it != locations_.end()) return it->second;
  const GLint loc = glGetUniformLocation(id_, name);
  locations_.emplace(name, loc);
  return loc;
}

void Program::set(const char* name, uint32_t v) {
  const GLint loc = location(name);
  if (loc >= 0) SRT_GL_CHECK(glProgramUniform1ui(id_, loc, v));
}

void Program::set(const char* name, int v) {
  const GLint loc = location(name);
  if (loc >= 0) SRT_GL_CHECK(glProgramUniform1i(id_, loc, v));
}

void Program::bindTexture(const char* sampler, int unit, const Texture& t) {
  bindTexture(sampler, unit, t.id());
}

void Program::bindTexture(const char* sampler, int unit, GLuint texture) {
  SRT_GL_CHECK(glBindTextureUnit(GLuint(unit), texture));
  set(sampler, unit);
}

Texture& TexturePool::get(const std::string& key, GLenum internalFormat, uint32_t width,
                          uint32_t rows) {
  Texture& t = textures_[key];
  if (t.id() == 0 || t.format() != internalFormat || t.width() != width || t.rows() < rows)
    t = Texture(internalFormat, width, rows);
  return t;
}

StepTimer::~StepTimer() {
  if (!pool_.empty()) glDeleteQueries(GLsizei(pool_.size()), pool_.data());
}

GLuint StepTimer::next() {
  if (used_ == pool_.size()) {
    pool_.resize(pool_.size() + 16);
    SRT_GL_CHECK(glGenQueries(16, pool_.data() + used_));
  }
  return pool_[used_++];
}

void StepTimer::start() {
  used_ = 0;
  names_.clear();
  SRT_GL_CHECK(glQueryCounter(next(), GL_TIMESTAMP));
}

void StepTimer::mark(const char* step) {
  SRT_GL_CHECK(glQueryCounter(next(), GL_TIMESTAMP));
  names_.emplace_back(step);
}

std::vector<std::pair<std::string, double>> StepTimer::read() {
  std::vector<std::pair<std::string, double>> out;
  GLuint64 prev = 0;
  for (size_t i = 0; i < used_; ++i) {
    GLuint64 t = 0;
    SRT_GL_CHECK(glGetQueryObjectui64v(pool_[i], GL_QUERY_RESULT, &t));
    if (i > 0) {
      // The same step marked twice (one per field) adds up.
      const std::string& name = names_[i - 1];
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == name; });
      const double ms = double(t - prev) * 1e-6;
      if (it == out.end())
        out.emplace_back(name, ms);
      else
        it->second += ms;
    }
    prev = t;
  }
  return out;
}

void uploadTexels(const Texture& t, const Layout& l, GLenum format, GLenum type,
                  uint32_t texelBytes, const void* pixels) {
  const auto* p = static_cast<const char*>(pixels);
  SRT_GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 1));
  if (l.fullRows() > 0)
    SRT_GL_CHECK(glTextureSubImage2D(t.id(), 0, 0, 0, GLsizei(l.width()), GLsizei(l.fullRows()),
                                     format, type, p));
  if (l.tail() > 0)
    SRT_GL_CHECK(glTextureSubImage2D(t.id(), 0, 0, GLint(l.fullRows()), GLsizei(l.tail()), 1,
                                     format, type,
                                     p + size_t(l.fullRows()) * l.width() * texelBytes));
}

void downloadTexels(const Texture& t, const Layout& l, GLenum format, GLenum type,
                    uint32_t texelBytes, void* pixels, size_t bufferBytes) {
  auto* p = static_cast<char*>(pixels);
  const size_t fullBytes = size_t(l.fullRows()) * l.width() * texelBytes;
  SRT_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  if (l.fullRows() > 0)
    SRT_GL_CHECK(glGetTextureSubImage(t.id(), 0, 0, 0, 0, GLsizei(l.width()), GLsizei(l.fullRows()),
                                      1, format, type,
                                      GLsizei(std::min<size_t>(fullBytes, 0x7fffffff)), p));
  if (l.tail() > 0)
    SRT_GL_CHECK(glGetTextureSubImage(t.id(), 0, 0, GLint(l.fullRows()), 0, GLsizei(l.tail()), 1, 1,
                                      format, type, GLsizei(size_t(l.tail()) * texelBytes),
                                      p + fullBytes));
}

void downloadStream(const Texture& t, uint64_t bytes, void* pixels, bool packBuffer) {
  const uint32_t tb = texelBytes(t.format());
  GLenum format = GL_RED_INTEGER, type = GL_UNSIGNED_INT;
  switch (t.format()) {
    case GL_R8UI:
      type = GL_UNSIGNED_BYTE;
      break;
    case GL_R16UI:
      type = GL_UNSIGNED_SHORT;
      break;
    case GL_R32UI:
      break;
    case GL_RG32UI:
      format = GL_RG_INTEGER;
      break;
    case GL_RGBA32UI:
      format = GL_RGBA_INTEGER;
      break;
    default:
      throw GlError("downloadStream: unsupported texture format");
  }
  const uint64_t whole = bytes / tb;
  const bool partial = bytes % tb != 0;
  const Layout l{uint32_t(whole + (partial && packBuffer ? 1 : 0)), log2u32(t.width())};
  auto* p = static_cast<char*>(pixels);
  downloadTexels(t, l, format, type, tb, p, size_t(l.count) * tb);
  if (!partial || packBuffer) return;
  uint8_t last[16] = {};
  SRT_GL_CHECK(glGetTextureSubImage(t.id(), 0, GLint(whole & (t.width() - 1)),
                                    GLint(whole / t.width()), 0, 1, 1, 1, format, type, tb, last));
  std::memcpy(p + whole * tb, last, size_t(bytes % tb));
}

}  // namespace srt::gl
