// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/textrows.h"

#include "core/util/error.h"

#include <algorithm>

namespace wb {

namespace {

// The state of one parseTextRows() pass over a buffer.
struct RowParser
{
    RowParser(std::string_view text, const TextRowDialect &dialect, const std::string &fileName)
        : text(text), dialect(dialect), fileName(fileName)
    {
    }

    std::string_view text;
    const TextRowDialect &dialect;
    const std::string &fileName;
    TextRows out;
    size_t i = 0;
    int64_t line = 1;
    TextRow row;
    std::string field;
    bool rowStarted = false;  // any byte of the current row seen
    bool atFieldStart = true;

    void endField()
    {
        row.fields.push_back(std::move(field));
        field.clear();
    }

    void endRow()
    {
        if (rowStarted) {
            endField();
            out.rows.push_back(std::move(row));
        }
        row = TextRow{};
        rowStarted = false;
    }

    // Length of the line break at k, 0 if none.
    size_t lineBreakAt(size_t k) const
    {
        if (text[k] == '\n')
            return 1;
        if (text[k] == '\r')
            return k + 1 < text.size() && text[k + 1] == '\n' ? 2 : 1;
        return 0;
    }

    // A quoted field from its opening quote at i to after its closing quote (RFC 4180 §2).
    void readQuoted()
    {
        const int64_t quoteLine = line;
        rowStarted = true;
        ++i;
        while (true) {
            if (i >= text.size())
                throw Error(fileName + ":" + std::to_string(quoteLine),
                            "a quoted field is not closed before the end of the file",
                            "Close the quote; inside a quoted field write a quote as \"\".");
            const char q = text[i];
            if (q == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field.push_back('"');
                    i += 2;
                    continue;
                }
                ++i;
                break;
            }
            if (const size_t nl = lineBreakAt(i)) {
                field.append(text.substr(i, nl));
                i += nl;
                ++line;
                continue;
            }
            field.push_back(q);
            ++i;
        }
        if (i < text.size() && text[i] != dialect.delimiter && !lineBreakAt(i))
            throw Error(fileName + ":" + std::to_string(line), "text follows the closing quote of a quoted field",
                        "Quote the whole field and write each quote inside it as \"\" "
                        "(e.g. \"she said \"\"hi\"\" twice\").");
        atFieldStart = false;
    }

    TextRows run()
    {
        if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
            out.had_bom = true;
            i = 3;
        }
        while (i < text.size()) {
            if (!rowStarted)
                row.line = line;
            const char c = text[i];
            if (dialect.quoting && c == '"' && atFieldStart) {
                readQuoted();
                continue;
            }
            if (const size_t nl = lineBreakAt(i)) {
                endRow();
                i += nl;
                ++line;
                atFieldStart = true;
                continue;
            }
            rowStarted = true;
            if (c == dialect.delimiter) {
                endField();
                atFieldStart = true;
            } else {
                field.push_back(c);
                atFieldStart = false;
            }
            ++i;
        }
        endRow();
        return std::move(out);
    }
};

} // namespace

TextRows parseTextRows(std::string_view text, const TextRowDialect &dialect, const std::string &fileName)
{
    RowParser parser(text, dialect, fileName);
    return parser.run();
}

char detectCsvDelimiter(std::string_view text)
{
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    const std::string_view head = text.substr(0, std::min(text.find_first_of("\r\n"), text.size()));
    return head.find(',') == std::string_view::npos && head.find(';') != std::string_view::npos ? ';' : ',';
}

} // namespace wb
