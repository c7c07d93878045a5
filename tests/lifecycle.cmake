# SPDX-License-Identifier: Apache-2.0
# Run lifecycle (issue 13): run identity, resume, interval checkpoints, I/O faults, kill -9.
wb_add_test(tst_runlifecycle NAME cli.lifecycle SOURCES cli/tst_runlifecycle.cpp LIBS wb_cli TIMEOUT 240)
add_dependencies(tst_runlifecycle bert-workbench-cli)
