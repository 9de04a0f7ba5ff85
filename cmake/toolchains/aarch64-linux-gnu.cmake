# arm64, static glibc: Debian's gcc-aarch64-linux-gnu and libc6-dev-arm64-cross.
set(BSH_TARGET aarch64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
include(${CMAKE_CURRENT_LIST_DIR}/cross.cmake)
