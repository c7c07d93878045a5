// SPDX-License-Identifier: Apache-2.0
// Prepare Data's "Pretraining text, no labels": its rows, its options and the run of
// preparePretrainingData() in a background job (the core `prepare_pretraining` calls).
#include "ui/dialogs/preparedatadialog.h"
#include "ui/dialogs/preparedatasteps.h"
#include "ui/common/qtext.h"

#include "core/corpus/pretrainingdata.h"
#include "core/hub/preparetokenizer.h"
#include "ui/common/backgroundjob.h"
#include "ui/form/newwidgets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSpinBox>
#include <QDoubleSpinBox>
#include <QTableWidget>

namespace wb {

using preparedata::formLabel;
using preparedata::megabytes;
using preparedata::rowLabel;
using preparedata::usePretrainedModel;

void PrepareDataDialog::addPretrainingRows(QFormLayout *form)
{
    // prepare_pretraining's input options (PretrainingTextReader, core/corpus/pretrainingtext.h).
    const int firstRow = form->rowCount();
    m_textFormat = new QComboBox;
    m_textFormat->setObjectName(QStringLiteral("pretrainingFormat"));
    m_textFormat->addItem(tr("by the file's extension (a folder: its .txt files)"), QStringLiteral("auto"));
    m_textFormat->addItem(tr("plain text: a sentence per line, a blank line between documents"), QStringLiteral("text"));
    m_textFormat->addItem(tr("csv: a document per row"), QStringLiteral("csv"));
    m_textFormat->addItem(tr("tsv: a document per row"), QStringLiteral("tsv"));
    m_textFormat->addItem(tr("jsonl: a document per line"), QStringLiteral("jsonl"));
    m_textFormat->setToolTip(tr("How the text is read. A plain text file holds one sentence (or line) per line and a "
                                "blank line between documents, as google-research/bert's create_pretraining_data.py "
                                "reads it; .csv, .tsv and .jsonl files hold one document per row in their Text column."));
    form->addRow(tr("Text format"), m_textFormat);
    m_textColumn = newTextField<QLineEdit>(QStringLiteral("pretrainingTextColumn"), tr("recognised: sentence, text or review"));
    m_textColumn->setToolTip(tr("csv, tsv and jsonl: the column (or key) that holds the text. Left empty, a column "
                                "named sentence, text or review is used."));
    form->addRow(tr("Text column (csv/tsv/jsonl)"), m_textColumn);
    m_mailBodies = new QCheckBox(tr("E-mail bodies only (each file one mail; the header block dropped)"));
    m_mailBodies->setObjectName(QStringLiteral("pretrainingEmailBodyOnly"));
    m_mailBodies->setToolTip(tr("The texts are e-mail messages: keep each one's body, as the classifier's data keeps "
                                "it with “%1”. Each plain file is one mail and one document; a folder's files are "
                                "read whatever their extension.")
                                 .arg(rowLabel("email_body_only")));
    form->addRow(QString(), m_mailBodies);
    for (int row = firstRow; row < form->rowCount(); ++row)
        m_pretrainingRows.push_back(row);
}

PretrainingDataOptions PrepareDataDialog::pretrainingOptions() const
{
    PretrainingDataOptions o;
    const QString input = m_input->text().trimmed();
    if (!input.isEmpty())
        o.input_files = {input.toStdString()};
    o.input_format = m_textFormat->currentData().toString().toStdString();
    o.text_column = m_textColumn->text().trimmed().toStdString();
    o.email_body_only = m_mailBodies->isChecked();
    o.vocab_file = m_vocab->text().trimmed().toStdString();
    o.max_seq_length = m_maxSeq->value();
    o.eval_fraction = m_evalFraction->value();
    o.output_dir = m_output->text().trimmed().toStdString();
    return o;
}

void PrepareDataDialog::setPretrainingOptions(const PretrainingDataOptions &o)
{
    m_input->setText(o.input_files.empty() ? QString() : q(o.input_files.front()));
    const int format = m_textFormat->findData(q(o.input_format));
    m_textFormat->setCurrentIndex(format < 0 ? 0 : format);
    m_textColumn->setText(q(o.text_column));
    m_mailBodies->setChecked(o.email_body_only);
    m_vocab->setText(q(o.vocab_file));
    m_maxSeq->setValue(int(o.max_seq_length));
    m_evalFraction->setValue(o.eval_fraction);
    m_output->setText(q(o.output_dir));
}

void PrepareDataDialog::startPretraining()
{
    m_error.clear();
    m_progress->setValue(0);
    m_stage->setText(tr("Starting…"));
    m_labelCounts->setVisible(false);
    m_warnings->setVisible(false);
    m_job = runBackgroundJob<PretrainingDataReport>(
        this,
        [given = pretrainingOptions(), model = m_runningModel.toStdString()](const JobControl &job) {
            PretrainingDataOptions o = given;
            if (!model.empty()) {
                PrepareTokenizer t{o.vocab_file, o.max_seq_length, o.do_lower_case};
                usePretrainedModel(t, model, job);
                o.vocab_file = t.vocab_file;
                o.max_seq_length = t.max_seq_length;
                o.do_lower_case = t.do_lower_case;
            }
            fitMaxPredictionsToSequence(o); // as `prepare_pretraining` without --max_predictions_per_seq
            return preparePretrainingData(
                o,
                [&job](double fraction, const std::string &stage) {
                    job.setProgress(int(fraction * kJobProgressMax), QString::fromStdString(stage));
                },
                job.stopToken());
        },
        [this](JobOutcome<PretrainingDataReport> outcome) { finishPretraining(std::move(outcome)); },
        [this](int value, const QString &stage) {
            m_progress->setValue(value);
            m_stage->setText(stage);
        });
    setRunning(true);
}

void PrepareDataDialog::finishPretraining(JobOutcome<PretrainingDataReport> outcome)
{
    setRunning(false);
    if (!outcome.ok()) {
        showFailure(outcome.error);
        return;
    }
    m_pretrainingReport = std::move(*outcome.value);
    noteSucceeded(Kind::Pretraining);
    const PretrainingDataReport &r = m_pretrainingReport;
    m_progress->setValue(kJobProgressMax);
    QString text = tr("Wrote %1 training and %2 evaluation sequences from %3 documents in %4 s.")
                       .arg(r.train_sequences)
                       .arg(r.eval_sequences)
                       .arg(r.documents)
                       .arg(r.seconds, 0, 'f', 1);
    if (!r.warnings.empty())
        text += tr(" Read the %n warning(s) below before training.", nullptr, int(r.warnings.size()));
    m_stage->setText(text);
    showPretrainingReport(r);
    Q_EMIT pretrainingPrepared(r);
}

} // namespace wb
