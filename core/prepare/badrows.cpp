// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/badrows.h"

#include <algorithm>

namespace wb::prep {

std::string namedCount(const std::vector<std::string> &where, const std::string &what)
{
    std::string s = std::to_string(where.size()) + " " + what + ": ";
    const size_t shown = std::min<size_t>(where.size(), 5);
    for (size_t i = 0; i < shown; ++i)
        s += (i ? ", " : "") + where[i];
    if (where.size() > shown)
        s += " (and " + std::to_string(where.size() - shown) + " more)";
    return s;
}

void addWarnings(const prep::SourceSplits &src, const Sorted &d, prep::ReadNotes &notes, PrepareReport &rep)
{
    for (auto &w : notes.warnings)
        rep.warnings.push_back(std::move(w));
    if (!src.regression) {
        for (const auto &l : src.labels) {
            const int64_t nTrain = rep.train_label_counts.count(l) ? rep.train_label_counts.at(l) : 0;
            const int64_t nEval = rep.eval_label_counts.count(l) ? rep.eval_label_counts.at(l) : 0;
            if (!d.train.empty() && nTrain == 0)
                rep.warnings.push_back("the label '" + l + "' has no training examples; the model cannot learn it");
            else if (!d.eval.empty() && nEval == 0)
                rep.warnings.push_back("the label '" + l + "' has " + std::to_string(nTrain)
                                       + " training example(s) and none in the eval set; its accuracy is not measured");
        }
    }
    rep.texts_latin1 = int64_t(d.latin1.size());
    rep.texts_with_nul = int64_t(d.nul.size());
    rep.texts_with_bom += notes.bom;
    if (!d.latin1.empty())
        rep.warnings.push_back(namedCount(d.latin1, "text(s) were not valid UTF-8 and were read as Windows-1252 "
                                                    "(Latin-1; check the file's encoding; save it as UTF-8)"));
    if (!d.nul.empty())
        rep.warnings.push_back(namedCount(d.nul, "text(s) contained NUL bytes (dropped by the tokenizer)"));
    if (rep.texts_with_bom)
        rep.warnings.push_back(std::to_string(rep.texts_with_bom) + " file(s) started with a byte order mark (removed)");
    if (!d.emptyTest.empty())
        rep.warnings.push_back(namedCount(d.emptyTest, "test text(s) are empty after clean-up (kept, to keep the test "
                                                       "order)"));
    rep.skipped = std::move(notes.skipped);
    rep.skipped_rows = int64_t(rep.skipped.size());
    std::vector<std::string> where; // the corrections' removed rows are listed with the corrections
    for (const auto &s : rep.skipped)
        if (!s.removed_by_correction)
            where.push_back(s.where + " (" + s.reason + ")");
    if (!where.empty())
        rep.warnings.push_back(namedCount(where, "row(s) skipped"));
}

} // namespace wb::prep
