# The checked-in generated/ directory against a fresh idlc run (cmake -P script).
#
#   -DMODE=check   fail, naming every difference, when generated/*.hpp and *.cpp are not exactly what idlc
#                  writes now
#   -DMODE=repin   rewrite generated/ from a fresh run (removing headers no schema produces any more)
#
# Inputs: IDLC (the executable), SCHEMAS ('|'-separated .net files), PINNED_DIR (generated/), WORK_DIR (a
# scratch directory, emptied first), SOURCE_DIR (the repository root, for messages).
cmake_minimum_required(VERSION 3.25)

foreach(variable IN ITEMS MODE IDLC SCHEMAS PINNED_DIR WORK_DIR SOURCE_DIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "golden.cmake: -D${variable}=... is required")
  endif()
endforeach()

string(REPLACE "|" ";" SCHEMAS "${SCHEMAS}")  # passed '|'-separated (see CMakeLists.txt)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${IDLC}" -o "${WORK_DIR}" ${SCHEMAS}
                RESULT_VARIABLE idlc_result OUTPUT_VARIABLE idlc_output ERROR_VARIABLE idlc_output)
if(NOT idlc_result EQUAL 0)
  message(FATAL_ERROR "idlc failed (exit ${idlc_result}) on ${SCHEMAS}:\n${idlc_output}")
endif()

file(GLOB fresh RELATIVE "${WORK_DIR}" "${WORK_DIR}/*.hpp" "${WORK_DIR}/*.cpp")
file(GLOB pinned RELATIVE "${PINNED_DIR}" "${PINNED_DIR}/*.hpp" "${PINNED_DIR}/*.cpp")
list(SORT fresh)
list(SORT pinned)
if(NOT fresh)
  message(FATAL_ERROR "idlc wrote no header into ${WORK_DIR}")
endif()

if(MODE STREQUAL "repin")
  foreach(name IN LISTS pinned)
    if(NOT name IN_LIST fresh)
      file(REMOVE "${PINNED_DIR}/${name}")
      message(STATUS "removed generated/${name} (no schema produces it)")
    endif()
  endforeach()
  foreach(name IN LISTS fresh)
    file(COPY_FILE "${WORK_DIR}/${name}" "${PINNED_DIR}/${name}" ONLY_IF_DIFFERENT)
  endforeach()
  message(STATUS "generated/ re-pinned: ${fresh}")
  return()
elseif(NOT MODE STREQUAL "check")
  message(FATAL_ERROR "golden.cmake: MODE must be check or repin, not '${MODE}'")
endif()

find_program(DIFF_PROGRAM diff)
set(problems "")
foreach(name IN LISTS fresh)
  if(NOT name IN_LIST pinned)
    string(APPEND problems "  generated/${name} is missing (idlc now writes it)\n")
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${PINNED_DIR}/${name}" "${WORK_DIR}/${name}"
                  RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    string(APPEND problems "  generated/${name} differs from idlc's output\n")
    if(DIFF_PROGRAM)
      # Printed as is (message() would re-wrap it); the first 4000 characters show what changed without
      # flooding the test log.
      execute_process(COMMAND "${DIFF_PROGRAM}" -u "${PINNED_DIR}/${name}" "${WORK_DIR}/${name}"
                      OUTPUT_VARIABLE diff_text)
      string(SUBSTRING "${diff_text}" 0 4000 diff_text)
      file(WRITE "${WORK_DIR}/${name}.diff" "${diff_text}\n")
      execute_process(COMMAND ${CMAKE_COMMAND} -E cat "${WORK_DIR}/${name}.diff")
    endif()
  endif()
endforeach()
foreach(name IN LISTS pinned)
  if(NOT name IN_LIST fresh)
    string(APPEND problems "  generated/${name} is stale (no schema produces it any more)\n")
  endif()
endforeach()

if(problems)
  file(RELATIVE_PATH pinned_relative "${SOURCE_DIR}" "${PINNED_DIR}")
  message(FATAL_ERROR
    "${pinned_relative}/ does not match what idlc generates from schemas/*.net now:\n${problems}"
    "If the change is intended (a schema or the emitter changed), re-pin the checked-in headers with\n"
    "    cmake --build build/release --target repin_generated\n"
    "(any configured build directory works), review `git diff generated/`, and commit it with the change.")
endif()
message(STATUS "generated/ matches idlc's output for ${fresh}")
