# Dependencies from Debian, found through pkg-config, and the Linux
# facilities the engine needs (Linux >= 5.3; the engine makes the newer
# system calls itself rather than through C library wrappers).
find_package(PkgConfig REQUIRED)
# PCRE2 serves the build-time DFA generator (a cross build makes that for
# the build machine: cmake/bshHostTools.cmake) and the tests' oracle.
if(NOT CMAKE_CROSSCOMPILING OR BSH_TESTS OR BSH_BENCH OR BSH_FUZZ)
  pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
endif()
