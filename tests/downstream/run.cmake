cmake_minimum_required(VERSION 3.25)
# ctest driver: install the current build into a scratch prefix, check the installed bitwire_token
# (tests/tools/token_tool.cmake), then configure, build and run a copy of
# the downstream project against it, and check that the build integration is incremental:
#   - a second build does nothing;
#   - touching an imported schema regenerates exactly the targets whose schemas import it;
#   - touching a schema regenerates its own target only.
# Arguments: -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=...
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/" DESTINATION "${WORK_DIR}/src")
set(src "${WORK_DIR}/src")
set(build "${WORK_DIR}/build")

function(run_step)  # run_step(OUTPUT_VARIABLE command...)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "downstream: step failed (${result}): ${ARGN}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_generated what)  # expect_generated("game_protocol;..." ) after a build: exactly these ran idlc
  foreach(target game_protocol lobby_protocol)
    string(FIND "${step_output}" "idlc: generating ${target} " at)
    list(FIND what ${target} wanted)
    if(wanted GREATER -1 AND at EQUAL -1)
      message(FATAL_ERROR "downstream: ${target} was not regenerated (${stage})")
    elseif(wanted EQUAL -1 AND at GREATER -1)
      message(FATAL_ERROR "downstream: ${target} was regenerated although nothing it reads changed (${stage})")
    endif()
  endforeach()
endfunction()

run_step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
# The installed token tool: present in bin/ beside idlc, with its --help and a token it mints.
if(NOT EXISTS "${WORK_DIR}/prefix/bin/bitwire_token")
  message(FATAL_ERROR "downstream: cmake --install did not install bin/bitwire_token")
endif()
run_step(${CMAKE_COMMAND} -DTOOL=${WORK_DIR}/prefix/bin/bitwire_token -DWORK_DIR=${WORK_DIR}/token_tool
         -P "${CMAKE_CURRENT_LIST_DIR}/../tools/token_tool.cmake")
run_step(${CMAKE_COMMAND} -S "${src}" -B "${build}" -G Ninja "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
         "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
run_step(${CMAKE_COMMAND} --build "${build}")
run_step("${build}/my_game")
run_step("${build}/my_lobby")

set(stage "second build")
run_step(${CMAKE_COMMAND} --build "${build}")
string(FIND "${step_output}" "no work to do" idle)
if(idle EQUAL -1)
  message(FATAL_ERROR "downstream: a second build with nothing changed did work:\n${step_output}")
endif()

# File times have a resolution; make sure the touch is seen as newer than the outputs.
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
set(stage "after touching the imported common.net")
file(TOUCH "${src}/schemas/common.net")
run_step(${CMAKE_COMMAND} --build "${build}")
expect_generated("game_protocol")
run_step(${CMAKE_COMMAND} --build "${build}")
string(FIND "${step_output}" "no work to do" idle)
if(idle EQUAL -1)
  message(FATAL_ERROR "downstream: the build after regenerating did not settle:\n${step_output}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
set(stage "after touching lobby.net")
file(TOUCH "${src}/schemas/lobby.net")
run_step(${CMAKE_COMMAND} --build "${build}")
expect_generated("lobby_protocol")
run_step("${build}/my_game")
run_step("${build}/my_lobby")
