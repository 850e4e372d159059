# cmake -DCLI=... -DDIR=... -P leave_nothing_test.cmake
# Renders that fail their checks leave the output folder as it was: no image, no stats file, no
# leftover write probe.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
foreach(bad "--stats;${DIR}/missing/s.json" "--stats;${DIR}/s.json;--kd-compaction;nope"
            "--stats;${DIR}/s.json;--time;7")
  execute_process(COMMAND ${CLI} render cornell -o ${DIR}/out.png --backend cpu --width 8
                          --height 8 --spp 1 ${bad}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "render with ${bad} succeeded")
  endif()
  file(GLOB left LIST_DIRECTORIES true ${DIR}/* ${DIR}/.*)
  if(left)
    message(FATAL_ERROR "render with ${bad} (${err}) left ${left}")
  endif()
endforeach()
