# cmake -DCLI=... -DARGS="render;...;-q" -P quiet_test.cmake
# -q prints nothing at all on a successful render (no notices, no camera, no summary).
execute_process(COMMAND ${CLI} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "streamrt exited with ${rc}: ${err}")
endif()
if(NOT "${out}${err}" STREQUAL "")
  message(FATAL_ERROR "-q printed: ${out}${err}")
endif()
