# SPDX-License-Identifier: Apache-2.0
# Training throughput (issue 4): C++ step vs the Python reference (bench/train_reference.py).
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_train ${CMAKE_CURRENT_SOURCE_DIR}/bench_train.cpp)
target_link_libraries(bench_train PRIVATE wb_core torch wb_warnings)
add_dependencies(benchmarks bench_train)
# Masked-LM pretraining throughput (issue 24) vs bench/train_reference.py --task pretrain.
add_executable(bench_pretrain ${CMAKE_CURRENT_SOURCE_DIR}/bench_pretrain.cpp)
target_link_libraries(bench_pretrain PRIVATE wb_core torch wb_warnings)
add_dependencies(benchmarks bench_pretrain)
