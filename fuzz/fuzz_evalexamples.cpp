// SPDX-License-Identifier: Apache-2.0
// Fuzzes eval_examples.jsonl reading as the window's top-losses view does it:
// readEvalExamples on the input as the file (one JSON object per line; a bad line must be a
// wb::Error naming the file and line), then what the view derives from the examples —
// topLosses (all, one confusion-matrix cell, mistakes only), mostConfusedPairs — and each
// example encoded again with evalExampleJson, as train writes it.
#include "core/formats/evalexamples.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    const std::string &path = file.write(data, size);
    std::vector<wb::EvalExample> examples;
    try {
        examples = wb::readEvalExamples(path);
    } catch (const wb::Error &e) {
        if (e.field().empty() || std::string(e.what()).empty())
            std::abort(); // the contract: a rejected line names the file:line and the problem
        return 0;
    }
    const auto all = wb::topLosses(examples, 0);
    if (all.size() != examples.size())
        std::abort();
    (void)wb::topLosses(examples, 5, examples.empty() ? 0 : examples.front().true_label_id,
                        examples.empty() ? 1 : examples.front().predicted_label_id, true);
    for (const auto &pair : wb::mostConfusedPairs(examples))
        if (pair.count < 1 || pair.true_label_id == pair.predicted_label_id)
            std::abort();
    for (const auto &e : examples)
        (void)wb::evalExampleJson(e);
    return 0;
}
