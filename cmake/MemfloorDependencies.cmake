# Finds the dependencies once and records what is there in MEMFLOOR_HAVE_* variables.

find_package(fmt REQUIRED)                  # libfmt-dev; header-only use keeps binaries portable
find_package(nlohmann_json 3.10 REQUIRED)   # nlohmann-json3-dev
find_path(MEMFLOOR_XXHASH_INCLUDE xxhash.h REQUIRED)  # libxxhash-dev, used header-only
find_package(CLI11 2 REQUIRED)             # libcli11-dev, header-only argument parsing
# RE2: linear-time regexes for user patterns (a backtracking engine recurses per character and is
# exponential on patterns like (a+)+b). memfloor_re2 is built from third_party/re2 (Debian's
# release, position-independent: the hook links it in), statically into every binary, so that
# memfloor runs where Debian's libre2.so.9 is not, as from the wheel on Ubuntu 24.04.
find_package(Threads REQUIRED)
add_subdirectory(${PROJECT_SOURCE_DIR}/third_party/re2 ${PROJECT_BINARY_DIR}/third_party/re2)

find_package(Catch2 2 QUIET)
set(MEMFLOOR_HAVE_CATCH2 ${Catch2_FOUND})

find_package(CUDAToolkit QUIET)
set(MEMFLOOR_HAVE_CUPTI OFF)
if(CUDAToolkit_FOUND AND TARGET CUDA::cupti)
  set(MEMFLOOR_HAVE_CUPTI ON)
endif()

include(CheckLanguage)
check_language(CUDA)
set(MEMFLOOR_HAVE_CUDA_COMPILER OFF)
if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
  set(MEMFLOOR_HAVE_CUDA_COMPILER ON)
endif()

find_package(LLVM 14 CONFIG QUIET)
set(MEMFLOOR_HAVE_CLANG OFF)
if(LLVM_FOUND)
  # Debian's ClangConfig.cmake has no version file: find it next to LLVM's.
  find_package(Clang CONFIG QUIET HINTS ${LLVM_DIR}/../clang)
  if(Clang_FOUND)
    set(MEMFLOOR_HAVE_CLANG ON)
  endif()
endif()

# memfloor_require(OPTION HAVE_VAR what): fail clearly when a part is asked for without its deps.
function(memfloor_require option have what)
  if(${option} AND NOT ${have})
    message(FATAL_ERROR "${option} is ON but ${what} was not found. Run scripts/setup.sh or "
                        "configure with -D${option}=OFF.")
  endif()
  if(NOT ${option} AND NOT ${have})
    message(STATUS "${option}: OFF (${what} not found)")
  endif()
endfunction()
