// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// One row of a delimited text file: its fields (raw bytes, quotes removed) and the
/// 1-based line on which the row starts (a quoted field may span several lines).
struct TextRow
{
    int64_t line = 0;
    std::vector<std::string> fields;
};

/// How parseTextRows() splits a buffer.
struct TextRowDialect
{
    char delimiter = ',';  ///< ',' (CSV), ';' (spreadsheet exports in some locales) or '\t'
    bool quoting = true;   ///< RFC 4180 quotes (CSV); false: none, as the GLUE TSV readers
                           ///< (csv.reader with quotechar=None in tensorflow/models' processors)
};

/// The result of parseTextRows().
struct TextRows
{
    std::vector<TextRow> rows;
    bool had_bom = false;  ///< a UTF-8 byte order mark at the start was removed
};

/// Splits `buffer` into rows and fields. Pure; thread-safe; no I/O.
///
/// - Line ends: "\n", "\r\n" and a lone "\r" (old spreadsheet exports) end a row.
/// - A UTF-8 byte order mark at the very start is removed (`had_bom`).
/// - Lines with no bytes at all (blank lines, trailing empty lines) produce no row.
/// - With `quoting` (RFC 4180 §2): a field that starts with '"' is quoted; inside it the
///   delimiter and line breaks are data and '""' stands for one '"'. A '"' inside an
///   unquoted field is kept as data.
/// Bytes are not decoded: fields may hold invalid UTF-8 (callers check each row).
/// Throws wb::Error with field "<fileName>:<line>" when a quoted field is not closed before
/// the end of the buffer, or when a closing quote is followed by anything other than the
/// delimiter or a line end (hint: double the quote). `fileName` is used only in messages.
TextRows parseTextRows(std::string_view buffer, const TextRowDialect &dialect, const std::string &fileName);

/// The field delimiter of a .csv file's text: ';' when its first line (after a UTF-8 byte
/// order mark) has ';' and no ',' — the CSV export of spreadsheets in locales with a
/// decimal comma — else ','. Column names seldom hold either. Pure; thread-safe.
char detectCsvDelimiter(std::string_view text);

} // namespace wb
