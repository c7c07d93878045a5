// SPDX-License-Identifier: Apache-2.0
#pragma once
// Multi-label reading of prepareData() (docs/multi-label.md, "Data"): which reading a source
// gets (a delimited label column, JSON lists, one 0/1 column per label, a text in several label
// folders), the label names of each row, and the label set with its checks. Internal to prepare.

#include "core/prepare/preparejobs.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/textinput.h"

#include <string>
#include <vector>

namespace wb::prep {

/// transformers' PretrainedConfig.problem_type names, as prepare's --problem_type takes them.
inline constexpr const char *kSingleLabelProblem = "single_label_classification";
inline constexpr const char *kMultiLabelProblem = "multi_label_classification";

/// Throws wb::Error naming the option for a problem_type other than "", single_label_classification
/// or multi_label_classification, an empty label_delimiter, max_labels below 2, or label_columns
/// with problem_type single_label_classification.
void checkMultiLabelOptions(const PrepareOptions &o);

/// The names of --label_columns (comma-separated, trimmed); empty when not given. Throws
/// wb::Error("label_columns", …) for an empty entry or a name given twice.
std::vector<std::string> labelColumnNames(const PrepareOptions &o);

/// Decides single- or multi-label for a table from its train file `train` (read with
/// TextInputSpec::label_columns / detect_label_columns as prepare asks) and records the reading
/// in `s` (multi_label, label_reading, label_delimiter, label_columns). In this order: forced
/// single-label; 0/1 label columns; JSON lists in the label column; else the label column split
/// at o.label_delimiter, multi-label when some row holds it (or when forced). Throws wb::Error
/// naming the file and an example row when the delimiter is ambiguous (the column never holds it
/// while ',' or ';' separates recurring labels: pass that one; or it mixes separators), or when
/// single-label is forced on JSON lists.
void chooseTableReading(const PrepareOptions &o, const TextInput &train, SourceSplits &s);

/// The label names of one record under the reading of `s` (trimmed, each once, in the order
/// written; none: a text with no label). Returns false with `problem` set for a 0/1 column
/// holding another value.
bool recordLabelNames(const TextInputRecord &rec, const SourceSplits &s, std::vector<std::string> &names,
                      std::string &problem);

/// Folder-per-label input: when a file name is in several label folders (or multi-label is
/// forced), the copies become one text with those labels (read from the first folder's copy; a
/// warning names copies of different sizes). Unless single-label is forced.
void mergeFolderLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes);

/// The label set of a multi-label source and each train/eval row's label_ids (docs/multi-label.md):
/// --label_list, the reader's set (0/1 columns, folders), or the training rows' names sorted
/// (by value when all are numbers). Throws wb::Error for fewer than 2 labels, more than
/// max_labels, or (without allow_constant_labels) a label on every text; a label outside a
/// fixed set is a bad row. Test rows get no labels.
void assignMultiLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes);

/// The multi-label part of the report over the split just made (rep.multi_label): per-label
/// text counts (train/eval_label_counts, replaced), label cardinality, distinct label sets, texts
/// with no label, the most frequent pairs, labels never or always present and labels with 2+
/// texts but none in eval; warnings for texts with no label, labels never present and labels
/// missing in eval.
void reportMultiLabel(const SourceSplits &src, const Sorted &d, PrepareReport &rep);

} // namespace wb::prep
