# Every dependency comes from a Debian package (scripts/install-deps.sh installs them) or the CUDA
# toolkit. Nothing is downloaded at build time.
find_package(CUDAToolkit 12.0 REQUIRED)
find_package(OpenMP REQUIRED)
find_package(Threads REQUIRED)
find_package(tinyobjloader REQUIRED)   # libtinyobjloader-dev
find_package(CLI11 REQUIRED)           # libcli11-dev
find_package(nlohmann_json 3 REQUIRED) # nlohmann-json3-dev
find_package(assimp REQUIRED)          # libassimp-dev (bench/accel only; the scene readers do not use it)
# libtinygltf-dev: the header is compiled in scenes/tinygltf_impl.cpp (README.Debian's second way).
find_path(SRT_TINYGLTF_INCLUDE tiny_gltf.h REQUIRED)
find_package(tinyexr REQUIRED)         # libtinyexr-dev
find_package(ZLIB REQUIRED)            # zlib1g-dev (PNG writing, base/png_encode.cpp)
find_package(GTest REQUIRED)           # libgtest-dev
find_package(benchmark QUIET)          # libbenchmark-dev (micro benchmarks only)
find_package(PkgConfig REQUIRED)
pkg_check_modules(STB REQUIRED IMPORTED_TARGET stb)   # libstb-dev
find_package(OpenGL REQUIRED COMPONENTS OpenGL EGL)   # libgl-dev, libegl-dev (GL 4.5 core via EGL)
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy) # libepoxy-dev: GL function loading
# The interactive viewer (`streamrt view`): a GLFW window and a Dear ImGui panel. Debian's
# libimgui-dev is a static library that already holds the GLFW and OpenGL3 backends
# (backends/imgui_impl_glfw.h, backends/imgui_impl_opengl3.h); the OpenGL3 one loads GL through
# dlopen, hence CMAKE_DL_LIBS where it is linked.
find_package(glfw3 3.3 REQUIRED)                         # libglfw3-dev
pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)  # libimgui-dev
