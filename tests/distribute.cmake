# SPDX-License-Identifier: Apache-2.0
# Distribution strategies (issue 6): cluster spec, c10d process group, strategies, launcher.
wb_add_test(tst_clusterspec NAME core.clusterspec SOURCES core/tst_clusterspec.cpp LIBS wb_core TIMEOUT 60)
wb_add_test(tst_processgroup NAME core.processgroup SOURCES core/tst_processgroup.cpp LIBS wb_core torch TIMEOUT 90)
wb_add_test(tst_locallauncher NAME core.locallauncher SOURCES core/tst_locallauncher.cpp LIBS wb_core wb_launch TIMEOUT 60)
wb_add_test(tst_strategy NAME core.strategy SOURCES core/tst_strategy.cpp LIBS wb_core torch TIMEOUT 60)
# Issue 6 item 7: 2 workers with global batch 8 == 1 worker with batch 8 after 5 steps.
wb_add_test(tst_distributedtraining NAME core.distributedtraining SOURCES core/tst_distributedtraining.cpp
            LIBS wb_core torch TIMEOUT 120)
# The CLI as a user runs it: local workers, missing worker, bad TF_CONFIG, odd batch.
wb_add_test(tst_clidistribute NAME cli.distribute SOURCES cli/tst_clidistribute.cpp LIBS wb_core wb_launch TIMEOUT 180)
add_dependencies(tst_clidistribute bert-workbench-cli)
