# cpack (in the build folder): build/memfloor_<version>_amd64.deb, the install layout under /usr
# (cmake/MemfloorInstall.cmake), both components in one package. Its runtime dependencies come
# from dpkg-shlibdeps on the binaries: the LLVM/Clang 14 libraries memfloor-check links and the C
# library (memfloor links its C++ runtime and RE2 in, cli/CMakeLists.txt). libcupti is not one of
# them: CUDA's CUPTI is the user's (the toolkit's, or pip's nvidia-cuda-cupti), so dpkg-shlibdeps
# is shown CUDA's lib folder only to let it pass over the hook's link to it; `memfloor run` says
# when the hook cannot find it.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME memfloor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds GPU memory a training program keeps alive longer than it needs")
set(CPACK_PACKAGE_DESCRIPTION
    "memfloor records every GPU allocation of an unmodified CUDA or PyTorch program (memfloor run),\n"
    "reports the memory kept alive in the idle window between iterations and what holds it\n"
    "(memfloor analyze, report, gate), and checks C++ and Python sources for members that keep\n"
    "device memory after their last use (memfloor check).")
set(CPACK_PACKAGE_CONTACT "memfloor maintainers <memfloor@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # memfloor_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE https://github.com/memfloor/memfloor)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(CUDAToolkit_LIBRARY_DIR)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
# The companion and the checker's Python front end run in Python; llvm-symbolizer names native
# frames (without it, from the ELF symbol tables).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "llvm-14")
set(CPACK_STRIP_FILES ON)
include(CPack)
