cmake_minimum_required(VERSION 3.25)
# ctest driver: configure a project that add_subdirectory()s bitwire, and check which of bitwire's options
# it got: the runtime and idlc, no tests, benchmarks, examples or -Werror.
# Arguments: -DBITWIRE_SOURCE_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=...
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G Ninja
                        "-DBITWIRE_SOURCE_DIR=${BITWIRE_SOURCE_DIR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "subproject: configuring failed:\n${out}${err}")
endif()
file(STRINGS "${WORK_DIR}/CMakeCache.txt" cache)
foreach(expected "BITWIRE_BUILD_TESTS:BOOL=OFF" "BITWIRE_BUILD_BENCH:BOOL=OFF" "BITWIRE_BUILD_EXAMPLES:BOOL=OFF"
                 "BITWIRE_WERROR:BOOL=OFF" "BITWIRE_BUILD_IDLC:BOOL=ON")
  list(FIND cache "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "subproject: expected ${expected} in the consumer's cache")
  endif()
endforeach()
file(READ "${WORK_DIR}/build.ninja" ninja)
foreach(absent "endpoint_test" "bits_bench" "bitwire_demo" "-Werror")
  string(FIND "${ninja}" "${absent}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "subproject: the consumer's build contains '${absent}'")
  endif()
endforeach()
foreach(present "my_game" "idlc: generating game_protocol")
  string(FIND "${ninja}" "${present}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "subproject: the consumer's build lacks '${present}'")
  endif()
endforeach()
