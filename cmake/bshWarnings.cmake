# Warnings applied to every target of the project.
function(bsh_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wstrict-prototypes
    -Wmissing-prototypes -Wvla -Wwrite-strings -Wformat=2)
  if(BSH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
