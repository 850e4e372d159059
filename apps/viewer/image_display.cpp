#include "apps/viewer/image_display.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "primitives/gl/gl_context.h"

namespace srt::viewer {
namespace {

// One triangle covering the viewport, its corners from gl_VertexID (no vertex buffer).
const char* kVertexShader = R"(#version 330 core
out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

// Image row 0 is the top of the picture, texture row 0 the bottom: flip v.
const char* kFragmentShader = R"(#version 330 core
in vec2 uv;
out vec4 color;
uniform sampler2D image;
uniform float exposureScale;
float srgb(float v) {
  v = clamp(v, 0.0, 1.0);
  return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}
void main() {
  vec3 c = texture(image, vec2(uv.x, 1.0 - uv.y)).rgb * exposureScale;
  color = vec4(srgb(c.r), srgb(c.g), srgb(c.b), 1.0);
}
)";

// Pixel-store state a GL primitive may have changed, back to the defaults these copies assume.
void resetPixelStore() {
  for (GLenum p :
       {GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS, GL_UNPACK_IMAGE_HEIGHT,
        GL_UNPACK_SKIP_IMAGES, GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS})
    glPixelStorei(p, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
}

GLuint compile(GLenum type, const char* source) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw gl::GlError(std::string("viewer display shader: ") + log);
  }
  return s;
}

}  // namespace

ImageDisplay::ImageDisplay() {
  const GLuint vs = compile(GL_VERTEX_SHADER, kVertexShader);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kFragmentShader);
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) throw gl::GlError("viewer display program: link failed");
  exposureLocation_ = glGetUniformLocation(program_, "exposureScale");
  glUseProgram(program_);
  glUniform1i(glGetUniformLocation(program_, "image"), 0);
  SRT_GL_CHECK(glGenVertexArrays(1, &vertexArray_));
}

ImageDisplay::~ImageDisplay() {
  glDeleteTextures(1, &texture_);
  glDeleteVertexArrays(1, &vertexArray_);
  glDeleteProgram(program_);
}

void ImageDisplay::resize(int width, int height) {
  if (texture_ && width == width_ && height == height_) return;
  glDeleteTextures(1, &texture_);
  glGenTextures(1, &texture_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  SRT_GL_CHECK(
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB32F, width, height, 0, GL_RGB, GL_FLOAT, nullptr));
  width_ = width;
  height_ = height;
}

void ImageDisplay::uploadFromHost(const Image& image) {
  resize(image.width, image.height);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  resetPixelStore();
  glBindTexture(GL_TEXTURE_2D, texture_);
  SRT_GL_CHECK(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, GL_RGB, GL_FLOAT,
                               image.pixels.data()));
}

void ImageDisplay::uploadFromPixelBuffer(GLuint buffer) {
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  resetPixelStore();
  glBindTexture(GL_TEXTURE_2D, texture_);
  SRT_GL_CHECK(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGB, GL_FLOAT, nullptr));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

void ImageDisplay::draw(const PixelRect& viewport, int fbWidth, int fbHeight, float exposureStops) {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_STENCIL_TEST);
  glDisable(GL_RASTERIZER_DISCARD);  // transform-feedback passes turn it on
  glDisable(GL_FRAMEBUFFER_SRGB);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glViewport(0, 0, fbWidth, fbHeight);
  glClearColor(0.08f, 0.08f, 0.09f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (!texture_ || width_ <= 0 || height_ <= 0 || viewport.width <= 0 || viewport.height <= 0)
    return;
  glViewport(viewport.x, viewport.y, viewport.width, viewport.height);
  glUseProgram(program_);
  glUniform1f(exposureLocation_, std::exp2(exposureStops));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glBindVertexArray(vertexArray_);
  SRT_GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
  glBindVertexArray(0);
  glViewport(0, 0, fbWidth, fbHeight);
}

Image readWindowPixels(int fbWidth, int fbHeight) {
  std::vector<unsigned char> rgb(size_t(fbWidth) * size_t(fbHeight) * 3);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  resetPixelStore();
  SRT_GL_CHECK(glReadPixels(0, 0, fbWidth, fbHeight, GL_RGB, GL_UNSIGNED_BYTE, rgb.data()));
  Image image(fbWidth, fbHeight);
  for (int y = 0; y < fbHeight; ++y)
    for (int x = 0; x < fbWidth; ++x) {
      const unsigned char* p = &rgb[(size_t(fbHeight - 1 - y) * fbWidth + x) * 3];
      image.at(x, y) = {srgbToLinear(p[0] / 255.f), srgbToLinear(p[1] / 255.f),
                        srgbToLinear(p[2] / 255.f)};
    }
  return image;
}

}  // namespace srt::viewer
