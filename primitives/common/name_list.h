// Lists of registered names for messages ("registered: a, b, c").
#pragma once

#include <string>
#include <vector>

namespace srt {

// "a, b, c".
inline std::string commaList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace srt
