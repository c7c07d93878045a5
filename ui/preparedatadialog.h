// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/data/dataprep.h"

#include <QDialog>

#include <atomic>
#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThread;

namespace wb {

/// "Prepare data": raw text (label folders, TSV/CSV, GLUE) → TFRecords + input_meta_data.json
/// through wb::prepareData on a worker thread, with progress and Cancel. GUI thread only;
/// destroying the dialog cancels a running preparation and waits for it.
class PrepareDataDialog : public QDialog
{
    Q_OBJECT
public:
    explicit PrepareDataDialog(QWidget *parent = nullptr);
    ~PrepareDataDialog() override;

    PrepareOptions options() const;
    void setOptions(const PrepareOptions &o);
    bool isRunning() const { return m_thread != nullptr; }
    /// The report of the last successful preparation.
    const PrepareReport &report() const { return m_report; }
    QString lastError() const { return m_error; }

public Q_SLOTS:
    /// Starts preparing with the current options (no-op while running).
    void start();
    void cancel();

Q_SIGNALS:
    void prepared(const wb::PrepareReport &report);
    void failed(const QString &message);

private:
    void finish();
    void setRunning(bool running);

    QLineEdit *m_input, *m_vocab, *m_output;
    QComboBox *m_task;
    QSpinBox *m_maxSeq;
    QDoubleSpinBox *m_evalFraction;
    QLineEdit *m_textA, *m_textB, *m_labelColumn;
    QProgressBar *m_progress;
    QLabel *m_stage;
    QPushButton *m_startButton, *m_cancelButton;
    QThread *m_thread = nullptr;
    std::atomic<bool> m_cancel{false};
    PrepareReport m_report;
    QString m_error;
};

} // namespace wb

Q_DECLARE_METATYPE(wb::PrepareReport)
