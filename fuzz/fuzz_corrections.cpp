// SPDX-License-Identifier: Apache-2.0
// Fuzzes corrections.jsonl reading (`prepare --corrections_file`; written by `suspects`, often
// edited by hand): readCorrections on the input. It returns the corrections or throws wb::Error
// naming the file and the line (any other exception is a crash); an accepted or changed line has a
// corrected label, the others none; and what it returns, written again (correctionsJsonl), reads
// back the same.
#include "core/prepare/corrections.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    const std::string &path = file.write(data, size);
    try {
        const std::vector<wb::Correction> read = wb::readCorrections(path);
        for (const wb::Correction &c : read)
            if (c.file.empty() || c.relabels() == c.corrected_label.empty() || c.source_line < 1)
                std::abort();
        const std::vector<wb::Correction> again = wb::parseCorrections(wb::correctionsJsonl(read), "again");
        if (again.size() != read.size())
            std::abort();
        for (size_t i = 0; i < read.size(); ++i)
            if (again[i].file != read[i].file || again[i].line != read[i].line || again[i].index != read[i].index
                || again[i].label != read[i].label || again[i].decision != read[i].decision
                || again[i].corrected_label != read[i].corrected_label)
                std::abort();
    } catch (const wb::Error &e) {
        if (e.field().rfind(path, 0) != 0 || std::string(e.what()).empty())
            std::abort(); // every error names the file (and the line)
    }
    return 0;
}
