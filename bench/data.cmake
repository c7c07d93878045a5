# Data layer benchmarks: tokenizer throughput/parity, TFRecord read throughput.
if(NOT TARGET benchmarks)
  add_custom_target(benchmarks)
endif()
add_executable(bench_tokenizer bench_tokenizer.cpp)
target_link_libraries(bench_tokenizer PRIVATE wb_data)
add_executable(bench_tfrecord bench_tfrecord.cpp)
target_link_libraries(bench_tfrecord PRIVATE wb_data)
# The bag-of-words baseline (issue 25): records → TF-IDF → liblinear on the SpamAssassin corpus.
add_executable(bench_bagofwords bench_bagofwords.cpp)
target_link_libraries(bench_bagofwords PRIVATE wb_data)
add_dependencies(benchmarks bench_tokenizer bench_tfrecord bench_bagofwords)
