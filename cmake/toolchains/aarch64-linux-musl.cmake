# arm64, static musl: the musl that scripts/cross_deps.sh builds from
# Debian's source, through its musl-gcc wrapper around aarch64-linux-gnu-gcc.
set(BSH_TARGET aarch64-linux-musl)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross.cmake)
set(CMAKE_C_COMPILER ${BSH_TARGET_PREFIX}/musl/bin/musl-gcc)
