// Owned GL objects (move-only, released without throwing) and the stream layout: a 1D stream
// stored row by row in a 2D texture whose width is a power of two.
#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace srt::gl {

// Element i of a stream lives at texel (i & (width - 1), i >> log2Width).
struct Layout {
  uint32_t count = 0;
  uint32_t log2Width = 0;
  uint32_t width() const { return 1u << log2Width; }
  uint32_t rows() const { return count == 0 ? 0 : ((count - 1) >> log2Width) + 1; }
  uint32_t fullRows() const { return count >> log2Width; }
  uint32_t tail() const { return count & (width() - 1); }  // elements on the last, partial row
};

int maxTextureSize();
// Bytes of one texel of an unsigned integer colour format (R8UI ... RGBA32UI).
uint32_t texelBytes(GLenum internalFormat);
// The narrowest single-channel unsigned format holding values up to maxValue: R8UI, R16UI, R32UI.
GLenum uintFormat(uint64_t maxValue);
// A width for streams of up to `capacity` elements: about square, a power of two, at least
// minWidth, with the rows within the texture size limit. Throws GlError when it cannot fit.
uint32_t chooseLog2Width(uint64_t capacity, uint32_t minWidth);

class Texture {
 public:
  Texture() = default;
  Texture(GLenum internalFormat, uint32_t width, uint32_t rows);
  ~Texture() { release(); }
  Texture(Texture&& o) noexcept { *this = std::move(o); }
  Texture& operator=(Texture&& o) noexcept;
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;

  GLuint id() const { return id_; }
  GLuint framebuffer();  // made on first use, with this texture as colour attachment 0
  uint32_t width() const { return width_; }
  uint32_t rows() const { return rows_; }
  GLenum format() const { return format_; }

 private:
  void release() noexcept;
  GLuint id_ = 0, fbo_ = 0;
  uint32_t width_ = 0, rows_ = 0;
  GLenum format_ = 0;
};

class BufferObject {
 public:
  BufferObject() = default;
  explicit BufferObject(size_t bytes, GLenum usage = GL_DYNAMIC_COPY);
  // Adopts a buffer made elsewhere (storage on imported memory); deleted with this object.
  static BufferObject adopt(GLuint id, size_t bytes);
  ~BufferObject() { release(); }
  BufferObject(BufferObject&& o) noexcept { *this = std::move(o); }
  BufferObject& operator=(BufferObject&& o) noexcept;
  BufferObject(const BufferObject&) = delete;
  BufferObject& operator=(const BufferObject&) = delete;
  GLuint id() const { return id_; }
  size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  GLuint id_ = 0;
  size_t bytes_ = 0;
};

// A buffer seen as a texture (texelFetch on a usamplerBuffer): streams that arrive in buffers
// (uploads, CUDA interop) are read where they are, without filling a 2D texture first. view() is
// called for every use: a buffer re-created under a reused name must not leave a stale view.
class BufferTexture {
 public:
  BufferTexture() = default;
  ~BufferTexture() { release(); }
  BufferTexture(const BufferTexture&) = delete;
  BufferTexture& operator=(const BufferTexture&) = delete;
  // Views `bytes` of `buffer` (a multiple of the texel size) as texels of `internalFormat`.
  void view(GLenum internalFormat, GLuint buffer, size_t bytes);
  GLuint id() const { return id_; }

 private:
  void release() noexcept;
  GLuint id_ = 0;
};

// A linked program. Sources are complete GLSL; `name` appears in compile and link errors.
// Transform feedback varyings go to separate buffers (binding k: varying k).
class Program {
 public:
  struct Stage {
    GLenum type;
    std::string source;
  };
  Program() = default;
  Program(const std::string& name, const std::vector<Stage>& stages,
          const std::vector<const char*>& feedbackVaryings = {});
  ~Program() { release(); }
  Program(Program&& o) noexcept { *this = std::move(o); }
  Program& operator=(Program&& o) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  GLuint id() const { return id_; }
  void use() const;
  // Uniform setters; a name the linker removed is ignored (location -1), as GL does.
  void set(const char* name, uint32_t v);
  void set(const char* name, int v);
  void bindTexture(const char* sampler, int unit, const Texture& t);
  void bindTexture(const char* sampler, int unit, GLuint texture);

 private:
  GLint location(const char* name);
  void release() noexcept;
  GLuint id_ = 0;
  std::string name_;
  std::unordered_map<std::string, GLint> locations_;
};

// Scratch textures by name, grown (never shrunk) so a bounce loop allocates nothing.
class TexturePool {
 public:
  Texture& get(const std::string& key, GLenum internalFormat, uint32_t width, uint32_t rows);

 private:
  std::unordered_map<std::string, Texture> textures_;
};

// GPU time between named points of a GL command stream (GL_TIMESTAMP queries), read back once
// the work is done.
class StepTimer {
 public:
  ~StepTimer();
  void start();                 // first point
  void mark(const char* step);  // the time since the previous point is `step`'s
  // Waits for the queries; milliseconds per step, in the order marked.
  std::vector<std::pair<std::string, double>> read();

 private:
  std::vector<GLuint> pool_;
  std::vector<std::string> names_;
  size_t used_ = 0;
  GLuint next();
};

// Moves `layout.count` texels between memory and a texture: the full rows, then the tail row.
// `pixels` is a host pointer, or a byte offset when a pixel-unpack/pack buffer is bound.
void uploadTexels(const Texture& t, const Layout& layout, GLenum format, GLenum type,
                  uint32_t texelBytes, const void* pixels);
void downloadTexels(const Texture& t, const Layout& layout, GLenum format, GLenum type,
                    uint32_t texelBytes, void* pixels, size_t bufferBytes);
// Reads the first `bytes` of a stream of unsigned integer texels stored row by row in `t`, into
// host memory (`pixels`) or, with a pixel-pack buffer bound, at byte offset `pixels` of it. A
// last texel only partly inside `bytes` goes through a bounce copy on the host; into a buffer it
// is read whole, so the buffer needs room up to the next texel.
void downloadStream(const Texture& t, uint64_t bytes, void* pixels, bool packBuffer);

}  // namespace srt::gl
