# cmake -DCLI=... -DDIR=... -P schedule_test.cmake
# --schedule and --pool reach the renderer: the stats file reports what ran.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${CLI} render cornell -o ${DIR}/waves.png --backend cpu --width 16
                        --height 16 --spp 2 --schedule waves --pool 64 --stats ${DIR}/s.json -q
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "streamrt exited with ${rc}: ${err}")
endif()
file(READ ${DIR}/s.json stats)
string(JSON schedule GET "${stats}" schedule)
string(JSON pool GET "${stats}" pool_size)
string(JSON traversal GET "${stats}" traversal)
if(NOT schedule STREQUAL "waves" OR NOT pool EQUAL 64 OR NOT traversal STREQUAL "standard")
  message(FATAL_ERROR "stats say schedule ${schedule}, pool ${pool}, traversal ${traversal}")
endif()
