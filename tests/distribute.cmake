# SPDX-License-Identifier: Apache-2.0
# Distribution strategies (issue 6): cluster spec, c10d process group, strategies, launcher.
wb_add_test(tst_clusterspec NAME core.clusterspec SOURCES core/tst_clusterspec.cpp LIBS wb_core TIMEOUT 60)
wb_add_test(tst_processgroup NAME core.processgroup SOURCES core/tst_processgroup.cpp LIBS wb_core torch TIMEOUT 90)
wb_add_test(tst_locallauncher NAME core.locallauncher SOURCES core/tst_locallauncher.cpp LIBS wb_core TIMEOUT 60)
