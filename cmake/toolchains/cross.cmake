# What every cross toolchain here shares: the target's libraries are the
# static archives scripts/cross_deps.sh builds into build/third_party/TARGET
# (Debian's sources, for that architecture and C library), and nothing of
# the build machine's own folders is looked at for them. Before including
# this, a toolchain file sets BSH_TARGET (the GNU triple) and
# CMAKE_SYSTEM_PROCESSOR.
set(CMAKE_SYSTEM_NAME Linux)
get_filename_component(BSH_TARGET_PREFIX
  ${CMAKE_CURRENT_LIST_DIR}/../../build/third_party/${BSH_TARGET} ABSOLUTE)
if(NOT EXISTS ${BSH_TARGET_PREFIX}/lib/pkgconfig/libseccomp.pc)
  message(FATAL_ERROR "${BSH_TARGET_PREFIX} has no libraries: run scripts/cross_deps.sh ${BSH_TARGET}")
endif()
set(CMAKE_FIND_ROOT_PATH ${BSH_TARGET_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config answers for the target alone.
set(ENV{PKG_CONFIG_LIBDIR} ${BSH_TARGET_PREFIX}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# Tests of another architecture run through qemu-user (tests/cross/).
cmake_host_system_information(RESULT bsh_host_arch QUERY OS_PLATFORM)
if(NOT bsh_host_arch STREQUAL CMAKE_SYSTEM_PROCESSOR)
  find_program(BSH_QEMU_USER qemu-${CMAKE_SYSTEM_PROCESSOR}-static qemu-${CMAKE_SYSTEM_PROCESSOR})
  if(BSH_QEMU_USER)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${BSH_QEMU_USER})
  endif()
endif()
