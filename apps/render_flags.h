// The flags that describe a render, shared by `render`, `profile` and `view` so the three read
// and check them the same way, and the validators every numeric flag uses: values are checked as
// text before CLI11 converts them, so a NaN, an overflow or a value out of range gets a message
// that names the flag and its range in plain numbers.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "renderer/wavefront/integrator.h"
#include "renderer/wavefront/scene_data.h"

namespace srt {

// A positive int ("'-3' is not a positive integer").
extern const CLI::Validator kPositiveInteger;
// An integer in [lo, hi] ("'-1' is not an integer in [0, 4294967295]").
CLI::Validator integerIn(long long lo, long long hi);
// A file name, not empty (checked as a file later, before any work: base/atomic_file.h).
extern const CLI::Validator kFileName;
// A finite number ("'nan' is not a finite number").
extern const CLI::Validator kFinite;
// A finite number > 0.
extern const CLI::Validator kFinitePositive;

// Adds --width, --height, --max-depth, --integrator, --payload, --schedule, --pool, --traversal,
// --reorder, --backend and --seed, writing into `options` and `backend`. Samples per pixel and
// the compaction primitive mean different things per command, so each command adds its own.
void addRenderFlags(CLI::App& cmd, RenderOptions& options, std::string& backend);

// Adds --kd-build and the tree's SAH flags (--kd-max-depth, --kd-traversal-cost,
// --kd-intersect-cost, --kd-empty-bonus: pbrt's kdtree parameters), for `render` and `profile`.
void addKdTreeFlags(CLI::App& cmd, AccelOptions& accel);

// --threads N: the CPU threads (OpenMP) of the CPU backend and the CPU kd-tree build; 0 leaves
// OpenMP's default (OMP_NUM_THREADS, else every core). applyThreads() sets it before any work.
void addThreadsFlag(CLI::App& cmd, int& threads);
void applyThreads(int threads);

}  // namespace srt
