// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prepare's label-in-the-text check (PrepareReport::label_in_text): labels whose name, or a
// markup tag, is written in their texts, so that the model can read the label instead of
// learning it. Internal to prepare.

#include "core/tokenize/basictokenizer.h"
#include "core/prepare/preparejobs.h"

#include <string>
#include <string_view>
#include <vector>

namespace wb::prep {

/// The label names as lower-cased basic tokens (a name may be several tokens: "comp.graphics").
struct LabelNames
{
    BasicTokenizer lowerCase{true};
    std::vector<std::vector<std::string>> tokens; // by label id
    explicit LabelNames(const std::vector<std::string> &labels)
    {
        for (const std::string &l : labels) {
            std::vector<std::string> t;
            lowerCase.tokenize(l, t, 16);
            tokens.push_back(std::move(t));
        }
    }
};

/// Records in `c` which label names and markup tags ("<" name, "</" name) occur within the first
/// `limit` lower-cased basic tokens of the texts.
void scanForLabels(const LabelNames &names, std::string_view a, std::string_view b, size_t limit, Converted &c);

/// Labels given away by their texts: each label's name, and each markup tag, counted in the
/// train and eval texts of that label and of the others; adds them to rep.label_in_text and a
/// warning each (naming up to three example places). Reads folder files to name lines.
void findLabelsInText(const SourceSplits &src, const Sorted &d, PrepareReport &rep);

} // namespace wb::prep
