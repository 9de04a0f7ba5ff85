# Dependencies from Debian, found through pkg-config, and the Linux
# facilities the engine needs (Linux >= 5.3; the engine makes the newer
# system calls itself rather than through C library wrappers).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
