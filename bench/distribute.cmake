# SPDX-License-Identifier: Apache-2.0
# Distribution (issue 6): all-reduce bandwidth of the bucketed gradient sync.
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_allreduce ${CMAKE_CURRENT_SOURCE_DIR}/bench_allreduce.cpp)
target_link_libraries(bench_allreduce PRIVATE wb_core torch wb_warnings)
add_dependencies(benchmarks bench_allreduce)
