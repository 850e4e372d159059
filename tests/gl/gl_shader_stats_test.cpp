// The driver's instruction counts as streamrt-bench-gl reads them from NVIDIA's program binary:
// only the fragment program's instructions, by kind, declarations and labels left out.
#include <gtest/gtest.h>

#include "bench/gl/shader_stats.h"

namespace srt::bench {
namespace {

TEST(GlShaderStats, CountsTheFragmentProgramsInstructionsByKind) {
  const std::string binary =
      "\x01\x02 header bytes !!NVvp5.0\nADD.F R0, R1, R2;\nEND\n"
      "!!NVfp5.0\nOPTION NV_internal;\nPARAM c[2] = { program.local[0..1] };\nTEMP R0, R1;\n"
      "OUTPUT result_color0 = result.color;\n# a comment\n"
      "TXF.U R0, f[WPOS], texture[0], 2D;\nTXQ.S R1.xy, {0}, texture[0], 2D;\n"
      "BTC.U R1.x, R0;\nBFE.U R1.y, {5, 3}, R0;\nADD.U R1.x, R1, {1}.x;\nSHL.U R1.z, R1.x, 2;\n"
      "REP.S;\nSEQ.U.CC HC.x, R1, {0}.x;\nBRK (NE.x);\nENDREP;\nMOV.U result_color0, R1;\nEND\n"
      "!!NVgp5.0\nADD.F R0, R1, R2;\nEND\n";
  const ShaderStats s = countNvFragmentAssembly(binary);
  ASSERT_TRUE(s.available);
  EXPECT_EQ(s.fetches, 2u);
  EXPECT_EQ(s.bitOps, 2u);
  EXPECT_EQ(s.alu, 4u);  // ADD, SHL, SEQ, MOV
  EXPECT_EQ(s.control, 3u);  // REP, BRK, ENDREP
  EXPECT_EQ(s.total(), 11u);
}

TEST(GlShaderStats, OtherDriversGiveNone) {
  EXPECT_FALSE(countNvFragmentAssembly("MESA shader cache blob").available);
  EXPECT_FALSE(countNvFragmentAssembly("!!NVvp5.0\nADD.F R0, R1, R2;\nEND\n").available);
}

}  // namespace
}  // namespace srt::bench
