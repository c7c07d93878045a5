# SPDX-License-Identifier: Apache-2.0
# Ecosystem: TensorBoard event files, packaging.
wb_add_test(tst_eventwriter NAME core.eventwriter SOURCES core/tst_eventwriter.cpp LIBS wb_core TIMEOUT 120)
wb_add_test(tst_tfcheckpoint NAME core.tfcheckpoint SOURCES core/tst_tfcheckpoint.cpp LIBS wb_core torch)

# The .deb test runs CPack on the finished build (so it needs every installed target built,
# as `make test` does), unpacks it with dpkg -x and runs the CLI from there. Label "package":
# `ctest -L package` runs only it, `ctest -LE package` skips it.
wb_add_test(tst_package NAME packaging.deb SOURCES packaging/tst_package.cpp TIMEOUT 600 LABELS package)
if(WB_BUILD_GUI)
  set(_wb_with_gui 1)
else()
  set(_wb_with_gui 0)
endif()
target_compile_definitions(tst_package PRIVATE
    WB_CPACK_COMMAND="${CMAKE_CPACK_COMMAND}"
    WB_CPACK_CONFIG="${PROJECT_BINARY_DIR}/CPackConfig.cmake"
    WB_PROJECT_VERSION="${PROJECT_VERSION}"
    WB_WITH_GUI=${_wb_with_gui})
# CPack packages what is built: build the installed targets (and the man page) first.
add_dependencies(tst_package bert-workbench-cli wb_manpage)
if(TARGET bert-workbench)
  add_dependencies(tst_package bert-workbench)
endif()
# The man page's flags come from the option table (issue 21 §5): every flag of train --help is there.
add_test(NAME packaging.manpage
         COMMAND ${CMAKE_COMMAND} -DWB_CLI=$<TARGET_FILE:bert-workbench-cli>
                 -DWB_MANPAGE=${PROJECT_BINARY_DIR}/packaging/bert-workbench-cli.1
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging/check_manpage.cmake)
wb_test_timeout(packaging.manpage 60)
