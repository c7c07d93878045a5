// SPDX-License-Identifier: Apache-2.0
// Fuzzes prepare_report.json reading (the window's majority-class baseline, Try it, classify,
// export and the form take labels, eval_label_counts, vocab_file, do_lower_case and
// max_seq_length from it): the one reader beside the writer (core/prepare/preparereport.h),
// readPrepareReport and readPreparedTokenizer on the input as the report beside
// input_meta_data.json. Each returns a report or throws wb::Error naming the file (any other
// exception is a crash); the two agree on the tokenizer keys, and the writer's text of an
// accepted report reads back to the same text.
#include "core/prepare/preparereport.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::ScratchDir dir;
    dir.write("prepare_report.json", data, size);
    const std::string meta = dir.path() + "/input_meta_data.json";
    const std::string file = dir.path() + "/prepare_report.json";
    std::optional<wb::PrepareReport> report;
    try {
        report = wb::readPrepareReport(meta);
    } catch (const wb::Error &e) {
        if (e.field().rfind(file, 0) != 0)
            std::abort(); // every error names the file
        try {
            (void)wb::readPreparedTokenizer(meta);
        } catch (const wb::Error &) {
            return 0; // the same file, the same verdict
        }
        std::abort();
    }
    if (!report)
        std::abort(); // the file exists
    const wb::PreparedTokenizer t = wb::readPreparedTokenizer(meta);
    if (t.vocab_file != report->vocab_file || (t.do_lower_case && *t.do_lower_case != report->do_lower_case)
        || (t.max_seq_length && *t.max_seq_length != report->max_seq_length))
        std::abort();
    (void)wb::evalCountsByLabelId(*report);
    const std::string text = wb::prepareReportJson(*report);
    if (wb::prepareReportJson(wb::parsePrepareReport(text, "prepare_report.json")) != text)
        std::abort();
    return 0;
}
