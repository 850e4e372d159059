# Shared compile settings for streamrt targets.
add_library(streamrt_options INTERFACE)
set_target_properties(streamrt_options PROPERTIES EXPORT_NAME options)
target_compile_options(streamrt_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>
  $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -lineinfo
                             -Xcompiler=-Wall,-Wno-unused-parameter>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp>)
target_link_libraries(streamrt_options INTERFACE OpenMP::OpenMP_CXX)
# A debug build synchronises after every launch, so an error points at the kernel that made it.
target_compile_definitions(streamrt_options INTERFACE $<$<CONFIG:Debug>:SRT_SYNC_AFTER_LAUNCH=1>)

# srt_add_test(NAME LABEL <cpu|gl|gpu> SOURCES ... [LIBS ...])
# One GoogleTest executable per area; every test in it carries the one CTest label.
include(GoogleTest)
function(srt_add_test name)
  cmake_parse_arguments(T "" "LABEL" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main streamrt_options)
  # The scenes folder relative to the test binary, never an absolute path compiled in.
  file(RELATIVE_PATH _scenes "${CMAKE_CURRENT_BINARY_DIR}" "${STREAMRT_TEST_SCENES_DIR}")
  file(RELATIVE_PATH _data "${CMAKE_CURRENT_BINARY_DIR}" "${STREAMRT_TEST_DATA_DIR}")
  target_compile_definitions(${name} PRIVATE SRT_TEST_SCENES_RELATIVE="${_scenes}"
    SRT_TEST_DATA_RELATIVE="${_data}")
  # auto's calibration cache goes to the build tree, never the user's ~/.cache.
  gtest_discover_tests(${name} PROPERTIES LABELS ${T_LABEL} DISCOVERY_TIMEOUT 60
    ENVIRONMENT "XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-xdg-cache")
endfunction()
