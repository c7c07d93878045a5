# SPDX-License-Identifier: Apache-2.0
# Token attributions (issue 25): Integrated Gradients, 32 steps, 128 wordpieces, BERT-Tiny, one core.
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_explain ${CMAKE_CURRENT_SOURCE_DIR}/bench_explain.cpp)
target_link_libraries(bench_explain PRIVATE wb_core torch wb_warnings)
add_dependencies(benchmarks bench_explain)
