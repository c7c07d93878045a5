// SPDX-License-Identifier: Apache-2.0
// Fuzzes the CSV/TSV rows of `prepare --classification_task_name=csv|tsv` and the GLUE .tsv
// files through parseTextRows (core/prepare/textrows.h): RFC 4180 CSV with quotes, doubled
// quotes and line breaks inside quotes; ';' exports; TSV without quoting. The first byte picks
// the dialect.
#include "core/prepare/textrows.h"
#include "core/util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    wb::TextRowDialect dialect;
    switch (data[0] % 3) {
    case 0: dialect.delimiter = ','; break;
    case 1: dialect.delimiter = ';'; break;
    default: dialect.delimiter = '\t'; dialect.quoting = false; break;
    }
    const std::string_view text(reinterpret_cast<const char *>(data + 1), size - 1);
    try {
        const wb::TextRows rows = wb::parseTextRows(text, dialect, "fuzz.csv");
        size_t bytes = 0;
        int64_t lastLine = 0;
        for (const wb::TextRow &row : rows.rows) {
            if (row.fields.empty())
                std::abort(); // a row has at least one (possibly empty) field
            if (row.line <= lastLine)
                std::abort(); // rows come in file order, each on a later line
            lastLine = row.line;
            for (const std::string &field : row.fields)
                bytes += field.size();
        }
        if (bytes > text.size())
            std::abort(); // fields hold more bytes than the text
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort();
    }
    return 0;
}
