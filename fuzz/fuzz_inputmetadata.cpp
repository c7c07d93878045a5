// SPDX-License-Identifier: Apache-2.0
// Fuzzes input_meta_data.json reading: InputMetaData::load and its JSON form.
#include "core/config/inputmetadata.h"
#include "fuzz/fuzzinput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    wb::Diagnostics diag;
    const auto meta = wb::InputMetaData::load(file.write(data, size), diag);
    if (meta && !diag.hasErrors())
        (void)meta->toJson().dump();
    return 0;
}
