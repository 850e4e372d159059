# cmake -DCLI=... -DDIR=... -DSCENE=unlit.obj -P flags_test.cmake
# --threads reaches OpenMP (the stats name the thread count); the camera flags override the
# framed camera, and --camera's JSON gives the same image as the single flags.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
function(render name)
  execute_process(COMMAND ${CLI} render ${SCENE} -o ${DIR}/${name}.pfm --backend cpu --width 8
                          --height 8 --spp 1 -q ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: streamrt exited with ${rc}: ${err}")
  endif()
  file(SHA256 ${DIR}/${name}.pfm hash)
  set(${name} ${hash} PARENT_SCOPE)
endfunction()

render(threads --threads 1 --stats ${DIR}/threads.json)
file(READ ${DIR}/threads.json stats)
string(JSON device GET "${stats}" device)
if(NOT device MATCHES ", 1 threads$")
  message(FATAL_ERROR "--threads 1: the stats say the device is '${device}'")
endif()

render(framed)
render(flags --look-from 0.2,0.3,2 --look-at 0.2,0.3,0 --up 0,1,0 --fov 60)
render(json --camera "{\"position\": [0.2, 0.3, 2], \"target\": [0.2, 0.3, 0], \"fov\": 60}")
render(wrapped --camera "{\"camera\": {\"position\": [0.2, 0.3, 2], \"target\": [0.2, 0.3, 0]}}"
       --fov 60)
if(framed STREQUAL flags)
  message(FATAL_ERROR "the camera flags did not change the image")
endif()
if(NOT flags STREQUAL json OR NOT flags STREQUAL wrapped)
  message(FATAL_ERROR "--camera and the single flags give different images")
endif()
