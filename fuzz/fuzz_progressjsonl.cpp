// SPDX-License-Identifier: Apache-2.0
// Fuzzes the jsonl progress stream of `train --progress_format=jsonl` as the CLI launcher
// and the window's local workers read it from the chief: each input line goes through
// ChiefStream::feedOutput (decodeRunEvent: run_started, step, eval with its confusion
// matrix, checkpoint, log, finished; anything else is a log line), then result(). Every
// decoded event is encoded again (runEventLine), as the launcher's own jsonl output does,
// and an eval's confusion matrix goes through classMetrics(), as the window's evaluation
// view does.
#include "core/launch/chiefstream.h"
#include "ui/evaluation/classmetrics.h"

#include <string>

namespace {

class Reencoder : public wb::TrainingObserver
{
public:
    void runStarted(const wb::RunStarted &info) override { (void)wb::runEventLine(info); }
    void stepCompleted(const wb::StepMetrics &m) override { (void)wb::runEventLine(m); }
    void evaluationCompleted(const wb::EvalMetrics &m) override
    {
        (void)wb::runEventLine(m);
        (void)wb::classMetrics(m.confusion);
    }
    void checkpointSaved(const wb::CheckpointSaved &c) override { (void)wb::runEventLine(c); }
    void logMessage(const std::string &line) override { (void)wb::runEventLine(line); }
    void runFinished(const wb::RunFinished &r) override { (void)wb::runEventLine(r); }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reencoder reencoder;
    wb::ChiefStream stream(&reencoder);
    const std::string text(reinterpret_cast<const char *>(data), size);
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(pos, end - pos);
        if (!line.empty() && line[0] == '!')
            stream.feedError(line.substr(1));
        else
            (void)stream.feedOutput(line);
        pos = end + 1;
    }
    wb::LocalLaunchResult launched;
    launched.exit_code = stream.finished() ? 0 : 1;
    launched.failed_rank = stream.finished() ? -1 : 1;
    reencoder.runFinished(stream.result(launched));
    return 0;
}
