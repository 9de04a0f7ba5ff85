# A cross build's DFA generator, built for the build machine: either the
# one in BSH_HOST_TOOLS (a folder configured with -DBSH_HOST_TOOLS_ONLY=ON
# and built), or one this build configures and builds itself with the
# build machine's cc and PCRE2. Sets BSH_HOST_GEN_PATTERN_DFAS and
# BSH_HOST_GEN_DEPENDS (what the generating command waits for).
if(BSH_HOST_TOOLS)
  set(BSH_HOST_GEN_PATTERN_DFAS ${BSH_HOST_TOOLS}/linre/bsh_gen_pattern_dfas)
  if(NOT EXISTS ${BSH_HOST_GEN_PATTERN_DFAS})
    message(FATAL_ERROR "BSH_HOST_TOOLS has no linre/bsh_gen_pattern_dfas: "
      "build it with cmake -S . -B DIR -DBSH_HOST_TOOLS_ONLY=ON && cmake --build DIR")
  endif()
  set(BSH_HOST_GEN_DEPENDS ${BSH_HOST_GEN_PATTERN_DFAS})
  return()
endif()
include(ExternalProject)
set(bsh_host_dir ${PROJECT_BINARY_DIR}/host-tools)
set(BSH_HOST_GEN_PATTERN_DFAS ${bsh_host_dir}/linre/bsh_gen_pattern_dfas)
# The toolchain's settings stay out of it: a plain configure with the build
# machine's compiler (BSH_HOST_CC, default cc), whose pkg-config looks in the
# build machine's own folders.
set(BSH_HOST_CC cc CACHE STRING "The build machine's C compiler (cross builds)")
ExternalProject_Add(bsh_host_tools
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${bsh_host_dir}
  CMAKE_COMMAND ${CMAKE_COMMAND} -E env --unset=PKG_CONFIG_LIBDIR --unset=PKG_CONFIG_SYSROOT_DIR
    --unset=PKG_CONFIG_PATH ${CMAKE_COMMAND}
  CMAKE_ARGS -DBSH_HOST_TOOLS_ONLY=ON -DCMAKE_C_COMPILER=${BSH_HOST_CC}
    -DCMAKE_BUILD_TYPE=Release -DBSH_WERROR=${BSH_WERROR}
  BUILD_COMMAND ${CMAKE_COMMAND} -E env --unset=PKG_CONFIG_LIBDIR --unset=PKG_CONFIG_SYSROOT_DIR
    --unset=PKG_CONFIG_PATH ${CMAKE_COMMAND} --build ${bsh_host_dir} --target bsh_gen_pattern_dfas
  BUILD_BYPRODUCTS ${BSH_HOST_GEN_PATTERN_DFAS}
  BUILD_ALWAYS ON
  INSTALL_COMMAND "")
set(BSH_HOST_GEN_DEPENDS bsh_host_tools ${BSH_HOST_GEN_PATTERN_DFAS})
