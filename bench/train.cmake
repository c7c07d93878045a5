# SPDX-License-Identifier: Apache-2.0
# Training throughput (issue 4): C++ step vs the Python reference (bench/train_reference.py).
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_train ${CMAKE_CURRENT_SOURCE_DIR}/bench_train.cpp)
target_link_libraries(bench_train PRIVATE wb_core torch ${WB_DNNL_LIB} wb_warnings)
target_include_directories(bench_train PRIVATE ${WB_DNNL_INCLUDE})
add_dependencies(benchmarks bench_train)
# The step's kernel choices A/B, taking turns step by step in one process (session 12).
add_executable(bench_stepab ${CMAKE_CURRENT_SOURCE_DIR}/bench_stepab.cpp)
target_link_libraries(bench_stepab PRIVATE wb_core torch wb_warnings)
add_dependencies(benchmarks bench_stepab)
# Masked-LM pretraining throughput (issue 24) vs bench/train_reference.py --task pretrain.
add_executable(bench_pretrain ${CMAKE_CURRENT_SOURCE_DIR}/bench_pretrain.cpp)
target_link_libraries(bench_pretrain PRIVATE wb_core torch wb_warnings)
add_dependencies(benchmarks bench_pretrain)
# Every GEMM of a BERT-Mini step, per shape and kernel (issue 28): at::mm / at::bmm as the
# model calls them, OpenBLAS's cblas_sgemm, oneDNN's dnnl_sgemm and matmul primitive.
# Needs oneDNN's headers (Debian: libdnnl-dev); skipped without them.
find_path(WB_DNNL_INCLUDE oneapi/dnnl/dnnl.hpp)
find_library(WB_DNNL_LIB NAMES dnnl)
find_path(WB_CBLAS_INCLUDE cblas.h PATH_SUFFIXES x86_64-linux-gnu)
find_library(WB_BLAS_LIB NAMES blas)
if(WB_DNNL_INCLUDE AND WB_DNNL_LIB AND WB_CBLAS_INCLUDE AND WB_BLAS_LIB)
  add_executable(bench_gemmshapes ${CMAKE_CURRENT_SOURCE_DIR}/bench_gemmshapes.cpp)
  target_include_directories(bench_gemmshapes PRIVATE ${WB_DNNL_INCLUDE} ${WB_CBLAS_INCLUDE})
  target_link_libraries(bench_gemmshapes PRIVATE wb_config torch ${WB_DNNL_LIB} ${WB_BLAS_LIB} wb_warnings)
  add_dependencies(benchmarks bench_gemmshapes)
endif()
