// SPDX-License-Identifier: Apache-2.0
// Fuzzes metrics.jsonl reading (model_dir's record of every train and eval line; the
// window's charts and the run comparison read it back): readMetricsFile on the input as
// the file. It never throws; a bad line other than a torn last one must be reported in
// `error`. Each decoded line is encoded again with runEventLine, as the writer does, and an
// eval's confusion matrix goes through classMetrics(), as the window's evaluation view does
// when it shows the recorded evaluation of an opened run.
#include "core/io/metricsreader.h"
#include "core/io/runevents.h"
#include "fuzz/fuzzinput.h"
#include "ui/evaluation/classmetrics.h"


extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    std::string error;
    const wb::MetricsLog log = wb::readMetricsFile(file.write(data, size), &error);
    for (const auto &m : log.train)
        (void)wb::runEventLine(m);
    for (const auto &m : log.eval) {
        (void)wb::runEventLine(m);
        (void)wb::classMetrics(m.confusion);
    }
    return 0;
}
