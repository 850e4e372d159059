// Which kind of light next-event estimation samples: emissive triangles, point lights or the
// environment map, each present kind with the same probability. With the two kinds there were
// before environment maps (1 or 1/2 each) the numbers, and so the images, are unchanged.
#pragma once

#include "primitives/common/host_device.h"

namespace srt {

struct LightPickProbabilities {
  float emitters = 0.f, pointLights = 0.f, environment = 0.f;
};

SRT_CPU_GPU inline LightPickProbabilities lightPickProbabilities(bool emitters, bool pointLights,
                                                                 bool environment) {
  const int kinds = int(emitters) + int(pointLights) + int(environment);
  LightPickProbabilities p;
  if (kinds == 0) return p;
  const float each = 1.f / float(kinds);
  p.emitters = emitters ? each : 0.f;
  p.pointLights = pointLights ? each : 0.f;
  p.environment = environment ? each : 0.f;
  return p;
}

}  // namespace srt
