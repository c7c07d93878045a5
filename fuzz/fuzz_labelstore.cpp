// SPDX-License-Identifier: Apache-2.0
// Fuzzes the labels file of "Label to learn" (core/label/labelstore.h; written by the Label tab one
// line at a time, cut short by a crash, edited by hand in a spreadsheet): readLabelsCsv on the input.
// It returns the labels or throws wb::Error naming the file (any other exception is a crash); the
// complete part it reports is within the input; the complete part read alone gives the same labels
// and no cut; and the labels written again (labelsCsv) read back the same.
#include "core/label/labelstore.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>
#include <string_view>

namespace {

bool sameLabels(const std::vector<wb::PoolLabel> &a, const std::vector<wb::PoolLabel> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].text != b[i].text || a[i].label != b[i].label || a[i].file != b[i].file || a[i].line != b[i].line
            || a[i].suggested_label != b[i].suggested_label || a[i].time != b[i].time)
            return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    const std::string &path = file.write(data, size);
    try {
        const wb::LabelsRead read = wb::readLabelsCsv(path);
        if (read.complete_bytes > size || (!read.cut_tail.empty() && read.missing_line_end))
            std::abort();
        const std::string_view bytes(reinterpret_cast<const char *>(data), size);
        const wb::LabelsRead whole = wb::parseLabelsCsv(bytes.substr(0, read.complete_bytes), "whole");
        if (!whole.cut_tail.empty() || !sameLabels(whole.labels, read.labels))
            std::abort();
        const wb::LabelsRead again = wb::parseLabelsCsv(wb::labelsCsv(read.labels), "again");
        if (!again.cut_tail.empty() || again.missing_line_end || !sameLabels(again.labels, read.labels))
            std::abort();
    } catch (const wb::Error &e) {
        if (e.field().rfind(path, 0) != 0 || std::string(e.what()).empty())
            std::abort(); // every error names the file (and the line)
    }
    return 0;
}
