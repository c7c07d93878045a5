// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "ui/common/backgroundjob.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace wb {

class ConfigurationForm;
struct DistillationData;


/// File → Distil Model… (issue 48; docs/distillation.md "In the window"): a finished run (the
/// form's model_dir, the teacher) teaches a smaller student, as `bert-workbench-cli distil` does.
/// The fields: the teacher (read-only) and which of its checkpoints; the student's start ("Start
/// from", the form's model picker: random weights of a BERT config, or a pretrained model; a BERT
/// config and an init checkpoint, optional beside a model); the transfer texts (a file or folder,
/// its column, "E-mail bodies only", at most N); the distillation temperature and soft-label share
/// (the option table's labels, help and ranges); the student's model_dir (default
/// `<teacher>-student`, a sibling, so Compare runs shows both); "Train the student now".
///
/// Distil runs prepareDistillationData (core/distil/distillationdata.h) into
/// `<student>/distillation` off the GUI thread (runBackgroundJob; progress text, Cancel through
/// the StopToken), then shows distillationSummary()'s lines (core/distil, the CLI's words) and
/// fills the form with studentOptions() as the CLI does: model_dir, the three data paths, the
/// start, the two distillation options, and vocab_file / do_lower_case the teacher's where the
/// form has none (a vocabulary other than the teacher's is an error). studentReady() follows;
/// the window trains the student then when asked. A problem (a field left empty, a missing
/// transfer file, the core's error) is shown in the dialog ("distilResult") and leaves the form
/// as it was.
///
/// Object names: "distilTeacherDir", "distilTeacherCheckpoint" (combo, data "" or "latest"),
/// "distilStartFrom" (the model picker), "distilBertConfig", "distilInitCheckpoint",
/// "distilTransferData", "distilTransferColumn", "distilEmailBodyOnly", "distilMaxTransferTexts",
/// "distillation_temperature", "distillation_alpha" (spin boxes), "distilStudentDir",
/// "distilStartTraining" (check box), "distilProgress", "distilResult" (read-only text), buttons
/// "runDistil", "cancelDistil". GUI thread only.
class DistilDialog : public QDialog
{
    Q_OBJECT
public:
    /// `form`: the window's form, read for the teacher's options when Distil starts and filled
    /// with the student's when the data is ready. It must outlive the dialog.
    explicit DistilDialog(ConfigurationForm *form, QWidget *parent = nullptr);
    /// Stops a running teacher pass and waits for it (its partial folder is removed).
    ~DistilDialog() override;

    /// `<modelDir>-student` ("" for an empty modelDir). Pure.
    static QString defaultStudentDir(const QString &modelDir);
    /// Shows `modelDir` as the teacher and, when the student's folder is empty or was the
    /// previous default, the default student folder. Ignored while a job runs.
    void setTeacher(const QString &modelDir);
    /// The teacher's model_dir shown.
    QString teacherDir() const;
    /// Sets the student's model_dir field (the default is defaultStudentDir of the teacher).
    void setStudentDir(const QString &dir);
    /// The transfer texts (a file or a folder), their column and "E-mail bodies only".
    void setTransferData(const QString &path, const QString &column = QString(), bool emailBodyOnly = false);
    /// The student's start: `pretrainedModel` ("" random weights), `bertConfig`, `initCheckpoint`.
    void setStudentStart(const QString &pretrainedModel, const QString &bertConfig, const QString &initCheckpoint = QString());
    /// Sets the distillation temperature and the soft-label share (clamped to the table's ranges).
    void setDistillationOptions(double temperature, double alpha);
    /// Whether the window trains the student as soon as the form is filled (default on).
    void setStartTraining(bool on);
    /// Whether "Train the student as soon as its data is ready" is on.
    bool startTraining() const;

    /// Starts the teacher's pass with the fields' values. False (and nothing runs; resultText()
    /// says why) while one runs, without a teacher or a student folder, with random weights and
    /// no BERT config, or when the transfer texts do not exist.
    bool start();
    /// Asks the running job to stop (the teacher's pass ends; nothing is kept).
    void cancel();
    /// Whether the teacher's pass (or the reading of its cache) is still going.
    bool isRunning() const { return m_job.isRunning(); }
    /// What the last distillation made, or why it failed.
    QString resultText() const;

Q_SIGNALS:
    /// After each job, on the GUI thread: whether the student's data is ready (and the form
    /// filled), and resultText().
    void distillationFinished(bool ok, const QString &text);
    /// The form now holds the student's options `student`; `train`: "Train the student now"
    /// was on. Emitted after the form is filled, before distillationFinished().
    void studentReady(const wb::TrainingOptions &student, bool train);

private:
    void buildTeacherRows(QFormLayout *form);
    void buildStudentRows(QFormLayout *form);
    void buildTransferRows(QFormLayout *form);
    void buildLossRows(QFormLayout *form);
    /// A line edit with a "…" (or File… / Folder…) browse button, as a row of `form`.
    QLineEdit *addPathRow(QFormLayout *form, const QString &label, const QString &objectName, const QString &tip,
                          bool files, bool folders);
    /// The fields' problem before anything runs ("" when none).
    QString fieldProblem() const;
    void setRunning(bool running);
    /// Shows the end of a job; `student`: the options the form was filled with (studentReady).
    void finish(bool ok, const QString &text, const TrainingOptions *student = nullptr);

    ConfigurationForm *m_form;
    QLineEdit *m_teacher = nullptr;
    QComboBox *m_teacherCheckpoint = nullptr;
    QComboBox *m_startFrom = nullptr;
    QLineEdit *m_bertConfig = nullptr;
    QLineEdit *m_initCheckpoint = nullptr;
    QLineEdit *m_transfer = nullptr;
    QLineEdit *m_transferColumn = nullptr;
    QCheckBox *m_emailBodyOnly = nullptr;
    QSpinBox *m_maxTransfer = nullptr;
    QDoubleSpinBox *m_temperature = nullptr;
    QDoubleSpinBox *m_alpha = nullptr;
    QLineEdit *m_student = nullptr;
    QCheckBox *m_startTraining = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_stage = nullptr;
    QPlainTextEdit *m_result = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    JobHandle m_job;
};

} // namespace wb
