# idlc_generate(TARGET name SCHEMAS a.net [b.net ...] [OUT dir])
#
# Compiles .net schemas to C++ headers at build time and makes `name` an INTERFACE library that carries
# their include directory and the bitwire runtime headers: target_link_libraries(game PRIVATE name).
# Headers are regenerated when a listed schema, any schema it imports, or idlc itself changes (idlc writes
# a depfile naming every schema it read).
include_guard(GLOBAL)

function(idlc_generate)
  cmake_parse_arguments(ARG "" "TARGET;OUT" "SCHEMAS" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_SCHEMAS)
    message(FATAL_ERROR "idlc_generate: usage: idlc_generate(TARGET name SCHEMAS a.net ... [OUT dir])")
  endif()
  if(NOT TARGET bitwire::idlc)
    message(FATAL_ERROR "idlc_generate: the idlc executable (target bitwire::idlc) is not available")
  endif()
  if(NOT ARG_OUT)
    set(ARG_OUT "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}")
  endif()
  get_filename_component(out_dir "${ARG_OUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  set(schemas)
  set(headers)
  foreach(schema IN LISTS ARG_SCHEMAS)
    get_filename_component(path "${schema}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # idlc names a header after the file name without its last extension: proto.v2.net -> proto.v2.hpp.
    get_filename_component(stem "${path}" NAME_WLE)
    list(APPEND schemas "${path}")
    list(APPEND headers "${out_dir}/${stem}.hpp")
  endforeach()

  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}.idlc.d")
  add_custom_command(
    OUTPUT ${headers}
    COMMAND bitwire::idlc -o "${out_dir}" --depfile "${depfile}" ${schemas}
    DEPENDS ${schemas} bitwire::idlc
    DEPFILE "${depfile}"
    COMMENT "idlc: generating ${ARG_TARGET} from ${ARG_SCHEMAS}"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_generate DEPENDS ${headers})

  add_library(${ARG_TARGET} INTERFACE)
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_generate)
  target_include_directories(${ARG_TARGET} INTERFACE "${out_dir}")
  # Generated headers include the runtime's headers: the target carries them (bitwire::headers is an alias
  # in bitwire's own tree and an imported target after find_package(bitwire)).
  if(NOT TARGET bitwire::headers)
    message(FATAL_ERROR "idlc_generate: the bitwire runtime headers (target bitwire::headers) are not available")
  endif()
  target_link_libraries(${ARG_TARGET} INTERFACE bitwire::headers)
endfunction()
