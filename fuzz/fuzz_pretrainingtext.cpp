// SPDX-License-Identifier: Apache-2.0
// Fuzzes the text input of `prepare_pretraining` (core/corpus/pretrainingtext.h): plain text with
// blank-line documents, CSV/TSV with a header row, JSONL objects; the UTF-8 and binary checks.
// The first byte picks the format and whether the text column is named.
#include "core/corpus/pretrainingtext.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    if (size < 1)
        return 0;
    const char *formats[] = {"text", "csv", "tsv", "jsonl"};
    const std::string format = formats[data[0] % 4];
    const std::string column = (data[0] & 4) ? "text" : "";
    try {
        wb::PretrainingTextReader reader({file.write(data + 1, size - 1)}, format, column);
        wb::PretrainingTextDocument doc;
        size_t bytes = 0;
        bool first = true;
        while (reader.next(doc)) {
            if (doc.sentences.empty() || doc.where.empty())
                std::abort(); // a document has a sentence and a location
            if (first && doc.continues)
                std::abort(); // the first part continues nothing
            first = false;
            for (const std::string &s : doc.sentences) {
                if (s.empty() || s.size() > wb::PretrainingTextReader::kMaxSentenceBytes)
                    std::abort();
                if (s.find_first_of("\r\n") != std::string::npos && format == "text")
                    std::abort(); // a line holds no line end
                if (wb::firstInvalidUtf8(s) != std::string::npos || s.find('\0') != std::string::npos)
                    std::abort(); // only valid UTF-8 text gets through
                bytes += s.size();
            }
        }
        if (format == "text" && bytes > size - 1)
            std::abort(); // the sentences hold more bytes than the file
        if (reader.bytesRead() != size - 1)
            std::abort(); // every byte was read
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort();
    }
    return 0;
}
