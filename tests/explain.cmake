# SPDX-License-Identifier: Apache-2.0
# Issue 25, token attributions: Integrated Gradients and gradient × input against references
# computed in the test, the completeness check, classify --explain, Try it's shaded chips.
wb_add_test(tst_attribution NAME core.attribution SOURCES core/tst_attribution.cpp LIBS wb_core wb_launch torch)
wb_add_test(tst_cliexplain NAME cli.explain SOURCES cli/tst_cliexplain.cpp LIBS wb_cli torch TIMEOUT 120)
wb_add_test(tst_tryitexplain NAME ui.tryitexplain SOURCES ui/tst_tryitexplain.cpp LIBS wb_ui GUI TIMEOUT 300)
