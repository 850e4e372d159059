// The one compiled copy of tinyobjloader (Debian's libtinyobjloader-dev header), built here rather
// than linked from the shared library so the fuzz targets instrument the parser too.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
