# idlc_generate(TARGET name SCHEMAS a.net [b.net ...] [OUT dir] [FACTORY_SOURCES n] [NO_FORMAT] [RANDOM]
#               [BENCHMARK])
#
# Compiles .net schemas to C++ at build time -- per schema a header and the source files holding the
# package's message factory -- and makes `name` a static library of those source files that carries the
# headers' include directory and the bitwire runtime headers: target_link_libraries(game PRIVATE name).
# The factory (every message's serialize for the four stream kinds) is compiled once, in that library,
# not in every file that dispatches messages, and spread over FACTORY_SOURCES files per schema (default 16:
# <schema>.cpp, <schema>_factory_1.cpp ... <schema>_factory_15.cpp), which a parallel build compiles at
# once. idlc fills a file with at least 25 messages, so the files that hold messages are the ones idlc's
# own default (--factory-sources auto) writes -- one per 25 messages, at most 16: a package of 200 messages
# fills 8 files of 25, one of up to 49 fills <schema>.cpp alone -- and the others are empty translation
# units (about 10 ms each). The count is fixed, not the package's, because the build must know the file
# names before idlc runs. 1 writes <schema>.cpp alone; more than 16 (up to 64) gives a package of over
# 400 messages smaller files, at the price of one more header parse each. Files are regenerated when a
# listed schema, any schema it imports, or idlc itself changes (idlc writes a depfile naming every schema
# it read).
# The library is compiled with the directory's settings; BITWIRE_SERIALIZE_CHECKS must be the same as
# in the files that include the headers (a mismatch is a link error, never a silent mix).
#
#   NO_FORMAT  pass --no-format: no formatting code (format_value, to_string of structs) in the headers.
#   RANDOM     also generate <schema>_random.hpp: bitwire::random_fill(rng, value) for every struct and
#              message (random valid instances, for property and fuzz tests; docs/benchmarking.md).
#   BENCHMARK  RANDOM, plus an executable `name_bench`: a Google Benchmark program that times write, read
#              and measure of every message of the listed schemas and reports their wire bytes. Needs
#              Google Benchmark (find_package(benchmark); Debian: libbenchmark-dev).
include_guard(GLOBAL)

function(idlc_generate)
  cmake_parse_arguments(ARG "NO_FORMAT;RANDOM;BENCHMARK" "TARGET;OUT;FACTORY_SOURCES" "SCHEMAS" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_SCHEMAS)
    message(FATAL_ERROR
            "idlc_generate: usage: idlc_generate(TARGET name SCHEMAS a.net ... [OUT dir] [FACTORY_SOURCES n] "
            "[NO_FORMAT] [RANDOM] [BENCHMARK])")
  endif()
  if(NOT DEFINED ARG_FACTORY_SOURCES)
    # idlc's kAutoMaxFactorySources: the same files hold messages as with idlc's automatic count.
    set(ARG_FACTORY_SOURCES 16)
  endif()
  if(NOT ARG_FACTORY_SOURCES MATCHES "^[1-9][0-9]?$" OR ARG_FACTORY_SOURCES GREATER 64)
    message(FATAL_ERROR "idlc_generate: FACTORY_SOURCES '${ARG_FACTORY_SOURCES}' must be a number from 1 to 64")
  endif()
  if(NOT TARGET bitwire::idlc)
    message(FATAL_ERROR "idlc_generate: the idlc executable (target bitwire::idlc) is not available")
  endif()
  if(NOT ARG_OUT)
    set(ARG_OUT "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}")
  endif()
  get_filename_component(out_dir "${ARG_OUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  set(idlc_flags)
  if(ARG_BENCHMARK)
    set(idlc_flags --bench)
  elseif(ARG_RANDOM)
    set(idlc_flags --random)
  endif()

  set(schemas)
  set(headers)
  set(sources)
  set(bench_sources)
  foreach(schema IN LISTS ARG_SCHEMAS)
    get_filename_component(path "${schema}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # idlc names a header after the file name without its last extension: proto.v2.net -> proto.v2.hpp.
    get_filename_component(stem "${path}" NAME_WLE)
    list(APPEND schemas "${path}")
    list(APPEND headers "${out_dir}/${stem}.hpp")
    # The same names idlc writes (idlc/src/backend/cpp/emit_cpp.cpp, cpp_source_names): all of them, whatever the schema.
    list(APPEND sources "${out_dir}/${stem}.cpp")
    if(ARG_FACTORY_SOURCES GREATER 1)
      math(EXPR last_source "${ARG_FACTORY_SOURCES} - 1")
      foreach(index RANGE 1 ${last_source})
        list(APPEND sources "${out_dir}/${stem}_factory_${index}.cpp")
      endforeach()
    endif()
    if(ARG_RANDOM OR ARG_BENCHMARK)
      list(APPEND headers "${out_dir}/${stem}_random.hpp")
    endif()
    if(ARG_BENCHMARK)
      list(APPEND bench_sources "${out_dir}/${stem}_bench.cpp")
    endif()
  endforeach()
  set(options --factory-sources ${ARG_FACTORY_SOURCES})
  if(ARG_NO_FORMAT)
    list(APPEND options --no-format)
  endif()

  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}.idlc.d")
  add_custom_command(
    OUTPUT ${headers} ${sources} ${bench_sources}
    COMMAND bitwire::idlc -o "${out_dir}" --depfile "${depfile}" ${options} ${idlc_flags} ${schemas}
    DEPENDS ${schemas} bitwire::idlc
    DEPFILE "${depfile}"
    COMMENT "idlc: generating ${ARG_TARGET} from ${ARG_SCHEMAS}"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_generate DEPENDS ${headers} ${sources} ${bench_sources})

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

  if(ARG_BENCHMARK)
    if(NOT TARGET benchmark::benchmark)
      find_package(benchmark CONFIG QUIET)
    endif()
    if(NOT TARGET benchmark::benchmark OR NOT TARGET benchmark::benchmark_main)
      message(FATAL_ERROR "idlc_generate: BENCHMARK needs Google Benchmark (find_package(benchmark); Debian: "
                          "apt-get install libbenchmark-dev)")
    endif()
    # The runtime library: bitwire in bitwire's own tree, bitwire::bitwire after find_package(bitwire).
    if(TARGET bitwire::bitwire)
      set(runtime bitwire::bitwire)
    else()
      set(runtime bitwire)
    endif()
    add_executable(${ARG_TARGET}_bench ${bench_sources})
    target_link_libraries(${ARG_TARGET}_bench PRIVATE ${ARG_TARGET} ${runtime} benchmark::benchmark
                                                      benchmark::benchmark_main)
  endif()
endfunction()
