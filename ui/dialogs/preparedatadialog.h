// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/fieldproblem.h"
#include "core/prepare/dataprep.h"
#include "core/events/trainingobserver.h"
#include "ui/common/backgroundjob.h"

#include <QDialog>

#include <memory>
#include <vector>

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QCheckBox;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace wb {

/// "Prepare data": raw text (label folders, TSV/CSV, GLUE) → TFRecords + input_meta_data.json
/// through wb::prepareData on a background job (ui/common/backgroundjob.h), with progress and
/// Cancel (the job's StopToken). "Start from" is the form's model picker (ui/form/modelpicker.h):
/// a chosen model is resolved (downloaded when missing) in the same job and gives the vocabulary
/// (unless Vocabulary names one) and the casing, and bounds max_seq_length. After a run the dialog shows the report:
/// a label-count table (train/eval) and the warnings (skipped rows, truncation, duplicates),
/// before the user trains. GUI thread only; destroying the dialog requests a stop and waits
/// for the job.
class PrepareDataDialog : public QDialog
{
    Q_OBJECT
public:
    explicit PrepareDataDialog(QWidget *parent = nullptr);
    ~PrepareDataDialog() override;

    /// The fields as PrepareOptions (vocab_file as typed; the chosen model's is added by start()).
    PrepareOptions options() const;
    void setOptions(const PrepareOptions &o);
    /// "Start from": "" (random weights: the Vocabulary field), a Hub id or a model folder.
    QString pretrainedModel() const;
    void setPretrainedModel(const QString &model);
    bool isRunning() const { return m_job.isRunning(); }
    /// The report of the last successful preparation.
    const PrepareReport &report() const { return m_report; }
    QString lastError() const { return m_error; }

    /// Fills the fields with the values of the last start (QSettings group "prepareData"; the
    /// caller opens the dialog with it, tests keep their own settings). Keeps the defaults
    /// when nothing was saved.
    void restoreSettings();
    /// Sets the Vocabulary field to `vocabFile` when it is empty and the file exists (the
    /// vocabulary of the data the form trains on now, e.g. the example's); `from` says where it
    /// came from in the note under the field. Returns whether it filled the field.
    bool prefillVocabulary(const QString &vocabFile, const QString &from);
    /// Says in the dialog which of the form's fields the caller filled with the prepared files.
    void noteFilledForm(const QStringList &fields);

public Q_SLOTS:
    /// Starts preparing with the current options (no-op while running).
    void start();
    void cancel();

Q_SIGNALS:
    void prepared(const wb::PrepareReport &report);
    void failed(const QString &message);

private:
    enum Browse { BrowseFolder = 1, BrowseFile = 2 };
    // The constructor's steps: a path row (its browse buttons per Browse kind), the input
    // rows (data, format, columns, labels), the model rows (Start from, vocabulary,
    // max_seq_length, eval fraction), the report area (progress, stage, counts, warnings),
    // the buttons.
    void addPathRow(QFormLayout *form, const QString &label, const QString &tip, int kinds, QLineEdit *&edit,
                    const QString &objectName);
    void addInputRows(QFormLayout *form);
    void addModelRows(QFormLayout *form);
    void buildReportArea();
    QDialogButtonBox *buildButtons();
    /// The line under Start from: what the chosen model gives.
    void updateModelNote();
    void finish(JobOutcome<PrepareReport> outcome);
    void setRunning(bool running);
    void showReport(const PrepareReport &r);

    QLineEdit *m_input, *m_vocab, *m_output;
    QComboBox *m_task;
    QComboBox *m_model = nullptr;  ///< "pretrainedModel"
    QLabel *m_modelNote = nullptr; ///< "pretrainedModelNote"
    QSpinBox *m_maxSeq;
    QDoubleSpinBox *m_evalFraction;
    QLineEdit *m_textA, *m_textB, *m_labelColumn, *m_labelList;
    QCheckBox *m_skipBadRows;
    QCheckBox *m_emailBodyOnly, *m_stripQuotedReplies, *m_stratifySplit;
    QProgressBar *m_progress;
    QLabel *m_stage;
    QPushButton *m_startButton, *m_cancelButton;
    QTableWidget *m_labelCounts;
    QPlainTextEdit *m_warnings;
    QLabel *m_vocabNote = nullptr;  ///< "vocabularyNote": where a pre-filled vocabulary came from
    JobHandle m_job;
    PrepareReport m_report;
    QString m_error;
    std::shared_ptr<std::vector<RowProblem>> m_badRows; ///< the last job's bad rows (BadRowsError)
};

} // namespace wb

Q_DECLARE_METATYPE(wb::PrepareReport)
