# Regression tests for the crashers the fuzzers in fuzz/ found (docs/reliability.md, "Fuzzing").
wb_add_test(tst_fuzzregressions NAME core.fuzzregressions SOURCES core/tst_fuzzregressions.cpp LIBS wb_config)
