// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/common/backgroundjob.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace wb {

/// File → Export Model…: exports a run (its model_dir) as `bert-workbench-cli export
/// --model_dir=… --model_export_path=…` does (docs/file-formats.md "The export folder"): the
/// run's recorded files fill the options (fillFromRecordedRun), the checkpoint is the run's best
/// or its latest, onnx/model.onnx is on or off (--onnx_dtype fp32 / none), the web demo on or off
/// (--demo: onnxruntime-web from the npm cache, fetched once; off and disabled without ONNX), and an earlier export
/// is replaced only when asked (--overwrite_output_dir). The export runs off the GUI thread
/// (runBackgroundJob); the dialog then shows what it wrote ("Exported <ckpt> to <folder>:" and
/// one line per file with its size) or the error, in the words of the CLI.
///
/// Object names: "exportModelDir", "exportFolder" (line edits), "exportCheckpoint" (combo box,
/// data "" (the best when the run kept one, else the latest) or "latest"), "exportOnnx", "exportDemo", "exportOverwrite" (check boxes), "runExport" (button),
/// "exportResult" (read-only text). GUI thread only.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    /// `modelDir`: the run to export (the form's model_dir); the folder defaults to
    /// `<modelDir>/export`.
    explicit ExportDialog(const QString &modelDir, QWidget *parent = nullptr);
    /// Waits for a running export (it is not interruptible half-way: the staging folder
    /// keeps the target as it was).
    ~ExportDialog() override;

    /// Starts the export with the fields' values. False (and nothing runs) while one runs,
    /// or when the model_dir or the folder is empty (resultText() says which).
    bool start();
    bool isRunning() const { return m_job.isRunning(); }
    /// What the last export wrote, or why it failed.
    QString resultText() const;

    void setModelDir(const QString &dir);
    void setExportFolder(const QString &dir);

Q_SIGNALS:
    /// After each export, on the GUI thread: whether it completed, and resultText().
    void exportFinished(bool ok, const QString &text);

private:
    void finish(bool ok, const QString &text);

    QLineEdit *m_modelDir = nullptr;
    QLineEdit *m_folder = nullptr;
    QComboBox *m_checkpoint = nullptr;
    QCheckBox *m_onnx = nullptr;
    QComboBox *m_onnxDtype = nullptr; ///< --onnx_dtype: fp32, int8 or fp16
    QCheckBox *m_demo = nullptr;
    QCheckBox *m_overwrite = nullptr;
    QPushButton *m_run = nullptr;
    QPlainTextEdit *m_result = nullptr;
    JobHandle m_job;
};

} // namespace wb
