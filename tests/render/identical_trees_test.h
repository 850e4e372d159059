// Shared by the render tests that compare kd-tree builders: the Conference Room as
// scenes/examples/conference-room.json makes it (the OBJ lit by fifteen emissive ceiling panels),
// built in code from the shared scenes' OBJ, and the first pixel where two images differ.
#pragma once

#include <string>

#include "renderer/render.h"
#include "scenes/loader.h"
#include "scenes/shapes.h"
#include "tests/test_scenes_dir.h"

namespace srt::test {

// The lit Conference Room; false when the shared scenes are absent.
inline bool litConferenceRoom(Scene* out) {
  const std::string obj = testScenesDir() + "/conference-room/conference.obj";
  if (access(obj.c_str(), R_OK) != 0) return false;
  LoadOptions quiet;
  quiet.quiet = true;
  Scene s = loadScene(obj, quiet);
  Material panel;
  panel.name = "panel";
  panel.kd = Vec3f(0.f);
  panel.ke = Vec3f(20.f, 20.f, 18.f);
  const uint32_t id = uint32_t(s.materials.size());
  s.materials.push_back(panel);
  for (float x : {-600.f, -100.f, 400.f, 900.f, 1400.f})
    for (float z : {-600.f, -100.f, 400.f}) {
      s.meshes.push_back(
          makeQuad(Vec3f(x, 640.f, z), Vec3f(120.f, 0.f, 0.f), Vec3f(0.f, 0.f, 60.f), id));
      Instance inst;
      inst.mesh = uint32_t(s.meshes.size() - 1);
      s.instances.push_back(inst);
    }
  Camera c;
  c.position = Vec3f(1550.f, 380.f, -250.f);
  c.target = Vec3f(-600.f, 120.f, -150.f);
  c.vfovDegrees = 60.f;
  s.camera = c;
  *out = std::move(s);
  return true;
}

// "x,y" of the first pixel whose bits differ, or "" when the images are identical.
inline std::string firstDifferingPixel(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height) return "(sizes differ)";
  for (size_t i = 0; i < a.pixels.size(); ++i)
    if (!(a.pixels[i] == b.pixels[i]))
      return std::to_string(i % size_t(a.width)) + "," + std::to_string(i / size_t(a.width));
  return "";
}

}  // namespace srt::test
