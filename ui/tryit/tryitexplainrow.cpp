// SPDX-License-Identifier: Apache-2.0
// Try it's "Which words decided" row: the explain switch, method, steps and class, and the
// chips shaded by their attributions with the legend and the top words (the rest of the
// panel: tryitpanel.cpp; docs/explain.md).
#include "ui/tryit/tryitpanel.h"
#include "ui/common/qtext.h"
#include "ui/form/newwidgets.h"
#include "ui/tryit/attributionchips.h"
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/config/optiontable.h"
#include "core/formats/bestmodel.h"
#include "core/formats/checkpointstate.h"
#include "core/util/error.h"
#include "ui/form/fieldhelp.h"
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <mutex>

namespace wb {

QWidget *TryItPanel::buildExplainRow()
{
    m_explain = new QCheckBox(tr("Which words decided"));
    m_explain->setObjectName(QStringLiteral("tryItExplain"));
    m_explain->setToolTip(tr("Shade each wordpiece by how much it pushed the model towards the class (blue) or "
                             "away from it (red): Integrated Gradients on the word embeddings, or the cheaper "
                             "gradient × input. Recomputed for every new checkpoint."));
    m_explainMethod = new QComboBox;
    m_explainMethod->setObjectName(QStringLiteral("tryItExplainMethod"));
    m_explainMethod->addItem(tr("Integrated Gradients"), int(AttributionMethod::IntegratedGradients));
    m_explainMethod->addItem(tr("gradient × input"), int(AttributionMethod::GradientXInput));
    m_igSteps = new QSpinBox;
    m_igSteps->setObjectName(QStringLiteral("tryItIgSteps"));
    m_igSteps->setRange(kIgStepsMinimum, kIgStepsMaximum);
    m_igSteps->setValue(int(kDefaultIgSteps));
    m_igSteps->setPrefix(tr("m = "));
    m_igSteps->setToolTip(tr("Integrated Gradients: points on the path from the [PAD] baseline to the text (more: "
                             "slower, and the attributions add up to the logit difference more exactly)"));
    m_explainClassBox = new QComboBox;
    m_explainClassBox->setObjectName(QStringLiteral("tryItExplainClass"));
    m_explainClassBox->addItem(tr("the predicted class"), qlonglong(-1));
    m_explainClassBox->setToolTip(tr("For which class: the class whose logit the attributions explain"));
    m_legend = new AttributionLegend;
    m_legend->setVisible(false);
    m_explainLines = newSelectableLabel(QStringLiteral("tryItExplanation"), Qt::RichText);
    m_explainLines->setVisible(false);

    const auto changed = [this] {
        m_explainMethod->setEnabled(m_explain->isChecked());
        m_igSteps->setEnabled(m_explain->isChecked()
                              && m_explainMethod->currentData().toInt() == int(AttributionMethod::IntegratedGradients));
        m_explainClassBox->setEnabled(m_explain->isChecked());
        if (!m_explain->isChecked())
            clearExplanation();
        scheduleRefresh();
    };
    connect(m_explain, &QCheckBox::toggled, this, changed);
    connect(m_explainMethod, &QComboBox::currentIndexChanged, this, changed);
    connect(m_igSteps, &QSpinBox::valueChanged, this, changed);
    connect(m_explainClassBox, &QComboBox::activated, this, [this, changed] {
        m_explainClass = m_explainClassBox->currentData().toLongLong();
        changed();
    });
    m_explainMethod->setEnabled(false);
    m_igSteps->setEnabled(false);
    m_explainClassBox->setEnabled(false);

    auto *box = new QWidget;
    auto *v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    // One row that wraps where the tab ends, so that Try it is no wider than the other tabs
    // and every box shows its whole choice (a label name, "the predicted class").
    auto *row = new QWidget;
    row->setObjectName(QStringLiteral("tryItExplainRow"));
    auto *flow = new FlowLayout(row, 0, 6);
    for (QWidget *w : std::initializer_list<QWidget *>{m_explain, m_explainMethod, m_igSteps, m_explainClassBox})
        flow->addWidget(w);
    for (QComboBox *combo : {m_explainMethod, m_explainClassBox})
        combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    v->addWidget(row);
    v->addWidget(m_legend);
    v->addWidget(m_explainLines);
    return box;
}

void TryItPanel::setExplainEnabled(bool on) { m_explain->setChecked(on); }

bool TryItPanel::explainEnabled() const { return m_explain->isChecked(); }

void TryItPanel::setExplainOptions(AttributionMethod method, int steps, int64_t classId)
{
    const QSignalBlocker b1(m_explainMethod), b2(m_igSteps);
    m_explainMethod->setCurrentIndex(std::max(0, m_explainMethod->findData(int(method))));
    m_igSteps->setValue(steps); // the spin box clamps to its range
    m_explainClass = classId;
    const int index = m_explainClassBox->findData(qlonglong(classId));
    m_explainClassBox->setCurrentIndex(index >= 0 ? index : 0);
    m_igSteps->setEnabled(explainEnabled() && method == AttributionMethod::IntegratedGradients);
    scheduleRefresh();
}

ExplainOptions TryItPanel::explainOptions() const
{
    ExplainOptions o;
    o.method = AttributionMethod(m_explainMethod->currentData().toInt());
    o.ig_steps = m_igSteps->value();
    o.target_label_id = m_explainClass;
    return o;
}

void TryItPanel::explainText(const QString &text, const QString &textB, int64_t classId)
{
    {
        const QSignalBlocker block(m_explain);
        m_explain->setChecked(true);
    }
    m_explainMethod->setEnabled(true);
    m_explainClassBox->setEnabled(true);
    setExplainOptions(explainOptions().method, m_igSteps->value(), classId);
    setTexts(text, textB);
    refreshNow();
}

void TryItPanel::updateClassChoice(const std::vector<std::string> &labels, bool regression, bool multiLabel,
                                   const Classification *c)
{
    // Items: "the predicted class" (multi-label: "the most probable label"), then one per label
    // (regression: its one value); a multi-label result puts its predicted set first, marked.
    std::vector<std::pair<QString, qlonglong>> items{
        {multiLabel ? tr("the most probable label") : tr("the predicted class"), qlonglong(-1)}};
    if (regression) {
        items.emplace_back(tr("value"), qlonglong(0));
    } else if (multiLabel) {
        std::vector<int64_t> predicted = c ? c->predicted_label_ids : std::vector<int64_t>{};
        const auto isPredicted = [&predicted](int64_t id) {
            return std::find(predicted.begin(), predicted.end(), id) != predicted.end();
        };
        for (const bool first : {true, false})
            for (size_t k = 0; k < labels.size(); ++k)
                if (isPredicted(int64_t(k)) == first)
                    items.emplace_back(first ? tr("%1 (predicted)").arg(q(labels[k])) : q(labels[k]), qlonglong(k));
    } else {
        for (size_t k = 0; k < labels.size(); ++k)
            items.emplace_back(q(labels[k]), qlonglong(k));
    }
    bool same = m_explainClassBox->count() == int(items.size());
    for (int k = 0; same && k < int(items.size()); ++k)
        same = m_explainClassBox->itemText(k) == items[size_t(k)].first
               && m_explainClassBox->itemData(k).toLongLong() == items[size_t(k)].second;
    if (same)
        return;
    const QSignalBlocker block(m_explainClassBox);
    m_explainClassBox->clear();
    for (const auto &[text, id] : items)
        m_explainClassBox->addItem(text, id);
    const int index = m_explainClassBox->findData(qlonglong(m_explainClass));
    m_explainClassBox->setCurrentIndex(index >= 0 ? index : 0);
}

void TryItPanel::clearExplanation(const QString &why)
{
    m_explanation.reset();
    m_legend->setVisible(false);
    m_explainLines->setText(why.toHtmlEscaped());
    m_explainLines->setVisible(!why.isEmpty());
}

void TryItPanel::showExplanation(const TokenizedText &t, const Explanation &e)
{
    showChips(t);
    m_explanation = e;
    double maxAbs = 0;
    for (double a : e.attributions)
        maxAbs = std::max(maxAbs, std::isfinite(a) ? std::abs(a) : 0.0);
    const auto chips = m_chips->findChildren<QLabel *>(QStringLiteral("tokenChip"), Qt::FindDirectChildrenOnly);
    for (int k = 0; k < chips.size() && size_t(k) < e.attributions.size(); ++k) {
        QLabel *chip = chips[k];
        const double a = e.attributions[size_t(k)];
        const bool unknown = size_t(k) < t.unknown.size() && t.unknown[size_t(k)];
        const QColor bg = attributionColour(a, maxAbs), fg = attributionTextColour(a, maxAbs);
        chip->setStyleSheet(kChipStyle.arg(bg.name(), unknown ? QStringLiteral("#d04a20") : QStringLiteral("#a0a0a0"), fg.name()));
        chip->setText(QStringLiteral("%1 <span style=\"color:%2;font-size:small\">%3</span>")
                          .arg(q(e.tokens[size_t(k)]).toHtmlEscaped(), fg == QColor(Qt::white) ? QStringLiteral("#e0e0e0") : QStringLiteral("#707070"))
                          .arg(t.input_ids[size_t(k)]));
        chip->setProperty("attribution", a);
        chip->setToolTip((e.multi_label ? tr("%1: %2 to the log-odds of P(%3) (input_id %4)")
                                        : tr("%1: %2 to the logit of “%3” (input_id %4)"))
                             .arg(q(e.tokens[size_t(k)]))
                             .arg(a >= 0 ? QStringLiteral("+%1").arg(a, 0, 'g', 3) : QString::number(a, 'g', 3))
                             .arg(q(e.target_label))
                             .arg(t.input_ids[size_t(k)]));
    }
    const QString target = q(e.target_label);
    m_legend->setScale(maxAbs, e.multi_label ? q(explainedQuantity(e)) : target);
    m_legend->setVisible(true);

    const auto list = [](const std::vector<WordAttribution> &words) {
        QStringList items;
        for (const WordAttribution &w : words)
            items << QStringLiteral("%1 (%2%3)")
                         .arg(q(w.word).toHtmlEscaped(), w.attribution > 0 ? QStringLiteral("+") : QString())
                         .arg(w.attribution, 0, 'g', 3);
        return items.isEmpty() ? TryItPanel::tr("none") : items.join(QStringLiteral(", "));
    };
    constexpr size_t kTopWords = 5;
    const QString which = e.target_is_predicted ? tr("“%1” (the predicted class)").arg(target.toHtmlEscaped())
                                                : tr("“%1”").arg(target.toHtmlEscaped());
    // A multi-label model: one label's own probability, raised or lowered by the words.
    const QString multiWhich = tr("<b>Words that raised %1</b>%2")
                                   .arg(q(explainedQuantity(e)).toHtmlEscaped(),
                                        e.target_is_predicted ? tr(" (in the predicted set)") : tr(" (not predicted)"));
    QString html = (e.multi_label ? tr("%1: <span style=\"color:%2\">%3</span><br><b>Words that lowered it</b>: "
                                       "<span style=\"color:%4\">%5</span>")
                                  : tr("<b>For</b> %1: <span style=\"color:%2\">%3</span><br><b>Against</b> it: "
                                       "<span style=\"color:%4\">%5</span>"))
                       .arg(e.multi_label ? multiWhich : which, kAttributionFor.name(),
                            list(topWords(e.words, kTopWords, true)), kAttributionAgainst.name(),
                            list(topWords(e.words, kTopWords, false)));
    // What the model says about no words at all: the score every attribution is measured from.
    if (const std::string baseline = baselineScoreText(e); !baseline.empty())
        html += QStringLiteral("<br><span style=\"color:#505050\">%1 %2.</span>")
                    .arg(tr("Baseline:"), q(baseline).toHtmlEscaped());
    const QString check = q(completenessText(e)).toHtmlEscaped();
    if (e.completeness.steps_too_small)
        html += QStringLiteral("<br><span style=\"color:#a00000\"><b>%1</b> %2</span>")
                    .arg(tr("m is too small:"), check);
    else if (e.completeness.baseline_decides)
        html += QStringLiteral("<br><span style=\"color:#a00000\"><b>%1</b> %2</span>")
                    .arg(tr("Explains little:"), check);
    else
        html += QStringLiteral("<br><span style=\"color:#505050\">%1 %2</span>")
                    .arg(e.completeness.applies ? tr("Completeness:") : tr("Check:"), check);
    m_explainLines->setText(html);
    m_explainLines->setVisible(true);
}

QString TryItPanel::explanationText() const
{
    QTextDocumentFragment f = QTextDocumentFragment::fromHtml(m_explainLines->text());
    return m_explainLines->isHidden() ? QString() : f.toPlainText();
}

} // namespace wb
