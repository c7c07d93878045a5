// SPDX-License-Identifier: Apache-2.0
// Prepare Data's multi-label fields and report lines (preparedatamultilabel.h).
#include "ui/dialogs/preparedatamultilabel.h"
#include "ui/dialogs/preparedatasteps.h"
#include "ui/common/qtext.h"
#include "ui/form/newwidgets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QLineEdit>
#include <QSettings>

namespace wb::preparedata {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("wb::PrepareDataDialog", text); }

// How many co-occurring pairs the report names (prepare_report.json has up to 20).
constexpr size_t kShownPairs = 5;

} // namespace

MultiLabelFields::MultiLabelFields(QObject *parent) : QObject(parent) {}

int MultiLabelFields::addTo(QFormLayout *form)
{
    m_problemType = new QComboBox;
    m_problemType->setObjectName(QStringLiteral("labelsPerText"));
    m_problemType->addItem(tr("Decided from the data"), QString());
    m_problemType->addItem(tr("One label per text"), QStringLiteral("single_label_classification"));
    m_problemType->addItem(tr("Several labels per text (multi-label)"), QStringLiteral("multi_label_classification"));
    m_problemType->setToolTip(rowHelp("problem_type"));
    m_delimiter = newTextField<QLineEdit>(QStringLiteral("labelDelimiter"), QStringLiteral("|"));
    m_delimiter->setText(QStringLiteral("|"));
    m_delimiter->setMaximumWidth(80);
    m_delimiter->setToolTip(rowHelp("label_delimiter"));
    m_columns = newTextField<QLineEdit>(QStringLiteral("labelColumns"), tr("optional, e.g. billing,urgent,refund"));
    m_columns->setToolTip(rowHelp("label_columns"));
    m_allowConstant = new QCheckBox(rowLabel("allow_constant_labels"));
    m_allowConstant->setObjectName(QStringLiteral("allowConstantLabels"));
    m_allowConstant->setToolTip(rowHelp("allow_constant_labels"));
    const int before = form->rowCount();
    form->addRow(rowLabel("problem_type"), m_problemType);
    form->addRow(rowLabel("label_delimiter"), m_delimiter);
    form->addRow(tr("%1 (0/1 each)").arg(rowLabel("label_columns")), m_columns);
    form->addRow(QString(), m_allowConstant);
    return form->rowCount() - before;
}

void MultiLabelFields::read(PrepareOptions &o) const
{
    o.problem_type = m_problemType->currentData().toString().toStdString();
    const QString delimiter = m_delimiter->text();
    o.label_delimiter = delimiter.trimmed().isEmpty() ? std::string("|") : delimiter.toStdString();
    o.label_columns = m_columns->text().trimmed().toStdString();
    o.allow_constant_labels = m_allowConstant->isChecked();
}

void MultiLabelFields::write(const PrepareOptions &o)
{
    const int index = m_problemType->findData(q(o.problem_type));
    m_problemType->setCurrentIndex(index < 0 ? 0 : index);
    m_delimiter->setText(q(o.label_delimiter));
    m_columns->setText(q(o.label_columns));
    m_allowConstant->setChecked(o.allow_constant_labels);
}

void MultiLabelFields::save(QSettings &s, const PrepareOptions &o)
{
    s.setValue(QStringLiteral("problem_type"), q(o.problem_type));
    s.setValue(QStringLiteral("label_delimiter"), q(o.label_delimiter));
    s.setValue(QStringLiteral("label_columns"), q(o.label_columns));
    s.setValue(QStringLiteral("allow_constant_labels"), o.allow_constant_labels);
}

void MultiLabelFields::restore(QSettings &s, PrepareOptions &o)
{
    o.problem_type = s.value(QStringLiteral("problem_type"), q(o.problem_type)).toString().toStdString();
    o.label_delimiter = s.value(QStringLiteral("label_delimiter"), q(o.label_delimiter)).toString().toStdString();
    o.label_columns = s.value(QStringLiteral("label_columns"), q(o.label_columns)).toString().toStdString();
    o.allow_constant_labels = s.value(QStringLiteral("allow_constant_labels"), o.allow_constant_labels).toBool();
}

QStringList multiLabelReportLines(const PrepareReport &r)
{
    QStringList lines;
    if (!r.multi_label)
        return lines;
    const MultiLabelReport &m = *r.multi_label;
    lines << tr("Several labels per text (multi-label): read from %1.").arg(q(m.reading));
    lines << tr("Labels per text: %1 on average (train %2, eval %3); %4 text(s) with no label; %5 distinct label sets.")
                 .arg(m.label_cardinality, 0, 'f', 2)
                 .arg(m.train_label_cardinality, 0, 'f', 2)
                 .arg(m.eval_label_cardinality, 0, 'f', 2)
                 .arg(m.no_label_texts)
                 .arg(m.distinct_label_sets);
    QStringList pairs;
    for (size_t k = 0; k < m.cooccurrence.size() && k < kShownPairs; ++k)
        pairs << tr("%1 + %2 (%3)").arg(q(m.cooccurrence[k].first), q(m.cooccurrence[k].second)).arg(m.cooccurrence[k].texts);
    if (!pairs.isEmpty())
        lines << tr("Labels most often together: %1.").arg(pairs.join(QStringLiteral(", ")));
    auto names = [](const std::vector<std::string> &v) {
        QStringList out;
        for (const std::string &n : v)
            out << q(n);
        return out.join(QStringLiteral(", "));
    };
    if (!m.never_present.empty())
        lines << tr("Labels on no text: %1.").arg(names(m.never_present));
    if (!m.always_present.empty())
        lines << tr("Labels on every text: %1.").arg(names(m.always_present));
    if (r.split_method == "iterative_stratification")
        lines << tr("The eval set was split off by iterative stratification (Sechidis et al. 2011): every label with "
                    "two or more texts is on both sides.");
    if (r.bag_of_words && r.bag_of_words->fitted() && r.bag_of_words->multi_label) {
        const BagOfWordsBaseline &b = *r.bag_of_words;
        lines << tr("Bag-of-words baseline (TF-IDF + one-vs-rest logistic regression, threshold %1): micro-F1 %2, "
                    "macro-F1 %3, samples-F1 %4, Hamming loss %5, subset accuracy %6.")
                     .arg(b.threshold)
                     .arg(b.eval_micro_f1, 0, 'f', 3)
                     .arg(b.eval_macro_f1, 0, 'f', 3)
                     .arg(b.eval_samples_f1, 0, 'f', 3)
                     .arg(b.eval_hamming_loss, 0, 'f', 3)
                     .arg(b.eval_accuracy, 0, 'f', 3);
    }
    return lines;
}

} // namespace wb::preparedata
