# SPDX-License-Identifier: Apache-2.0
# Layering (issue 11, extended to ui/ and app/ in issue 21): no folder includes a folder above it,
# no Qt in core, torch only where allowed, the front-ends torch-free.
add_test(NAME core.layering
         COMMAND ${CMAKE_COMMAND} -DWB_SOURCE_DIR=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layers.cmake)
set_tests_properties(core.layering PROPERTIES LABELS "layering")
wb_test_timeout(core.layering 60)
