// The flags that describe a render, shared by `render`, `profile` and `view` so the three read
// and check them the same way.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "renderer/wavefront/integrator.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

// A positive int; CLI::PositiveNumber's message would print its range up to DBL_MAX.
extern const CLI::Validator kPositiveInteger;

// Adds --width, --height, --max-depth, --integrator, --payload, --schedule, --pool, --traversal,
// --reorder, --backend and --seed, writing into `options` and `backend`. Samples per pixel and
// the compaction primitive mean different things per command, so each command adds its own.
void addRenderFlags(CLI::App& cmd, RenderOptions& options, std::string& backend);

// Adds --kd-build and the tree's SAH flags (--kd-max-depth, --kd-traversal-cost,
// --kd-intersect-cost, --kd-empty-bonus: pbrt's kdtree parameters), for `render` and `profile`.
void addKdTreeFlags(CLI::App& cmd, AccelOptions& accel);

}  // namespace srt
