# SPDX-License-Identifier: Apache-2.0
# GUI (issue 5): LossPlot with 10^6 points, and the worst UI stall during a training run.
if(WB_BUILD_GUI AND TARGET wb_ui)
  if(NOT TARGET benchmarks)
    add_custom_target(benchmarks)
  endif()
  add_executable(bench_lossplot ${CMAKE_CURRENT_SOURCE_DIR}/bench_lossplot.cpp)
  target_compile_definitions(bench_lossplot PRIVATE ${WB_QT_DEFINES})
  target_link_libraries(bench_lossplot PRIVATE wb_ui QCustomPlotQt6::QCustomPlotQt6 wb_warnings)
  add_dependencies(benchmarks bench_lossplot)
  # Issue 25: the embedding view's redraw at 5,000 and 10,000 points.
  add_executable(bench_embeddingview ${CMAKE_CURRENT_SOURCE_DIR}/bench_embeddingview.cpp)
  target_compile_definitions(bench_embeddingview PRIVATE ${WB_QT_DEFINES})
  target_link_libraries(bench_embeddingview PRIVATE wb_ui QCustomPlotQt6::QCustomPlotQt6 wb_warnings)
  add_dependencies(benchmarks bench_embeddingview)
endif()
