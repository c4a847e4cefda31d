# Finds libsodium (Debian: libsodium-dev) and defines the imported target bitwire::sodium.
# Used by the build and by the installed bitwireConfig.cmake, so downstream projects find it the same way.
# Sets BITWIRE_SODIUM_FOUND. pkg-config first; a plain header + library search when pkg-config is absent.
if(NOT TARGET bitwire::sodium)
  set(BITWIRE_SODIUM_FOUND FALSE)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(BITWIRE_PC_SODIUM QUIET libsodium)
  endif()
  find_path(BITWIRE_SODIUM_INCLUDE_DIR sodium.h HINTS ${BITWIRE_PC_SODIUM_INCLUDE_DIRS})
  find_library(BITWIRE_SODIUM_LIBRARY NAMES sodium libsodium HINTS ${BITWIRE_PC_SODIUM_LIBRARY_DIRS})
  if(BITWIRE_SODIUM_INCLUDE_DIR AND BITWIRE_SODIUM_LIBRARY)
    add_library(bitwire::sodium UNKNOWN IMPORTED)
    set_target_properties(bitwire::sodium PROPERTIES
      IMPORTED_LOCATION "${BITWIRE_SODIUM_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${BITWIRE_SODIUM_INCLUDE_DIR}")
    set(BITWIRE_SODIUM_FOUND TRUE)
  endif()
else()
  set(BITWIRE_SODIUM_FOUND TRUE)
endif()
