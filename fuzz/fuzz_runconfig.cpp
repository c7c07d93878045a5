// SPDX-License-Identifier: Apache-2.0
// Fuzzes run_config.json reading, as the model_dir pre-flight check (validate, train, the
// window's validation dialog) does before resuming a run: readRunConfig on the input as
// model_dir/run_config.json (an unreadable file must be an error in the diagnostics, never
// an exception), then runIdentityDifferences against the identity of a small run — the
// error lines the user sees — and against itself, which must find no difference.
#include "core/formats/runidentity.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>

namespace {

wb::RunIdentity smallRun()
{
    wb::TrainingOptions o;
    wb::BertConfig config;
    config.vocab_size = 100;
    config.hidden_size = 32;
    config.num_hidden_layers = 2;
    config.num_attention_heads = 2;
    config.intermediate_size = 64;
    wb::InputMetaData meta;
    meta.num_labels = 2;
    meta.max_seq_length = 16;
    meta.train_data_size = 64;
    wb::Schedule schedule;
    schedule.train_data_size = 64;
    schedule.steps_per_epoch = 8;
    schedule.total_steps = 24;
    schedule.warmup_steps = 2;
    return wb::RunIdentity::of(o, config, meta, schedule);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::ScratchDir dir;
    static const wb::RunIdentity current = smallRun();
    dir.write("run_config.json", data, size);
    wb::Diagnostics diag;
    const auto saved = wb::readRunConfig(dir.path(), diag);
    if (!saved) {
        if (!diag.hasErrors())
            std::abort(); // the file exists: not reading it must say why
        for (const auto &d : diag.items())
            if (d.message.empty())
                std::abort();
        return 0;
    }
    for (const auto &line : wb::runIdentityDifferences(*saved, current))
        if (line.find(": ") == std::string::npos)
            std::abort(); // checkModelDir splits each line at its first ": "
    if (!wb::runIdentityDifferences(*saved, *saved).empty())
        std::abort();
    return 0;
}
