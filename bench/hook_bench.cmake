# The hook's overhead benchmark (issue 3 (a)); include()d from bench/CMakeLists.txt or, until then,
# from tests/runtime_hook. Plain C++ against the CUDA runtime: no nvcc needed.
add_executable(memfloor_hook_bench ${PROJECT_SOURCE_DIR}/bench/hook_overhead.cpp)
target_link_libraries(memfloor_hook_bench PRIVATE CUDA::cudart_static)
memfloor_warnings(memfloor_hook_bench)

# The baseline: the least a CUPTI consumer can do (MEMORY2 only, count the records).
add_library(memfloor_min_consumer SHARED ${PROJECT_SOURCE_DIR}/bench/hook_min_consumer.cpp)
target_link_libraries(memfloor_min_consumer PRIVATE CUDA::cupti)
target_link_options(memfloor_min_consumer PRIVATE -static-libstdc++ -static-libgcc)
memfloor_warnings(memfloor_min_consumer)
