# SPDX-License-Identifier: Apache-2.0
# Pretrained models (issue 22): Hub download speed against curl from the local stand-in for the Hub.
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_hubdownload bench_hubdownload.cpp)
target_include_directories(bench_hubdownload PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(bench_hubdownload PRIVATE wb_hub OpenSSL::Crypto Threads::Threads)
add_dependencies(benchmarks bench_hubdownload)
