// The headless context and checked GL calls.
#include <gtest/gtest.h>

#include "primitives/gl/gl_context.h"
#include "primitives/gl/gl_objects.h"

namespace srt::gl {
namespace {

TEST(GlContext, MakesA45CoreContextOrSaysWhy) {
  std::string why;
  if (!glAvailable(&why)) {
    EXPECT_NE(why.find("no OpenGL 4.5 context"), std::string::npos) << why;
    GTEST_SKIP() << why;
  }
  GLint major = 0, minor = 0, profile = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  EXPECT_GE(major * 10 + minor, 45);
  EXPECT_TRUE(profile & GL_CONTEXT_CORE_PROFILE_BIT);
  std::printf("context: %s\n", currentContextDescription().c_str());
}

TEST(GlContext, CheckedCallsThrowWithFileLineAndExpression) {
  std::string why;
  if (!glAvailable(&why)) GTEST_SKIP() << why;
  try {
    SRT_GL_CHECK(glBindTexture(GL_TEXTURE_2D, 0xdeadbeef));  // not a texture name
    FAIL() << "no GlError";
  } catch (const GlError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gl_context_test.cpp"), std::string::npos) << msg;
    EXPECT_NE(msg.find("glBindTexture"), std::string::npos) << msg;
    EXPECT_NE(msg.find("GL_INVALID_OPERATION"), std::string::npos) << msg;
  }
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

TEST(GlContext, ProgramErrorsNameTheShader) {
  std::string why;
  if (!glAvailable(&why)) GTEST_SKIP() << why;
  try {
    Program p("broken.frag", {{GL_FRAGMENT_SHADER, "#version 450 core\nvoid main() { nope; }\n"}});
    FAIL() << "no GlError";
  } catch (const GlError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.frag"), std::string::npos) << e.what();
  }
}

TEST(GlLayout, WidthIsAPowerOfTwoAndRowsWrap) {
  std::string why;
  if (!glAvailable(&why)) GTEST_SKIP() << why;
  for (uint64_t cap : {1ull, 100ull, 4096ull, 5000ull, 1ull << 20}) {
    const uint32_t log2w = chooseLog2Width(cap, 64);
    EXPECT_GE(1u << log2w, 64u);
    EXPECT_LE(((cap + (1u << log2w) - 1) >> log2w), uint64_t(maxTextureSize()));
  }
  const Layout l{130, 6};
  EXPECT_EQ(l.rows(), 3u);
  EXPECT_EQ(l.fullRows(), 2u);
  EXPECT_EQ(l.tail(), 2u);
}

}  // namespace
}  // namespace srt::gl
