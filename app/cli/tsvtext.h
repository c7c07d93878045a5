// SPDX-License-Identifier: Apache-2.0
#pragma once

// The text of TSV output (classify, fill_mask): cells and numbers.

#include <algorithm>
#include <cstdio>
#include <string>

namespace wb::cli {

/// `v` with 9 significant digits ("%.9g": enough to tell float32 values apart).
inline std::string tsvNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

/// One TSV cell: tabs and line breaks would break the row, so they become spaces.
inline std::string tsvCell(std::string s)
{
    std::replace_if(s.begin(), s.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
    return s;
}

} // namespace wb::cli
