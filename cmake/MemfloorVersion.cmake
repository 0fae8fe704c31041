# The version string, from project(VERSION) only: generated into common/version.h (in the build
# tree) for the code, and read by cmake/MemfloorPackage.cmake for the package names.
# Targets that print or record it link memfloor_version.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in
               ${PROJECT_BINARY_DIR}/generated/common/version.h @ONLY)
add_library(memfloor_version INTERFACE)
target_include_directories(memfloor_version INTERFACE ${PROJECT_BINARY_DIR}/generated)
