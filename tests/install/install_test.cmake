# Installs the build tree into a fresh prefix, then configures, builds and runs a program outside
# the tree against the installed package (tests/install/consumer). Run by CTest with -DBUILD=,
# -DSOURCE=, -DWORK=.
file(REMOVE_RECURSE "${WORK}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD}" --prefix "${WORK}/prefix")
foreach(f bin/streamrt include/streamrt/primitives/compaction/compaction.h
          lib/cmake/streamrt/streamrtConfig.cmake)
  if(NOT EXISTS "${WORK}/prefix/${f}")
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S "${SOURCE}/consumer" -B "${WORK}/consumer" -G Ninja
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${WORK}/prefix")
run(${CMAKE_COMMAND} --build "${WORK}/consumer")
run("${WORK}/consumer/consumer")
file(REMOVE_RECURSE "${WORK}")
