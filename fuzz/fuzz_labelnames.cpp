// SPDX-License-Identifier: Apache-2.0
// Fuzzes labels.txt reading (prepare's label names, one per line in label id order; the
// window's evaluation views, the try-it panel and classify name classes with it):
// readLabelsFile on the input, then readLabelNames beside an input_meta_data.json path with
// num_labels equal to the file's count (the names must come from the file, none empty), one
// more (the file must be skipped with a warning, "label N" used) and an id2label list.
#include "core/config/labelnames.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::ScratchDir dir;
    const std::string labels = dir.write("labels.txt", data, size);
    const std::string meta = dir.path() + "/input_meta_data.json";
    const auto names = wb::readLabelsFile(labels);
    if (!names)
        std::abort(); // the file exists
    const int64_t n = int64_t(names->size());
    if (n > 0) {
        const wb::LabelNames fromFile = wb::readLabelNames(meta, n);
        if (fromFile.source != labels || int64_t(fromFile.names.size()) != n)
            std::abort();
        for (const auto &name : fromFile.names)
            if (name.empty())
                std::abort();
    }
    const wb::LabelNames fallback = wb::readLabelNames(meta, n + 1, {"a", "b"});
    if (int64_t(fallback.names.size()) != n + 1 || fallback.warning.empty())
        std::abort();
    return 0;
}
