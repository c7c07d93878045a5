// SPDX-License-Identifier: Apache-2.0
#include "ui/dialogs/exportdialog.h"
#include "ui/form/followend.h"

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "core/util/errortext.h"
#include "core/engine/runplan.h"
#include "core/launch/trainer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <string>
#include <vector>

namespace wb {

namespace {

QString q(const std::string &s) { return QString::fromStdString(s); }

/// Collects the run's log lines ("Using the best checkpoint …", "Exported … to …:", warnings).
class CollectingObserver : public TrainingObserver
{
public:
    void logMessage(const std::string &m) override { lines.push_back(m); }
    std::vector<std::string> lines;
};

struct ExportResult
{
    bool ok = false;
    std::string text;
};

std::string errorLine(const ErrorText &e)
{
    return "error: " + (e.field.empty() ? std::string() : e.field + ": ") + e.message
           + (e.hint.empty() ? "" : " (" + e.hint + ")") + "\n";
}

/// The CLI's export: the core's one path before writing (planRun for RunPurpose::Export: the
/// run's recorded options, the pretrained model, the pre-flight check, the web demo's
/// runtime), then the run.
ExportResult runExport(const TrainingOptions &o, const StopToken &stop)
{
    ExportResult r;
    std::string text;
    PlanFrontEnd frontEnd;
    frontEnd.note = [&text](const std::string &note) { text += "note: " + note + "\n"; };
    const RunPlan prepared = planRun(o, RunPurpose::Export, frontEnd, stop);
    if (!prepared.ok()) {
        if (prepared.step == PlanStep::PreFlight) {
            for (const auto &d : prepared.run.validation.diagnostics.items())
                if (d.severity == Severity::Error)
                    text += errorLine({d.field, d.message, d.hint});
        } else {
            const RunFinished end = prepared.failure();
            text += errorLine({end.field, end.message, end.hint});
        }
        r.text = text;
        return r;
    }
    CollectingObserver observer;
    Trainer trainer;
    const RunFinished end = trainer.execute(prepared.run, observer, stop);
    for (const auto &l : observer.lines)
        text += l + "\n";
    r.ok = end.status == RunStatus::Completed;
    if (!r.ok)
        text += errorLine({end.field, end.message, end.hint});
    r.text = text;
    return r;
}

} // namespace

ExportDialog::ExportDialog(const QString &modelDir, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Export Model"));
    auto *form = new QFormLayout;
    m_modelDir = new QLineEdit(modelDir, this);
    m_modelDir->setObjectName(QStringLiteral("exportModelDir"));
    m_modelDir->setToolTip(tr("The run to export: its model directory (checkpoints, run_config.json)."));
    form->addRow(tr("Model directory"), m_modelDir);
    m_checkpoint = new QComboBox(this);
    m_checkpoint->setObjectName(QStringLiteral("exportCheckpoint"));
    // "" as --predict_checkpoint_path: the best checkpoint when the run kept one, else the latest.
    m_checkpoint->addItem(tr("Best (when the run kept one, else the latest)"), QString());
    m_checkpoint->addItem(tr("Latest"), QStringLiteral("latest"));
    form->addRow(tr("Checkpoint"), m_checkpoint);
    auto *folderRow = new QHBoxLayout;
    m_folder = new QLineEdit(modelDir.isEmpty() ? QString() : QDir(modelDir).filePath(QStringLiteral("export")), this);
    m_folder->setObjectName(QStringLiteral("exportFolder"));
    m_folder->setToolTip(tr("A new or empty folder; it is written whole or not at all."));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export folder"), m_folder->text());
        if (!dir.isEmpty())
            m_folder->setText(dir);
    });
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    form->addRow(tr("Export folder"), folderRow);
    m_onnx = new QCheckBox(tr("ONNX model (onnx/model.onnx, for ONNX Runtime and transformers.js)"), this);
    m_onnx->setObjectName(QStringLiteral("exportOnnx"));
    m_onnx->setChecked(true);
    form->addRow(QString(), m_onnx);
    m_onnxDtype = new QComboBox(this);
    m_onnxDtype->setObjectName(QStringLiteral("exportOnnxDtype"));
    m_onnxDtype->addItem(tr("float32 weights (the model as trained)"), QStringLiteral("fp32"));
    m_onnxDtype->addItem(tr("int8 weights (about a quarter of the size, faster in ONNX Runtime)"), QStringLiteral("int8"));
    m_onnxDtype->addItem(tr("float16 weights (half the size, no faster)"), QStringLiteral("fp16"));
    m_onnxDtype->setToolTip(tr("The ONNX file's number format. int8 quantizes the weights of the linear layers "
                               "(docs/file-formats.md); the export says how far its probabilities are from float32."));
    form->addRow(tr("ONNX weights"), m_onnxDtype);
    m_demo = new QCheckBox(tr("Web demo (demo/index.html with onnxruntime-web in demo/ort/, works offline)"), this);
    m_demo->setObjectName(QStringLiteral("exportDemo"));
    m_demo->setToolTip(tr("A web page that classifies as you type, entirely in the browser. onnxruntime-web's "
                          "files (about 33 MB to download once) come from the npm registry and are cached."));
    form->addRow(QString(), m_demo);
    connect(m_onnx, &QCheckBox::toggled, m_demo, [this](bool on) {
        m_onnxDtype->setEnabled(on);
        m_demo->setEnabled(on); // the page runs onnx/model.onnx
        if (!on)
            m_demo->setChecked(false);
    });
    m_overwrite = new QCheckBox(tr("Replace an earlier export in that folder"), this);
    m_overwrite->setObjectName(QStringLiteral("exportOverwrite"));
    form->addRow(QString(), m_overwrite);

    m_result = new QPlainTextEdit(this);
    m_result->setObjectName(QStringLiteral("exportResult"));
    m_result->setReadOnly(true);
    m_result->setPlaceholderText(tr("What the export wrote appears here."));
    m_result->setMinimumHeight(140);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_run = buttons->addButton(tr("Export"), QDialogButtonBox::ActionRole);
    m_run->setObjectName(QStringLiteral("runExport"));
    connect(m_run, &QPushButton::clicked, this, [this] { start(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_result, 1);
    layout->addWidget(buttons);
    resize(640, 420);
}

ExportDialog::~ExportDialog()
{
    m_job.waitForFinished();
}

void ExportDialog::setModelDir(const QString &dir)
{
    m_modelDir->setText(dir);
    if (m_folder->text().isEmpty() && !dir.isEmpty())
        m_folder->setText(QDir(dir).filePath(QStringLiteral("export")));
}

void ExportDialog::setExportFolder(const QString &dir)
{
    m_folder->setText(dir);
}

QString ExportDialog::resultText() const
{
    return m_result->toPlainText();
}

bool ExportDialog::start()
{
    if (isRunning())
        return false;
    const QString modelDir = m_modelDir->text().trimmed(), folder = m_folder->text().trimmed();
    if (modelDir.isEmpty() || folder.isEmpty()) {
        m_result->setPlainText(modelDir.isEmpty() ? tr("Choose the model directory of the run to export.")
                                                  : tr("Choose the export folder (a new or empty folder)."));
        return false;
    }
    TrainingOptions o;
    o.mode = "export_only";
    o.model_dir = modelDir.toStdString();
    o.model_export_path = folder.toStdString();
    o.predict_checkpoint_path = m_checkpoint->currentData().toString().toStdString();
    o.onnx_dtype = m_onnx->isChecked() ? m_onnxDtype->currentData().toString().toStdString() : "none";
    o.demo = m_onnx->isChecked() && m_demo->isChecked();
    o.overwrite_output_dir = m_overwrite->isChecked();
    m_run->setEnabled(false);
    m_result->setPlainText(tr("Exporting %1 …").arg(modelDir));
    m_job = runBackgroundJob<ExportResult>(
        this, [o](const JobControl &c) { return runExport(o, *c.stopToken()); },
        [this](JobOutcome<ExportResult> outcome) {
            if (outcome.ok())
                finish(outcome.value->ok, q(outcome.value->text).trimmed());
            else
                finish(false, tr("error: %1").arg(outcome.error.logLine()));
        });
    return true;
}

void ExportDialog::finish(bool ok, const QString &text)
{
    m_run->setEnabled(true);
    setTextShowingEnd(m_result, text); // the last lines say where it went and what to do next
    Q_EMIT exportFinished(ok, text);
}

} // namespace wb
