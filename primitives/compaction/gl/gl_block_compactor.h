// Internal: the factories behind makeBlockCompactor (the block framework, and Horn's whole-stream
// algorithm, which shares its options).
#pragma once

#include <memory>

#include "primitives/compaction/gl/gl_stream_compactor.h"

namespace srt::compaction::gl {

std::unique_ptr<GlCompactor> makeHornCompactor(const BlockOptions& options);

}  // namespace srt::compaction::gl
