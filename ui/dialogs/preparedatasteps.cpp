// SPDX-License-Identifier: Apache-2.0
// Steps that Prepare Data's two kinds share (preparedatasteps.h).
#include "ui/dialogs/preparedatasteps.h"

#include "core/config/commandoptions.h"
#include "core/config/optiontable.h"
#include "core/hub/preparetokenizer.h"
#include "core/hub/pretrainedmodel.h"
#include "ui/common/backgroundjob.h"

#include <QCoreApplication>

#include <algorithm>

namespace wb::preparedata {

/// The dialog's field of prepare's `flag`: its row of prepareFlagTable() (label, tooltip, range).
const FlagRow &prepareRow(const char *flag) { return flagRow(prepareFlagTable(), flag); }
QString rowLabel(const char *flag) { return QCoreApplication::translate("wb::PrepareDataDialog", prepareRow(flag).label); }
QString rowHelp(const char *flag) { return QCoreApplication::translate("wb::PrepareDataDialog", prepareRow(flag).help); }

/// The text is read as `model` reads it (applyPretrainedTokenizer, core/hub/preparetokenizer.h:
/// the same rules as `bert-workbench-cli prepare --pretrained_model`): its vocab.txt unless the
/// Vocabulary field names one, its casing, and records that fit its position embeddings. The
/// max_seq_length field always holds a value, so one above the model's is an error (the CLI
/// can tell a default from a typed one and lowers the default). Resolves the model
/// (resolvePretrainedModel: a folder, a catalogue name or a Hub id, downloaded into the
/// Hugging Face cache when missing, with the bytes as the job's progress). Throws wb::Error /
/// HubError naming the field. Runs on the job's thread.
void usePretrainedModel(PrepareTokenizer &t, const std::string &model, const JobControl &job)
{
    const PretrainedModel m = resolvePretrainedModel(
        model, HubSettings::fromEnvironment(),
        [&job](const DownloadProgress &p) {
            const int value = p.bytes_total > 0 ? int(double(kJobProgressMax) * double(p.bytes_done) / double(p.bytes_total)) : 0;
            job.setProgress(std::min(value, kJobProgressMax), QCoreApplication::translate("wb::PrepareDataDialog", "Downloading %1: %2")
                                                                  .arg(QString::fromStdString(p.repo_id), QString::fromStdString(p.file)));
        },
        *job.stopToken());
    PrepareTokenizerGiven given;
    given.vocab_file = !t.vocab_file.empty();
    given.max_seq_length = true;
    applyPretrainedTokenizer(m, model, given, t); // casing not given: no warning can arise
}

/// The label of the form's field of option `flag` ("Training data"), as the form shows it.
QString formLabel(const char *flag)
{
    const OptionSpec *spec = findOption(flag);
    return spec && *spec->label ? QCoreApplication::translate("wb::ConfigurationForm", spec->label) : QString::fromLatin1(flag);
}

QString megabytes(uint64_t bytes) { return QStringLiteral("%1 MB").arg(double(bytes) / 1e6, 0, 'f', 1); }


} // namespace wb::preparedata
