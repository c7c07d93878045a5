// SPDX-License-Identifier: Apache-2.0
// Fuzzes split.jsonl reading (`prepare --split_file`, the Prepare dialog's "Split as in"; the
// file is a user's, often edited by hand): readSplitFile on the input. It returns the rows'
// sides or throws wb::Error naming the file and the line (any other exception is a crash); it
// keeps at most one side per input line, and only train and eval rows.
#include "core/prepare/preparesplit.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <algorithm>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    const std::string &path = file.write(data, size);
    try {
        const auto sides = wb::prep::readSplitFile(path);
        const size_t lines = size_t(std::count(data, data + size, uint8_t('\n'))) + 1;
        if (sides.size() > lines)
            std::abort();
        for (const auto &[key, eval] : sides)
            if (key.find('\x1f') == std::string::npos)
                std::abort(); // splitKey's form: file, \x1f, line
    } catch (const wb::Error &e) {
        if (e.field().rfind(path, 0) != 0 || std::string(e.what()).empty())
            std::abort(); // every error names the file (and the line)
    }
    return 0;
}
