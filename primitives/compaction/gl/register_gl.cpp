// The OpenGL no-scatter family: one line per variant.
#include "primitives/compaction/compaction.h"

namespace srt::compaction {

void registerGlCompactors(Registry& r) {}

}  // namespace srt::compaction
