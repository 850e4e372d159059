# cmake -DCLI=... -DDIR=... -DSCENE=unlit.obj -P env_test.cmake
# --env 0.25,0.5,2: a pixel that sees no geometry is exactly the environment radiance.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${CLI} render ${SCENE} -o ${DIR}/env.pfm --backend cpu --width 8
                        --height 8 --spp 1 --env 0.25,0.5,2 -q
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "streamrt exited with ${rc}: ${err}")
endif()
# PFM rows run bottom to top, so the last pixel is the top-right corner, above the triangle's
# hypotenuse: little-endian floats 0.25, 0.5, 2.
file(READ ${DIR}/env.pfm hex HEX)
string(LENGTH "${hex}" n)
math(EXPR start "${n} - 24")
string(SUBSTRING "${hex}" ${start} 24 last)
if(NOT last STREQUAL "0000803e0000003f00000040")
  message(FATAL_ERROR "top-right pixel is ${last}, not (0.25, 0.5, 2)")
endif()
