# Every dependency comes from a Debian package (scripts/install-deps.sh installs them) or the CUDA
# toolkit. Nothing is downloaded at build time.
find_package(CUDAToolkit 12.0 REQUIRED)
find_package(OpenMP REQUIRED)
find_package(Threads REQUIRED)
find_package(tinyobjloader REQUIRED)   # libtinyobjloader-dev
find_package(CLI11 REQUIRED)           # libcli11-dev
find_package(nlohmann_json 3 REQUIRED) # nlohmann-json3-dev
find_package(assimp REQUIRED)          # libassimp-dev
find_package(tinyexr REQUIRED)         # libtinyexr-dev
find_package(GTest REQUIRED)           # libgtest-dev
find_package(benchmark QUIET)          # libbenchmark-dev (micro benchmarks only)
find_package(PkgConfig REQUIRED)
pkg_check_modules(STB REQUIRED IMPORTED_TARGET stb)   # libstb-dev
find_package(OpenGL REQUIRED COMPONENTS OpenGL EGL)   # libgl-dev, libegl-dev (GL 4.5 core via EGL)
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy) # libepoxy-dev: GL function loading
