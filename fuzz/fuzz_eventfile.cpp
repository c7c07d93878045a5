// SPDX-License-Identifier: Apache-2.0
// Fuzzes TensorBoard event file reading (the window's "Open TensorBoard logs"):
// EventReader::readFile on the input as an event file (TFRecord framing, plain or
// compressed, Event and Summary protos, simple_value and TF2 tensor scalars). readRuns
// reads each file the same way and turns its errors into warnings.
#include "core/io/eventreader.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    const std::string &path = file.write(data, size);
    try {
        const wb::EventFileContents c = wb::EventReader::readFile(path);
        if (int64_t(c.scalars.size()) > c.records)
            std::abort();
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort();
    }
    return 0;
}
