# The bash parser of the command policy: tree-sitter-bash 0.23.3 (generated
# parser, language ABI 14) and a tree-sitter runtime, either the system's
# (-DBSH_SYSTEM_TREE_SITTER=ON: Debian's libtree-sitter, ABI 13-14) or, by
# default, the single-file runtime of npm tree-sitter 0.22.4 compiled in.
# scripts/deps.sh grammar fetches the archives; here they are checked
# against cmake/tree-sitter.sha256 and unpacked. Nothing is downloaded.
option(BSH_SYSTEM_TREE_SITTER "Use the system's libtree-sitter runtime" OFF)

set(BSH_NPM_DIR ${PROJECT_SOURCE_DIR}/build/third_party/npm)
set(BSH_TS_DIR ${PROJECT_BINARY_DIR}/third_party/tree-sitter)
file(STRINGS ${PROJECT_SOURCE_DIR}/cmake/tree-sitter.sha256 bsh_ts_sums)
foreach(line IN LISTS bsh_ts_sums)
  string(REGEX MATCH "^([0-9a-f]+)  +(.+)$" ok "${line}")
  set(sum ${CMAKE_MATCH_1})
  set(name ${CMAKE_MATCH_2})
  set(archive ${BSH_NPM_DIR}/${name})
  if(NOT EXISTS ${archive})
    message(FATAL_ERROR "${archive} is missing: run scripts/deps.sh grammar")
  endif()
  file(SHA256 ${archive} actual)
  if(NOT actual STREQUAL sum)
    message(FATAL_ERROR "${archive} does not match its sha256 in "
      "cmake/tree-sitter.sha256: run scripts/deps.sh grammar")
  endif()
  string(REGEX REPLACE "\\.tgz$" "" stem ${name})
  if(NOT EXISTS ${BSH_TS_DIR}/${stem}/.unpacked-${sum})
    file(REMOVE_RECURSE ${BSH_TS_DIR}/${stem})
    file(ARCHIVE_EXTRACT INPUT ${archive} DESTINATION ${BSH_TS_DIR}/${stem})
    file(TOUCH ${BSH_TS_DIR}/${stem}/.unpacked-${sum})
  endif()
endforeach()

set(BSH_TS_GRAMMAR ${BSH_TS_DIR}/tree-sitter-bash-0.23.3/package)
set(BSH_TS_RUNTIME ${BSH_TS_DIR}/tree-sitter-0.22.4/package/vendor/tree-sitter/lib)

# Third-party code: built with its own flags, no -Werror, hidden from the
# shared library's exports like the rest of the engine's internals.
add_library(bsh_ts_objects OBJECT ${BSH_TS_GRAMMAR}/src/parser.c
                                  ${BSH_TS_GRAMMAR}/src/scanner.c)
target_include_directories(bsh_ts_objects PRIVATE ${BSH_TS_GRAMMAR}/src)
target_compile_options(bsh_ts_objects PRIVATE -w)
# HIDE/HIDDEN: the grammar, the runtime's API and its allocator hooks stay
# inside libbsh; only bsh_ symbols are exported.
target_compile_definitions(bsh_ts_objects PRIVATE TREE_SITTER_HIDE_SYMBOLS TREE_SITTER_HIDDEN_SYMBOLS)
if(BSH_SYSTEM_TREE_SITTER)
  pkg_check_modules(TREESITTER REQUIRED IMPORTED_TARGET tree-sitter)
  set(BSH_TS_INCLUDE ${TREESITTER_INCLUDE_DIRS})
else()
  target_sources(bsh_ts_objects PRIVATE ${BSH_TS_RUNTIME}/src/lib.c)
  target_include_directories(bsh_ts_objects PRIVATE ${BSH_TS_RUNTIME}/include
                                                    ${BSH_TS_RUNTIME}/src)
  target_compile_definitions(bsh_ts_objects PRIVATE _DEFAULT_SOURCE)
  set(BSH_TS_INCLUDE ${BSH_TS_RUNTIME}/include)
endif()
set_target_properties(bsh_ts_objects PROPERTIES
  POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)

# Links the parser into a target made of the engine's objects.
function(bsh_link_tree_sitter target scope)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:bsh_ts_objects>)
  if(BSH_SYSTEM_TREE_SITTER)
    target_link_libraries(${target} ${scope} PkgConfig::TREESITTER)
  endif()
endfunction()
