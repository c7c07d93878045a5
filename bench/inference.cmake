# SPDX-License-Identifier: Apache-2.0
# Inference (issue 26 "Measured"): classify's forward pass vs ONNX Runtime on the exported model.
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_inference ${CMAKE_CURRENT_SOURCE_DIR}/bench_inference.cpp)
target_link_libraries(bench_inference PRIVATE wb_core torch wb_warnings)
target_compile_definitions(bench_inference PRIVATE WB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(benchmarks bench_inference)
# --onnx_dtype int8 against fp32 (issue 48): file size, eval accuracy and speed in ONNX Runtime at batch 1.
add_executable(bench_int8 ${CMAKE_CURRENT_SOURCE_DIR}/bench_int8.cpp)
target_link_libraries(bench_int8 PRIVATE wb_core torch wb_warnings)
target_compile_definitions(bench_int8 PRIVATE WB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(benchmarks bench_int8)
