// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prepare's eval split (stratified by label, at random, or as a split.jsonl says) and the
// split.jsonl it writes (docs/file-formats.md, "split.jsonl"). Internal to prepare.

#include "core/prepare/preparejobs.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace wb::prep {

/// How many of each label's `counts` go to eval so that they add up to `nEval`: each label its
/// share (largest remainder), at most all but one of its examples, and at least one for each
/// label with two or more examples when `nEval` has room for all of them. Pure.
std::vector<size_t> stratifiedQuotas(const std::vector<size_t> &counts, size_t nEval);

/// Iterative stratification (Sechidis, Tsoumakas & Vlahavas 2011, "On the stratification of
/// multi-label data", ECML PKDD, Algorithm 1) of `labelSets` (each text's label ids, in
/// [0, numLabels)) into train and eval (`nEval` texts): the label with the fewest texts left goes
/// first, each of its texts to the side that still wants most of that label (then the side that
/// wants most texts, then a coin of `seed`); texts without labels last, to the side wanting most.
/// Each label's wish for eval is its share of `nEval`, but at least 1 and at most all but one of
/// its texts when it has two or more, so every such label is on both sides where the algorithm
/// allows; a last pass moves one text over for a label still missing on a side when no other
/// label loses its last text there. Returns, per text, true for eval. Deterministic for a seed.
/// Pure.
std::vector<bool> iterativeStratification(const std::vector<std::vector<int64_t>> &labelSets, size_t numLabels,
                                          size_t nEval, uint64_t seed);

/// A split.jsonl key: the row's file as split.jsonl names it and its line (0: a whole file).
std::string splitKey(const std::string &file, int64_t line);

/// The file name split.jsonl records for `file`: relative to input_data_dir when that is a
/// folder holding it, else the file's name.
std::string splitFileName(const PrepareOptions &o, const std::string &file);

/// Reads the train/eval sides of the split.jsonl at `path` (--split_file): splitKey → true for
/// eval; test and skipped rows are left out, blank lines ignored. Throws wb::Error("<path>:<line>",
/// …) for a line that is not a record ({"file": string, "split": string, "line": integer?}) or
/// that puts a row on the other side than an earlier line, and
/// wb::Error(path, …) for a file that cannot be read.
std::unordered_map<std::string, bool> readSplitFile(const std::string &path);

/// Shuffles the training order and, without a dev set, splits off the eval set (stratified by
/// label, multi-label by iterativeStratification(), at random, or as --split_file says); counts labels and truncated examples into `rep`
/// (split_method, train/eval_label_counts, truncated_examples, warnings). Throws wb::Error
/// naming split_file for a split file that does not fit the input.
void splitAndCount(const PrepareOptions &o, const SourceSplits &src, Sorted &d, PrepareReport &rep);

/// split.jsonl: every row of the input with the side it went to, then the skipped rows.
std::string splitJsonl(const PrepareOptions &o, const SourceSplits &src, const Sorted &d, const PrepareReport &rep);

} // namespace wb::prep
