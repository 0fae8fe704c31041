# Warning flags for the project's own targets: memfloor_warnings(target).
function(memfloor_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                              -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wnull-dereference
                              -Wimplicit-fallthrough>)
  if(MEMFLOOR_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()
