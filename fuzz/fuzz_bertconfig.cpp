// SPDX-License-Identifier: Apache-2.0
// Fuzzes bert_config.json reading: BertConfig::load (JSON file, BOM, syntax errors, key
// types and ranges), then what the window derives from an accepted config.
#include "core/config/bertconfig.h"
#include "fuzz/fuzzinput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    wb::Diagnostics diag;
    const auto config = wb::BertConfig::load(file.write(data, size), diag);
    if (!config || diag.hasErrors())
        return 0;
    const wb::ParameterCount pc = config->parameterCount(2);
    volatile int64_t total = pc.total();
    volatile double flops = config->trainingFlopsPerExample(128, 2);
    (void)total;
    (void)flops;
    (void)config->toJson().dump();
    return 0;
}
