# Dependencies from Debian, found through pkg-config, and the Linux
# facilities the engine needs (glibc >= 2.34, Linux >= 5.3).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)

include(CheckSymbolExists)
set(CMAKE_REQUIRED_DEFINITIONS -D_GNU_SOURCE)
foreach(sym posix_spawn_file_actions_addclosefrom_np
            posix_spawn_file_actions_addchdir_np)
  check_symbol_exists(${sym} spawn.h HAVE_${sym})
  if(NOT HAVE_${sym})
    message(FATAL_ERROR "bsh needs ${sym} (glibc 2.34 or newer)")
  endif()
endforeach()
