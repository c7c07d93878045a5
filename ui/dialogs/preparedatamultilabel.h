// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prepare Data's multi-label fields (docs/multi-label.md, "Data") and the lines of its report
// about multi-label data; internal to ui/dialogs. GUI thread only.

#include "core/prepare/dataprep.h"

#include <QObject>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLineEdit;
class QSettings;

namespace wb::preparedata {

/// The fields of prepare's problem_type ("labelsPerText": decided from the data, one label,
/// several labels), label_delimiter ("labelDelimiter"), label_columns ("labelColumns") and
/// allow_constant_labels ("allowConstantLabels"), labelled and explained by prepare's option
/// table. A child of the dialog (QObject parent) that owns no widget until addTo() puts them in
/// a form.
class MultiLabelFields : public QObject
{
    Q_OBJECT
public:
    explicit MultiLabelFields(QObject *parent);
    /// Adds the rows to `form` (the widgets become the form's); returns how many rows.
    int addTo(QFormLayout *form);
    /// Copies the fields into `o` (problem_type, label_delimiter, label_columns, allow_constant_labels).
    void read(PrepareOptions &o) const;
    /// Shows `o`'s values in the fields.
    void write(const PrepareOptions &o);
    /// The fields' values in the settings group open in `s`, and back into `o`.
    static void save(QSettings &s, const PrepareOptions &o);
    static void restore(QSettings &s, PrepareOptions &o);

private:
    QComboBox *m_problemType = nullptr;
    QLineEdit *m_delimiter = nullptr, *m_columns = nullptr;
    QCheckBox *m_allowConstant = nullptr;
};

/// The report's lines about multi-label data (empty for single-label): the reading chosen, the
/// labels per text, the texts with no label, the most frequent pairs, labels never or always
/// present, and the one-vs-rest baseline's scores (`r.bag_of_words`, when multi-label).
QStringList multiLabelReportLines(const PrepareReport &r);

} // namespace wb::preparedata
