// SPDX-License-Identifier: Apache-2.0
// Fuzzes input_meta_data.json reading: InputMetaData::load and its JSON form, then what the
// window derives from it (the model summary: BERT-Base's parameter count and training
// FLOPs for the file's num_labels and max_seq_length).
#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "fuzz/fuzzinput.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    static const wb::BertConfig base = wb::bertPresets().back().config;
    wb::Diagnostics diag;
    const auto meta = wb::InputMetaData::load(file.write(data, size), diag);
    if (!meta)
        return 0;
    const int64_t labels = std::max<int64_t>(meta->num_labels, 1);
    const int64_t seq = meta->max_seq_length > 0 ? meta->max_seq_length : 128;
    volatile int64_t total = base.parameterCount(labels).total();
    volatile double flops = base.trainingFlopsPerExample(seq, labels);
    (void)total;
    (void)flops;
    if (!diag.hasErrors())
        (void)meta->toJson().dump();
    return 0;
}
