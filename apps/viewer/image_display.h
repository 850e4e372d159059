// Shows the accumulated image in the window: a float texture drawn as one full-screen triangle
// (GL 3.3 core), with exposure and the sRGB transfer applied in the fragment shader.
//
// Every draw() binds all the state it uses (framebuffer 0, viewport, program, vertex array,
// texture, blend and depth off), because a GL compaction primitive may have run on this same
// context since the last frame and left its own bindings behind.
#pragma once

#include <epoxy/gl.h>

#include "apps/viewer/layout.h"
#include "base/image_io.h"

namespace srt::viewer {

class ImageDisplay {
 public:
  ImageDisplay();  // needs the window's context current
  ~ImageDisplay();
  ImageDisplay(const ImageDisplay&) = delete;
  ImageDisplay& operator=(const ImageDisplay&) = delete;

  // (Re)allocates the texture when the size changes.
  void resize(int width, int height);
  // Copies a host image into the texture (CPU backend).
  void uploadFromHost(const Image& image);
  // Copies the texture's contents from a pixel buffer holding width*height RGB floats, row 0 at
  // the top (the CUDA backend writes it through CUDA-GL interop).
  void uploadFromPixelBuffer(GLuint buffer);
  // Clears the framebuffer and draws the image into `viewport` (layout.h: beside the panel).
  void draw(const PixelRect& viewport, int fbWidth, int fbHeight, float exposureStops);

  int width() const { return width_; }
  int height() const { return height_; }
  GLuint texture() const { return texture_; }  // the GL_RGB32F texture, row 0 = image row 0

 private:
  GLuint program_ = 0, vertexArray_ = 0, texture_ = 0;
  GLint exposureLocation_ = -1;
  int width_ = 0, height_ = 0;
};

// The window's back buffer as it is now (glReadPixels), as a linear image (decoded from sRGB),
// row 0 at the top: what the user sees, panel included.
Image readWindowPixels(int fbWidth, int fbHeight);

}  // namespace srt::viewer
