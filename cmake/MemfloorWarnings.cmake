# Warning flags for the project's own targets: memfloor_warnings(target).
# -Wnull-dereference is left out: GCC 12 reports it at -O2 inside inlined libstdc++ and CLI11
# code (basic_string.h, StringTools.hpp) where no null pointer can occur.
function(memfloor_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                              -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
                              -Wimplicit-fallthrough>)
  # In a unity build every source is an included file, and GCC then takes a class that has a
  # member of a file-local type for one shared between files (scripts/build.sh --demo).
  if(CMAKE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
  endif()
  if(MEMFLOOR_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()
