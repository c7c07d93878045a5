// SPDX-License-Identifier: Apache-2.0
// Fuzzes the event stream of `sweep --progress_format=jsonl` as the window's concurrent sweep
// reads it from the CLI (core/formats/sweepevents.h): each input line goes through
// decodeSweepEvent; an event is written again (sweepEventLine) and read back, which must give
// the same kind of event; a run_progress's own `train` event goes through decodeRunEvent.
#include "core/io/runevents.h"
#include "core/formats/sweepevents.h"

#include <cstdlib>
#include <string>

namespace {

/// Hears a run's own events and throws them away.
class Discard : public wb::TrainingObserver
{
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        const wb::SweepEvent e = wb::decodeSweepEvent(text.substr(pos, end - pos));
        if (e.kind != wb::SweepEventKind::NotAnEvent) {
            const wb::SweepEvent again = wb::decodeSweepEvent(wb::sweepEventLine(e));
            // A run_progress whose data is not an object is written as a run_log of that text.
            const bool demoted = e.kind == wb::SweepEventKind::RunProgress && again.kind == wb::SweepEventKind::RunLog;
            if (again.kind != e.kind && !demoted)
                std::abort();
            if (e.kind == wb::SweepEventKind::RunProgress) {
                Discard discard;
                wb::RunFinished finished;
                (void)wb::decodeRunEvent(e.data, discard, &finished);
            }
        }
        pos = end + 1;
    }
    return 0;
}
