# The install layout (cmake --install build --prefix P), where memfloor's binaries find their
# parts relative to their own location (common/parts.h):
#
#   P/bin/memfloor, P/bin/memfloor-check, P/bin/memfloor-check-clang
#   P/lib/memfloor/libmemfloor_hook.so
#   P/share/memfloor/companion         the Python companion (sitecustomize.py, memfloor/)
#   P/share/memfloor/checker-python    the checker's Python front end (memfloor_pyfacts/)
#   P/share/memfloor/demo              what `memfloor demo` reads, at its paths in the sources
#   P/share/doc/memfloor               README.md and docs/
#
# Two components: `tool` (memfloor, the hook, the companion, memfloor-check and its Python front
# end, the demo, the docs: what the wheel carries) and `checker` (memfloor-check-clang, which
# links LLVM and Clang 14: memfloor-check hands it C++ sources).
# The paths are fixed, not GNUInstallDirs': the binaries look for lib/memfloor and share/memfloor
# next to their own bin/. Nothing of ours is a shared library that a binary links, so installed
# files carry no RPATH: CMake drops the build tree's (CUDA's lib folder, from the hook's link to
# libcupti), and libcupti is found where the user's CUDA puts it (docs/install.md).

set(MEMFLOOR_INSTALL_DATA share/memfloor)
set(CMAKE_SKIP_INSTALL_RPATH ON)

install(TARGETS memfloor RUNTIME DESTINATION bin COMPONENT tool)
if(TARGET memfloor_hook)
  install(TARGETS memfloor_hook LIBRARY DESTINATION lib/memfloor COMPONENT tool)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/companion/ DESTINATION ${MEMFLOOR_INSTALL_DATA}/companion
        COMPONENT tool FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
if(TARGET memfloor-check)
  install(TARGETS memfloor-check RUNTIME DESTINATION bin COMPONENT tool)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/checker/python/
          DESTINATION ${MEMFLOOR_INSTALL_DATA}/checker-python COMPONENT tool
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  install(TARGETS memfloor-check-clang RUNTIME DESTINATION bin COMPONENT checker)
endif()

# The demo's data, at the paths the demo reads in the sources: the model's recorded traces and
# findings, the PyTorch run, the Python seeds, and the model's sources the findings quote.
set(memfloor_demo ${MEMFLOOR_INSTALL_DATA}/demo)
install(FILES ${PROJECT_SOURCE_DIR}/testdata/model/fixed.mftrace
              ${PROJECT_SOURCE_DIR}/testdata/model/hc-bug.mftrace
              ${PROJECT_SOURCE_DIR}/testdata/model/findings.json
        DESTINATION ${memfloor_demo}/testdata/model COMPONENT tool)
install(FILES ${PROJECT_SOURCE_DIR}/testdata/analysis/torch_holders_graph.txt
        DESTINATION ${memfloor_demo}/testdata/analysis COMPONENT tool)
install(FILES ${PROJECT_SOURCE_DIR}/testdata/checker/python/seed_offload_manager.py
              ${PROJECT_SOURCE_DIR}/testdata/checker/python/seed_combined_1f1b.py
        DESTINATION ${memfloor_demo}/testdata/checker/python COMPONENT tool)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/reference_model/ DESTINATION ${memfloor_demo}/reference_model
        COMPONENT tool FILES_MATCHING PATTERN "*.cpp" PATTERN "*.h")

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/memfloor COMPONENT tool)
# RE2 is linked into every binary and the hook (third_party/re2): its BSD licence asks that its
# notice come with them.
install(FILES ${PROJECT_SOURCE_DIR}/third_party/re2/LICENSE DESTINATION share/doc/memfloor
        RENAME LICENSE.re2 COMPONENT tool)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/memfloor/docs COMPONENT tool
        FILES_MATCHING PATTERN "*.md")

# The build tree keeps the demo's data where an install does (share/memfloor/demo next to the
# binaries' folders): a link to the sources, so that build/cli/memfloor finds it the same way.
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/${MEMFLOOR_INSTALL_DATA})
file(CREATE_LINK ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/${memfloor_demo} SYMBOLIC)
