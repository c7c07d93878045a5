// SPDX-License-Identifier: Apache-2.0
// Fuzzes best/best.json reading (the record of the best checkpoint, --best_checkpoint_metric):
// readBestRecord on the input as model_dir/best/best.json, which must never throw — an
// unreadable record is "no best checkpoint" — then stoppedEarlyAt on the same bytes as
// model_dir/training_summary.json (readTrainingSummary: an answer, or wb::Error naming the file).
// An accepted record is written back with writeBestRecord and must read back the same.
#include "core/formats/bestmodel.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::ScratchDir dir;
    dir.remove("training_summary.json");
    dir.write("best/best.json", data, size);
    const auto record = wb::readBestRecord(dir.path());
    dir.write("training_summary.json", data, size);
    try {
        (void)wb::stoppedEarlyAt(dir.path(), record ? record->step : 1);
    } catch (const wb::Error &e) {
        if (e.field().find("training_summary.json") == std::string::npos)
            std::abort();
    }
    if (!record || !std::isfinite(record->value))
        return 0;
    wb::writeBestRecord(dir.path(), *record);
    const auto again = wb::readBestRecord(dir.path());
    if (!again || again->step != record->step || again->checkpoint != record->checkpoint
        || again->metric != record->metric || again->evaluations_since_best != record->evaluations_since_best
        || again->last_evaluated_step != record->last_evaluated_step)
        std::abort();
    return 0;
}
