// SPDX-License-Identifier: Apache-2.0
// Fuzzes prepare_report.json reading (what `prepare` recorded about its tokenizer; the
// try-it panel, classify and the form take vocab_file, do_lower_case and max_seq_length
// from it): readPreparedTokenizer on the input as the report beside input_meta_data.json.
// It never throws; a key of another type is left unset.
#include "core/config/labelnames.h"
#include "fuzz/fuzzinput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::ScratchDir dir;
    dir.write("prepare_report.json", data, size);
    const wb::PreparedTokenizer t = wb::readPreparedTokenizer(dir.path() + "/input_meta_data.json");
    volatile size_t used = t.vocab_file.size() + (t.do_lower_case.value_or(false) ? 1 : 0)
                           + size_t(t.max_seq_length.value_or(0) & 1);
    (void)used;
    return 0;
}
