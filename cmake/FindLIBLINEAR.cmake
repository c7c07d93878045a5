# SPDX-License-Identifier: Apache-2.0
# Finds liblinear (Debian: liblinear-dev, https://www.csie.ntu.edu.tw/~cjlin/liblinear/),
# which ships linear.h and liblinear.so without a pkg-config file or CMake package.
#
# Result: LIBLINEAR_FOUND, LIBLINEAR_INCLUDE_DIR, LIBLINEAR_LIBRARY, LIBLINEAR_VERSION
# (from LIBLINEAR_VERSION in linear.h, e.g. 230 → "2.30") and the imported target
# LIBLINEAR::LIBLINEAR.
find_path(LIBLINEAR_INCLUDE_DIR NAMES linear.h PATH_SUFFIXES liblinear)
find_library(LIBLINEAR_LIBRARY NAMES linear liblinear)

if(LIBLINEAR_INCLUDE_DIR AND EXISTS "${LIBLINEAR_INCLUDE_DIR}/linear.h")
  file(STRINGS "${LIBLINEAR_INCLUDE_DIR}/linear.h" _wb_linear_version REGEX "^#define LIBLINEAR_VERSION [0-9]+")
  if(_wb_linear_version MATCHES "LIBLINEAR_VERSION ([0-9]+)")
    math(EXPR _wb_major "${CMAKE_MATCH_1} / 100")
    math(EXPR _wb_minor "${CMAKE_MATCH_1} % 100")
    set(LIBLINEAR_VERSION "${_wb_major}.${_wb_minor}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LIBLINEAR
    REQUIRED_VARS LIBLINEAR_LIBRARY LIBLINEAR_INCLUDE_DIR
    VERSION_VAR LIBLINEAR_VERSION
    REASON_FAILURE_MESSAGE "install Debian's liblinear-dev (scripts/install-deps.sh)")

if(LIBLINEAR_FOUND AND NOT TARGET LIBLINEAR::LIBLINEAR)
  add_library(LIBLINEAR::LIBLINEAR UNKNOWN IMPORTED)
  set_target_properties(LIBLINEAR::LIBLINEAR PROPERTIES
      IMPORTED_LOCATION "${LIBLINEAR_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${LIBLINEAR_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBLINEAR_INCLUDE_DIR LIBLINEAR_LIBRARY)
