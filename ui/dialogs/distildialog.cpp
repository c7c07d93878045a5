// SPDX-License-Identifier: Apache-2.0
// File → Distil Model… (issue 48): the window's `bert-workbench-cli distil`.
#include "ui/dialogs/distildialog.h"
#include "ui/common/qtext.h"

#include "core/config/optiontable.h"
#include "core/distil/distillationdata.h"
#include "core/events/stoptoken.h"
#include "core/util/error.h"
#include "ui/form/configurationform.h"
#include "ui/form/fieldhelp.h"
#include "ui/form/followend.h"
#include "ui/form/modelpicker.h"
#include "ui/form/newwidgets.h"
#include "ui/form/wheelguard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <initializer_list>
#include <memory>

namespace wb {

namespace {

/// What the dialog's job returns: the data and the student's options.
struct DistilResult
{
    DistillationData data;
    TrainingOptions student;
    QString summary;
};

/// What the fields ask for, read on the GUI thread and handed to the job by value.
struct DistilPlan
{
    DistillationRequest request;
    TrainingOptions student; ///< the form's options with the student's folder, start and loss
};

/// The job: the checks that need no pass (checkStudentOptions; the first error thrown), the
/// teacher's pass (or its cache), then the student's options and the summary lines
/// (studentOptions, distillationSummary: what the CLI's distil prints and sets). Any thread;
/// captures nothing of the dialog.
DistilResult runDistillation(const DistilPlan &plan, const JobControl &job)
{
    // What can be known before the teacher's pass is reported before it (the CLI's order).
    if (const Diagnostics early = checkStudentOptions(plan.student, plan.request); early.hasErrors()) {
        const auto first = std::find_if(early.items().begin(), early.items().end(),
                                        [](const Diagnostic &d) { return d.severity == Severity::Error; });
        const int more = early.errorCount() - 1;
        throw Error(first->field, first->message + (more > 0 ? " (and " + std::to_string(more) + " more)" : ""),
                    first->hint);
    }
    auto reports = std::make_shared<std::atomic<int>>(0);
    DistilResult r;
    r.data = prepareDistillationData(plan.request, *job.stopToken(), [&job, reports](const std::string &line) {
        job.setProgress(std::min(++*reports, kJobProgressMax), q(line)); // values must grow for a new text
    });
    r.student = studentOptions(plan.student, r.data);
    QStringList lines;
    for (const std::string &line : distillationSummary(r.data, plan.request.output_dir))
        lines << q(line);
    r.summary = lines.join(QLatin1Char('\n'));
    return r;
}

/// A spin box over the option `flag`'s range, with its label's tooltip (the option table's help).
QDoubleSpinBox *optionSpinBox(const char *flag, double step)
{
    auto *box = new QDoubleSpinBox;
    box->setObjectName(QString::fromLatin1(flag));
    if (const OptionSpec *spec = findOption(flag)) {
        box->setRange(spec->minimum, spec->maximum);
        box->setValue(std::stod(spec->defaultText()));
    }
    box->setDecimals(2);
    box->setSingleStep(step);
    box->setToolTip(fieldHelp(QString::fromLatin1(flag)).text);
    return box;
}

} // namespace

DistilDialog::DistilDialog(ConfigurationForm *form, QWidget *parent) : QDialog(parent), m_form(form)
{
    setWindowTitle(tr("Distil Model"));
    setObjectName(QStringLiteral("distilDialog"));
    auto *rows = new QFormLayout;
    buildTeacherRows(rows);
    buildStudentRows(rows);
    buildTransferRows(rows);
    buildLossRows(rows);
    m_student = addPathRow(rows, tr("Student's model directory"), QStringLiteral("distilStudentDir"),
                           tr("Where the student trains: its checkpoints, metrics and, in distillation/, the teacher's "
                              "outputs. A sibling of the teacher's folder, so Compare runs shows them side by side."),
                           false, true);
    m_startTraining = new QCheckBox(tr("Train the student as soon as its data is ready"), this);
    m_startTraining->setObjectName(QStringLiteral("distilStartTraining"));
    m_startTraining->setChecked(true);
    m_startTraining->setToolTip(tr("On: the window starts training as Train does, with live curves. Off: the form is "
                                   "filled, and you press Train when you have looked it over."));
    rows->addRow(QString(), m_startTraining);

    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("distilProgress"));
    m_progress->setRange(0, 0); // the teacher's pass has no fixed length: busy
    m_progress->setVisible(false);
    m_stage = newSelectableLabel(QStringLiteral("distilStage"), Qt::PlainText);
    m_result = newTextField<QPlainTextEdit>(QStringLiteral("distilResult"),
                                            tr("What the student learns from appears here."));
    m_result->setReadOnly(true);
    m_result->setMinimumHeight(m_result->fontMetrics().lineSpacing() * 6);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_run = buttons->addButton(tr("Distil"), QDialogButtonBox::ActionRole);
    m_run->setObjectName(QStringLiteral("runDistil"));
    m_run->setDefault(true);
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_cancel->setObjectName(QStringLiteral("cancelDistil"));
    connect(m_run, &QPushButton::clicked, this, [this] { start(); });
    connect(m_cancel, &QPushButton::clicked, this, &DistilDialog::cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, [this] {
        if (!isRunning())
            reject();
    });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(rows);
    layout->addWidget(m_progress);
    layout->addWidget(m_stage);
    layout->addWidget(m_result, 1);
    layout->addWidget(buttons);
    setRunning(false);
    guardWheel(this);
    resize(700, 640);
}

DistilDialog::~DistilDialog()
{
    m_job.cancel();
    m_job.waitForFinished();
}

QLineEdit *DistilDialog::addPathRow(QFormLayout *form, const QString &label, const QString &objectName, const QString &tip,
                                    bool files, bool folders)
{
    auto *edit = newTextField<QLineEdit>(objectName, QString());
    edit->setToolTip(tip);
    auto *row = new QHBoxLayout;
    row->addWidget(edit, 1);
    for (const bool folder : {false, true}) {
        if (!(folder ? folders : files))
            continue;
        auto *browse = new QToolButton(this);
        browse->setText(files && folders ? (folder ? tr("Folder…") : tr("File…")) : QStringLiteral("…"));
        browse->setObjectName(objectName + (folder ? QStringLiteral("Folder") : QStringLiteral("File")));
        connect(browse, &QToolButton::clicked, this, [this, edit, folder, label] {
            const QString p = folder ? QFileDialog::getExistingDirectory(this, label, edit->text())
                                     : QFileDialog::getOpenFileName(this, label, edit->text());
            if (!p.isEmpty())
                edit->setText(p);
        });
        row->addWidget(browse);
    }
    auto *l = new QLabel(label, this);
    l->setToolTip(tip);
    form->addRow(l, row);
    return edit;
}

void DistilDialog::buildTeacherRows(QFormLayout *form)
{
    m_teacher = newTextField<QLineEdit>(QStringLiteral("distilTeacherDir"), tr("the form's model directory"));
    m_teacher->setReadOnly(true);
    m_teacher->setToolTip(tr("The teacher: the finished run in the form's model directory. It labels its own training "
                             "texts and the transfer texts once; the student learns its probabilities."));
    form->addRow(tr("Teacher run"), m_teacher);
    m_teacherCheckpoint = new QComboBox(this);
    m_teacherCheckpoint->setObjectName(QStringLiteral("distilTeacherCheckpoint"));
    m_teacherCheckpoint->addItem(tr("Best (when the run kept one, else the latest)"), QString());
    m_teacherCheckpoint->addItem(tr("Latest"), QStringLiteral("latest"));
    form->addRow(tr("Teacher's checkpoint"), m_teacherCheckpoint);
}

void DistilDialog::buildStudentRows(QFormLayout *form)
{
    m_startFrom = createModelPickerBox();
    m_startFrom->setParent(this);
    m_startFrom->setObjectName(QStringLiteral("distilStartFrom"));
    m_startFrom->setToolTip(tr("The student's start: random weights of the BERT config below, or a pretrained model "
                               "(smaller than the teacher, of the same vocabulary: the official BERTs of every size "
                               "share bert-base-uncased's). Pretrained students learn better (Turc et al. 2019)."));
    form->addRow(tr("Student starts from"), m_startFrom);
    m_bertConfig = addPathRow(form, tr("Student's BERT config"), QStringLiteral("distilBertConfig"),
                              tr("bert_config.json of the student's shape: required with random weights; with a "
                                 "pretrained model, empty takes the model's."),
                              true, false);
    m_initCheckpoint = addPathRow(form, tr("Student's init checkpoint"), QStringLiteral("distilInitCheckpoint"),
                                  tr("Optional: weights to start from (with a pretrained model, empty takes the "
                                     "model's)."),
                                  true, false);
    const auto placeholders = [this] {
        const bool model = !modelPickerValue(m_startFrom).isEmpty();
        m_bertConfig->setPlaceholderText(model ? tr("the model's") : tr("required with random weights"));
        m_initCheckpoint->setPlaceholderText(model ? tr("the model's") : tr("none: random weights"));
    };
    connect(m_startFrom, &QComboBox::currentTextChanged, this, placeholders);
    placeholders();
}

void DistilDialog::buildTransferRows(QFormLayout *form)
{
    m_transfer = addPathRow(form, tr("Transfer texts"), QStringLiteral("distilTransferData"),
                            tr("Unlabelled texts the teacher labels for the student, besides its own training texts: "
                               "a text file (one per line), a column of a .csv, .tsv, .jsonl or .json file, or a "
                               "folder (one file a text). Empty: the training texts only."),
                            true, true);
    m_transfer->setPlaceholderText(tr("optional: a file or a folder of unlabelled texts"));
    m_transferColumn = newTextField<QLineEdit>(QStringLiteral("distilTransferColumn"),
                                               tr("optional: recognised from the header as Prepare Data does"));
    m_transferColumn->setToolTip(tr("The column of the transfer table that holds the text."));
    form->addRow(tr("Transfer text column"), m_transferColumn);
    m_emailBodyOnly = new QCheckBox(tr("E-mail bodies only (drop the header block)"), this);
    m_emailBodyOnly->setObjectName(QStringLiteral("distilEmailBodyOnly"));
    m_emailBodyOnly->setToolTip(tr("Each transfer text is an e-mail: keep its body, as Prepare Data's “E-mail bodies "
                                   "only” does."));
    m_maxTransfer = new QSpinBox(this);
    m_maxTransfer->setObjectName(QStringLiteral("distilMaxTransferTexts"));
    m_maxTransfer->setRange(0, 100000000);
    m_maxTransfer->setSpecialValueText(tr("all"));
    m_maxTransfer->setToolTip(tr("Use at most this many transfer texts (the first ones); all: every text."));
    auto *mail = new QHBoxLayout;
    mail->addWidget(m_emailBodyOnly);
    mail->addStretch(1);
    mail->addWidget(new QLabel(tr("At most"), this));
    mail->addWidget(m_maxTransfer);
    form->addRow(QString(), mail);
}

void DistilDialog::buildLossRows(QFormLayout *form)
{
    m_temperature = optionSpinBox("distillation_temperature", 0.5);
    m_alpha = optionSpinBox("distillation_alpha", 0.1);
    for (QDoubleSpinBox *box : {m_temperature, m_alpha}) {
        box->setParent(this);
        const FieldHelp help = fieldHelp(box->objectName());
        auto *label = new QLabel(help.label, this);
        label->setToolTip(help.text);
        form->addRow(label, box);
    }
}

QString DistilDialog::defaultStudentDir(const QString &modelDir)
{
    QString dir = QDir::cleanPath(modelDir.trimmed());
    return modelDir.trimmed().isEmpty() ? QString() : dir + QStringLiteral("-student");
}

void DistilDialog::setTeacher(const QString &modelDir)
{
    if (isRunning())
        return;
    const QString previous = defaultStudentDir(m_teacher->text());
    m_teacher->setText(modelDir);
    if (m_student->text().trimmed().isEmpty() || m_student->text() == previous)
        m_student->setText(defaultStudentDir(modelDir));
}

QString DistilDialog::teacherDir() const { return m_teacher->text(); }

void DistilDialog::setStudentDir(const QString &dir) { m_student->setText(dir); }

void DistilDialog::setTransferData(const QString &path, const QString &column, bool emailBodyOnly)
{
    m_transfer->setText(path);
    m_transferColumn->setText(column);
    m_emailBodyOnly->setChecked(emailBodyOnly);
}

void DistilDialog::setStudentStart(const QString &pretrainedModel, const QString &bertConfig, const QString &initCheckpoint)
{
    setModelPickerValue(m_startFrom, pretrainedModel);
    m_bertConfig->setText(bertConfig);
    m_initCheckpoint->setText(initCheckpoint);
}

void DistilDialog::setDistillationOptions(double temperature, double alpha)
{
    m_temperature->setValue(temperature);
    m_alpha->setValue(alpha);
}

void DistilDialog::setStartTraining(bool on) { m_startTraining->setChecked(on); }

bool DistilDialog::startTraining() const { return m_startTraining->isChecked(); }

QString DistilDialog::resultText() const { return m_result->toPlainText(); }

QString DistilDialog::fieldProblem() const
{
    const QString teacher = m_teacher->text().trimmed(), student = m_student->text().trimmed();
    const QString transfer = m_transfer->text().trimmed();
    if (teacher.isEmpty())
        return tr("No teacher: set the form's model directory to a finished run first.");
    if (student.isEmpty())
        return tr("Student's model directory: choose a folder for the student.");
    if (QDir::cleanPath(QDir(student).absolutePath()) == QDir::cleanPath(QDir(teacher).absolutePath()))
        return tr("Student's model directory: it is the teacher's; choose another folder, e.g. %1.")
            .arg(defaultStudentDir(teacher));
    if (modelPickerValue(m_startFrom).isEmpty() && m_bertConfig->text().trimmed().isEmpty())
        return tr("Student's BERT config: random weights need the student's bert_config.json (or choose a pretrained "
                  "model under “Student starts from”).");
    if (!transfer.isEmpty() && !QFileInfo::exists(transfer))
        return tr("Transfer texts: %1 does not exist.").arg(transfer);
    return QString();
}

bool DistilDialog::start()
{
    if (isRunning())
        return false;
    if (const QString problem = fieldProblem(); !problem.isEmpty()) {
        m_result->setPlainText(tr("error: %1").arg(problem));
        Q_EMIT distillationFinished(false, m_result->toPlainText());
        return false;
    }
    DistilPlan plan;
    DistillationRequest &r = plan.request;
    TrainingOptions &o = plan.student;
    o = m_form->options();
    r.teacher_dir = m_teacher->text().trimmed().toStdString();
    r.teacher_checkpoint = m_teacherCheckpoint->currentData().toString().toStdString();
    r.transfer_data = m_transfer->text().trimmed().toStdString();
    r.transfer_column = m_transferColumn->text().trimmed().toStdString();
    r.email_body_only = m_emailBodyOnly->isChecked();
    r.max_transfer_texts = m_maxTransfer->value();
    o.model_dir = m_student->text().trimmed().toStdString();
    r.output_dir = (std::filesystem::path(o.model_dir) / "distillation").string();
    r.seed = uint64_t(o.seed);
    r.batch_size = o.eval_batch_size;
    o.pretrained_model = modelPickerValue(m_startFrom).toStdString();
    o.bert_config_file = m_bertConfig->text().trimmed().toStdString();
    o.init_checkpoint = m_initCheckpoint->text().trimmed().toStdString();
    o.distillation_temperature = m_temperature->value();
    o.distillation_alpha = m_alpha->value();
    setRunning(true);
    m_stage->setText(tr("The teacher labels its texts…"));
    m_result->setPlainText(tr("Distilling %1 into %2 …").arg(q(r.teacher_dir), q(o.model_dir)));
    m_job = runBackgroundJob<DistilResult>(
        this, [plan](const JobControl &job) { return runDistillation(plan, job); },
        [this](JobOutcome<DistilResult> outcome) {
            if (outcome.cancelled)
                finish(false, tr("Stopped: the teacher's pass ended and nothing was kept."));
            else if (!outcome.ok())
                finish(false, tr("error: %1").arg(outcome.error.logLine()));
            else {
                const DistilResult &r = *outcome.value;
                m_form->setOptions(r.student);
                const bool train = m_startTraining->isChecked();
                finish(true,
                       r.summary + QLatin1Char('\n')
                           + (train ? tr("The form holds the student's settings; the student trains now.")
                                    : tr("The form holds the student's settings: press Train to train it.")),
                       &r.student);
            }
        },
        [this](int, const QString &text) { m_stage->setText(text); });
    return true;
}

void DistilDialog::cancel()
{
    if (!isRunning())
        return;
    m_job.cancel();
    m_stage->setText(tr("Stopping the teacher…"));
}

void DistilDialog::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    for (QWidget *w : std::initializer_list<QWidget *>{m_teacherCheckpoint, m_startFrom, m_bertConfig, m_initCheckpoint,
                                                       m_transfer, m_transferColumn, m_emailBodyOnly, m_maxTransfer,
                                                       m_temperature, m_alpha, m_student, m_startTraining})
        w->setEnabled(!running);
}

void DistilDialog::finish(bool ok, const QString &text, const TrainingOptions *student)
{
    setRunning(false);
    m_stage->clear();
    setTextShowingEnd(m_result, text);
    if (ok && student)
        Q_EMIT studentReady(*student, m_startTraining->isChecked());
    Q_EMIT distillationFinished(ok, text);
}

} // namespace wb
