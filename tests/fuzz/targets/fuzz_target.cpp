// One libFuzzer target per reader: this file is compiled once per reader with SRT_FUZZ_READER set
// (tests/fuzz/targets/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "fuzz_load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  srt::fuzz::load(SRT_FUZZ_READER, {reinterpret_cast<const char*>(data), size});
  return 0;
}
