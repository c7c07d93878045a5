# Regression tests for the crashers the fuzzers in fuzz/ found (docs/reliability.md, "Fuzzing").
# ui/form/projectfile.cpp (Qt Core only) is compiled in and the torch-free libraries linked, so
# that the test needs no libtorch.
wb_add_test(tst_fuzzregressions NAME core.fuzzregressions
            SOURCES core/tst_fuzzregressions.cpp ${PROJECT_SOURCE_DIR}/ui/form/projectfile.cpp
            LIBS wb_rundir)

# fuzz.replay: every seed and fixed crasher through every fuzz target, built with the ordinary
# compiler and no libFuzzer (well under a second). The targets' entry points are renamed so
# that all of them fit in one executable. The Hub's parsers come with wb_rundir (which links
# wb_hub), not as sources of their own here: wb_hub is a unity build, and a second copy of one of
# its files would define its functions twice.
set(_wb_fuzz_dir ${PROJECT_SOURCE_DIR}/fuzz)
set(_wb_fuzz_sources "")
foreach(t bertconfig inputmetadata tfconfig tfrecord example safetensors torchpickle eventfile csvtsv vocab projectfile
          progressjsonl evalexamples bestrecord runconfig labelnames preparereport metricsjsonl lrfind hubresponse
          pretrainingtext pretrainingrecord emailbody splitfile sweepfile sweepevents corrections labelstore)
  set_source_files_properties(${_wb_fuzz_dir}/fuzz_${t}.cpp PROPERTIES
                              COMPILE_DEFINITIONS LLVMFuzzerTestOneInput=fuzz_${t}_entry)
  list(APPEND _wb_fuzz_sources ${_wb_fuzz_dir}/fuzz_${t}.cpp)
endforeach()
add_executable(wb_fuzzreplay ${_wb_fuzz_dir}/replay.cpp ${_wb_fuzz_sources}
               ${PROJECT_SOURCE_DIR}/ui/form/projectfile.cpp
               ${PROJECT_SOURCE_DIR}/ui/evaluation/classmetrics.cpp)
target_include_directories(wb_fuzzreplay PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(wb_fuzzreplay PRIVATE ${WB_QT_DEFINES})
target_link_libraries(wb_fuzzreplay PRIVATE wb_rundir wb_launch Qt6::Core ZLIB::ZLIB PkgConfig::UTF8PROC
                      OpenSSL::Crypto Threads::Threads)
add_test(NAME fuzz.replay COMMAND wb_fuzzreplay ${_wb_fuzz_dir})
wb_test_timeout(fuzz.replay 60)
