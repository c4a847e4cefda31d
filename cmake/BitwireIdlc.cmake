# idlc_generate(TARGET name SCHEMAS a.net [b.net ...] [OUT dir] [NO_FORMAT])
#
# Compiles .net schemas to C++ at build time -- per schema a header and a source file holding the
# package's message factory -- and makes `name` a static library of those source files that carries the
# headers' include directory and the bitwire runtime headers: target_link_libraries(game PRIVATE name).
# The factory (every message's serialize for the four stream kinds) is compiled once, in that library,
# not in every file that dispatches messages. Files are regenerated when a listed schema, any schema it
# imports, or idlc itself changes (idlc writes a depfile naming every schema it read). NO_FORMAT passes
# --no-format: no formatting code (format_value, to_string of structs) in the headers.
# The library is compiled with the directory's settings; BITWIRE_SERIALIZE_CHECKS must be the same as
# in the files that include the headers (a mismatch is a link error, never a silent mix).
include_guard(GLOBAL)

function(idlc_generate)
  cmake_parse_arguments(ARG "NO_FORMAT" "TARGET;OUT" "SCHEMAS" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_SCHEMAS)
    message(FATAL_ERROR "idlc_generate: usage: idlc_generate(TARGET name SCHEMAS a.net ... [OUT dir] [NO_FORMAT])")
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
  set(sources)
  foreach(schema IN LISTS ARG_SCHEMAS)
    get_filename_component(path "${schema}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # idlc names a header after the file name without its last extension: proto.v2.net -> proto.v2.hpp.
    get_filename_component(stem "${path}" NAME_WLE)
    list(APPEND schemas "${path}")
    list(APPEND headers "${out_dir}/${stem}.hpp")
    list(APPEND sources "${out_dir}/${stem}.cpp")
  endforeach()
  set(options)
  if(ARG_NO_FORMAT)
    list(APPEND options --no-format)
  endif()

  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}.idlc.d")
  add_custom_command(
    OUTPUT ${headers} ${sources}
    COMMAND bitwire::idlc -o "${out_dir}" --depfile "${depfile}" ${options} ${schemas}
    DEPENDS ${schemas} bitwire::idlc
    DEPFILE "${depfile}"
    COMMENT "idlc: generating ${ARG_TARGET} from ${ARG_SCHEMAS}"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_generate DEPENDS ${headers} ${sources})

  add_library(${ARG_TARGET} STATIC ${sources})
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_generate)
  target_include_directories(${ARG_TARGET} PUBLIC "${out_dir}")
  target_compile_features(${ARG_TARGET} PUBLIC cxx_std_20)
  # Generated headers include the runtime's headers: the target carries them (bitwire::headers is an alias
  # in bitwire's own tree and an imported target after find_package(bitwire)).
  if(NOT TARGET bitwire::headers)
    message(FATAL_ERROR "idlc_generate: the bitwire runtime headers (target bitwire::headers) are not available")
  endif()
  target_link_libraries(${ARG_TARGET} PUBLIC bitwire::headers)
endfunction()
