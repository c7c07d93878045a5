// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/label/labelsession.h"

#include <QDialog>
#include <QString>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace wb {

/// New session… of the Label tab (issue 47; docs/label-to-learn.md, "In the window"): the session
/// folder, the texts to import (a text file, a folder, or a CSV/JSONL file and its column;
/// "E-mail bodies only"), the labels (added and renamed here, at least two), the model's start
/// (bert_config.json and vocabulary, random weights or an init checkpoint / export folder), k
/// (retrain every k labels) and the order ("Most useful first (uncertain, diverse)" or "Random").
/// OK checks the fields (saying which is wrong under them) and closes only when they are valid;
/// it reads no file beyond checking that paths exist. GUI thread only.
class LabelSessionDialog : public QDialog
{
    Q_OBJECT
public:
    /// `defaults`: the fields' first values (the model start from the form).
    explicit LabelSessionDialog(const LabelSessionSettings &defaults, QWidget *parent = nullptr);

    /// The session folder and the settings as the fields say (label names trimmed, empty ones left out).
    QString folder() const;
    LabelSessionSettings settings() const;
    /// The fields' problem, "" when they are valid (what OK checks).
    QString problem() const;

    void setFolder(const QString &dir);
    void setPool(const QString &path);
    void setLabels(const QStringList &names);

    void accept() override;

private:
    void addLabel();
    QLineEdit *pathRow(QFormLayout *form, const QString &label, const QString &objectName, bool folder,
                       bool file);

    QLineEdit *m_folder, *m_pool, *m_column, *m_config, *m_vocab, *m_init;
    QCheckBox *m_email, *m_lower;
    QListWidget *m_labels;
    QSpinBox *m_k;
    QComboBox *m_order;
    QLabel *m_problem;
    LabelSessionSettings m_defaults;
};

/// The problem with a label name, "" when prepare reads it as it is (not empty, no surrounding
/// white space, no ',', ';', '|', line break or NUL). Pure.
QString labelNameProblem(const QString &name);

} // namespace wb
