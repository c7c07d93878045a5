// SPDX-License-Identifier: Apache-2.0
// Fuzzes the CSV/TSV rows of `prepare --classification_task_name=csv|tsv` and the GLUE
// .tsv files: the text-level encoding repair (BOM, Latin-1, NUL) and the row parsers of
// dataprep.cpp (RFC 4180 CSV with quotes and line breaks; TSV without quoting). The first
// byte picks CSV (even) or TSV (odd).
//
// The row parsers are file-local in dataprep.cpp today, so this target compiles that file
// into itself; repoint it here when they become a public function.
#include "core/data/dataprep.cpp"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const bool csv = (data[0] & 1) == 0;
    wb::EncodingCounts counts;
    const std::string text = wb::normalizeText(std::string(reinterpret_cast<const char *>(data + 1), size - 1), counts);
    try {
        const auto rows = csv ? wb::parseCsv(text, "fuzz.csv") : wb::parseTsv(text);
        size_t bytes = 0;
        for (const auto &row : rows) {
            if (row.empty())
                std::abort(); // a row has at least one (possibly empty) field
            for (const auto &field : row)
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
