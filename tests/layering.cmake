# SPDX-License-Identifier: Apache-2.0
# core/ layering (issue 11): no folder includes a folder above it, no Qt, torch only where allowed.
add_test(NAME core.layering
         COMMAND ${CMAKE_COMMAND} -DWB_SOURCE_DIR=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layers.cmake)
set_tests_properties(core.layering PROPERTIES TIMEOUT 60 LABELS "layering")
