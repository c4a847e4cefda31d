# Finds the Debian-packaged dependencies and stops with the package to install when one is missing.

function(bitwire_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "bitwire: ${what} was not found. Install it with:  sudo apt-get install ${package}\n"
                        "(or run cmake/quickstart.sh, which installs everything missing)")
  endif()
endfunction()

# libsodium: the AEAD primitives and random bytes of the netcode transport. The runtime library links it.
include(BitwireSodium)
bitwire_require(BITWIRE_SODIUM_FOUND "libsodium (sodium.h and libsodium.so)" libsodium-dev)

if(BITWIRE_BUILD_IDLC)
  # Spirit X3 is header-only; only the headers are needed.
  find_path(BITWIRE_BOOST_INCLUDE boost/spirit/home/x3.hpp)
  bitwire_require(BITWIRE_BOOST_INCLUDE "Boost.Spirit X3 (boost/spirit/home/x3.hpp)" libboost-dev)
endif()

if(BITWIRE_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest QUIET)
  endif()
  bitwire_require(GTest_FOUND "GoogleTest" "libgtest-dev libgmock-dev")
  include(GoogleTest)
endif()

if(BITWIRE_BUILD_BENCH)
  find_package(benchmark CONFIG QUIET)
  bitwire_require(benchmark_FOUND "Google Benchmark" libbenchmark-dev)
endif()

if(BITWIRE_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "bitwire: BITWIRE_FUZZ needs clang++ (libFuzzer). Install it with:  sudo apt-get install clang libclang-rt-14-dev")
endif()
