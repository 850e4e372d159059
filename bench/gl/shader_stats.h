// The driver's own count of a GL program's instructions, where it gives one: NVIDIA's program
// binary (glGetProgramBinary) carries the program's NV_gpu_program5 assembly as text, one
// instruction a line. The fragment program's instructions are counted by kind (ALU, bit ops,
// fetches, control flow), statically: each line once, a loop the compiler kept counted once.
// Other drivers (Mesa) give no such text: available is false.
#pragma once

#include <cstdint>
#include <string>

namespace srt::bench {

struct ShaderStats {
  bool available = false;
  uint32_t alu = 0, bitOps = 0, fetches = 0, control = 0;
  uint32_t total() const { return alu + bitOps + fetches + control; }
};

// The fragment program of `program` (a linked GL program id), counted from the driver's text.
ShaderStats fragmentShaderStats(uint32_t program);
// The same count over assembly text (the part from "!!NVfp" to its "END").
ShaderStats countNvFragmentAssembly(const std::string& binary);

}  // namespace srt::bench
