// The one compiled copy of tinygltf (Debian's libtinygltf-dev ships the implementation in the
// header, as its README.Debian describes), built here so the fuzz targets instrument it too.
// Images are not decoded by tinygltf (loader_gltf.cpp decodes the ones materials use) and no
// external image is read by it.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
