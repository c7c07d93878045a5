// SPDX-License-Identifier: Apache-2.0
#pragma once
// Steps that Prepare Data's two kinds share (preparedatadialog.cpp, preparedatapretraining.cpp);
// internal to ui/dialogs.

#include <QString>

#include <cstdint>
#include <string>

namespace wb {

struct PrepareTokenizer;
class JobControl;

struct FlagRow;

namespace preparedata {

/// The dialog's field of prepare's `flag`: its row of prepareFlagTable() (label, tooltip, range),
/// its label and its help, translated in the dialog's context.
const FlagRow &prepareRow(const char *flag);
QString rowLabel(const char *flag);
QString rowHelp(const char *flag);

/// Makes the tokenizer settings `t` those of the pretrained `model` (resolved, downloaded into
/// the Hugging Face cache when missing, with the bytes as the job's progress). Throws wb::Error /
/// HubError naming the field. Runs on the job's thread.
void usePretrainedModel(PrepareTokenizer &t, const std::string &model, const JobControl &job);

/// The label of the form's field of option `flag` ("Training data"), as the form shows it.
QString formLabel(const char *flag);

/// `bytes` in megabytes for the report: "12.3 MB".
QString megabytes(uint64_t bytes);

} // namespace preparedata
} // namespace wb
