# cmake -DCLI=... -DDIR=... -DSCENE=... -P frames_test.cmake
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${CLI} render ${SCENE} -o ${DIR}/orbit.png --frames 3 --width 24
                        --height 24 --spp 1 --backend cpu --stats ${DIR}/stats.json -q
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "streamrt exited with ${rc}")
endif()
foreach(f 0000 0001 0002)
  if(NOT EXISTS ${DIR}/orbit-${f}.png)
    message(FATAL_ERROR "orbit-${f}.png is missing")
  endif()
endforeach()
file(READ ${DIR}/stats.json stats)
string(JSON n LENGTH "${stats}" frames)
string(JSON t2 GET "${stats}" frames 2 time)
string(JSON builder GET "${stats}" frames 2 accel builder)
if(NOT n EQUAL 3 OR t2 EQUAL 0 OR NOT builder STREQUAL "cpu")
  message(FATAL_ERROR "stats: ${n} frames, last at time ${t2}, builder ${builder}")
endif()

# The next frame's tree built beside this one's render (--kd-overlap on, which also takes the CPU
# backend): every frame is the serial one's, byte for byte, and frames 1 and 2 say so.
execute_process(COMMAND ${CLI} render ${SCENE} -o ${DIR}/overlap.png --frames 3 --width 24
                        --height 24 --spp 1 --backend cpu --kd-overlap on
                        --stats ${DIR}/overlap.json -q
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "streamrt --kd-overlap on exited with ${rc}")
endif()
foreach(f 0000 0001 0002)
  file(SHA256 ${DIR}/orbit-${f}.png serial)
  file(SHA256 ${DIR}/overlap-${f}.png overlapped)
  if(NOT serial STREQUAL overlapped)
    message(FATAL_ERROR "frame ${f} differs with --kd-overlap on")
  endif()
endforeach()
file(READ ${DIR}/overlap.json stats)
string(JSON waited ERROR_VARIABLE missing GET "${stats}" frames 2 accel overlapped_wait_ms)
if(missing)
  message(FATAL_ERROR "frame 2 was not built beside frame 1: ${missing}")
endif()
string(JSON none ERROR_VARIABLE serial GET "${stats}" frames 0 accel overlapped_wait_ms)
if(NOT serial)
  message(FATAL_ERROR "frame 0 says it was built beside a frame before it")
endif()
