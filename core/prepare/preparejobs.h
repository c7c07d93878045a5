// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to prepare (core/prepare/dataprep.cpp and its parts: preparesplit, labelintext,
// badrows): the examples as they are converted and sorted into their splits.

#include "core/prepare/preparesource.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb::prep {

enum class Split { Train, Eval, Test };

// What the parallel-for produces per example.
struct Converted
{
    std::string payload;     // encoded tf.train.Example
    uint64_t text_hash = 0;  // normalizedTextHash of text_a, text_b
    int64_t tokens = 0;
    bool truncated = false, capped = false, empty = false;
    bool latin1 = false, nul = false, bom = false; // folders: file-level findings
    std::string empty_reason; // --email_body_only: why a body is empty (emptyBodyReason), else ""
    // Label names (label ids) and markup tags (lower-cased names) within the first
    // max_seq_length tokens, for the label-in-the-text check (findLabelsInText).
    std::vector<int64_t> label_names;
    std::vector<std::string> markup;
};

struct Job
{
    RawExample *ex;
    Split split;
    Converted out;
};

// The converted examples by split, with what the readers and the conversion found.
struct Sorted
{
    std::vector<Job *> train, eval, test;
    std::vector<std::string> emptyTest, latin1, nul;
};

} // namespace wb::prep
