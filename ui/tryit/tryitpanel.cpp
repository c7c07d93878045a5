// SPDX-License-Identifier: Apache-2.0
#include "ui/tryit/tryitpanel.h"
#include "ui/common/qtext.h"
#include "ui/form/newwidgets.h"
#include "ui/tryit/attributionchips.h"
#include "ui/tryit/tryitrequest.h"

#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/config/optiontable.h"
#include "core/formats/bestmodel.h"
#include "core/formats/checkpointstate.h"
#include "core/util/error.h"

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
#include <QScrollArea>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace wb {

TryItPanel::TryItPanel(QWidget *parent) : LiveModelPanel(parent), m_cache(std::make_shared<TryItModelCache>())
{
    buildTextFields();
    QHBoxLayout *modelRow = buildModelRow();
    buildAnswerArea();
    auto *form = new QFormLayout;
    form->addRow(tr("Text:"), m_text);
    form->addRow(tr("Second text\n(pair tasks, optional):"), m_textB);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(modelRow);
    layout->addWidget(m_message);
    layout->addLayout(form);
    auto *wordpieces = new QLabel(tr("<b>Wordpieces</b> (the model's input_ids; [UNK]: not in the vocabulary)"));
    layout->addWidget(wordpieces);
    layout->addWidget(m_chipScroll, 2);
    layout->addWidget(buildExplainRow());
    auto *answerRow = new QHBoxLayout;
    answerRow->addWidget(new QLabel(tr("<b>The model's answer</b>")));
    answerRow->addStretch(1);
    answerRow->addWidget(m_busy);
    layout->addLayout(answerRow);
    layout->addWidget(m_bars);
    layout->addStretch(1);

    connect(m_text, &QPlainTextEdit::textChanged, this, &TryItPanel::scheduleRefresh);
    connect(m_textB, &QPlainTextEdit::textChanged, this, &TryItPanel::scheduleRefresh);
    showMessage(tr("Set “Model directory” in the form, or choose a checkpoint or export folder."), false);
}


void TryItPanel::buildTextFields()
{
    m_text = newTextField<QPlainTextEdit>(QStringLiteral("tryItText"),
                                          tr("Type or paste a text; the model's answer follows as you type."));
    m_textB = newTextField<QPlainTextEdit>(QStringLiteral("tryItTextB"),
                                           tr("Only for tasks on text pairs (e.g. MNLI, MRPC); leave empty otherwise."));
    m_text->setMinimumHeight(60);
    m_text->setMaximumHeight(150);
    m_textB->setMaximumHeight(56);
}

QHBoxLayout *TryItPanel::buildModelRow()
{
    m_choose = new QPushButton(tr("Choose…"));
    m_choose->setObjectName(QStringLiteral("tryItChoose"));
    m_choose->setToolTip(tr("Use another checkpoint, or a folder written by export (model.safetensors)."));
    auto *chooseMenu = new QMenu(m_choose);
    chooseMenu->addAction(tr("Checkpoint file…"), this, [this] { chooseModel(); });
    chooseMenu->addAction(tr("Export folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose an export folder (with model.safetensors)"),
                                                              q(m_formSource.model_dir));
        if (!dir.isEmpty())
            setChosenModel(dir);
    });
    chooseMenu->addAction(tr("The Model directory's checkpoint (best, else latest)"), this,
                          [this] { setChosenModel(QString()); });
    m_choose->setMenu(chooseMenu);
    auto *modelRow = new QHBoxLayout;
    modelRow->addWidget(newModelLine(QStringLiteral("tryItModel")), 1);
    modelRow->addWidget(m_choose, 0, Qt::AlignTop);
    return modelRow;
}

void TryItPanel::buildAnswerArea()
{
    m_message = newSelectableLabel(QStringLiteral("tryItMessage"), Qt::PlainText);
    m_busy = new QLabel(tr("working…"));
    m_busy->setStyleSheet(QStringLiteral("color:#808080"));
    m_busy->setVisible(false);

    m_chips = new QWidget;
    m_chips->setObjectName(QStringLiteral("tryItChips"));
    new FlowLayout(m_chips);
    m_chipScroll = new QScrollArea;
    m_chipScroll->setWidget(m_chips);
    m_chipScroll->setWidgetResizable(true);
    m_chipScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_chipScroll->setMinimumHeight(90);

    m_bars = new QWidget;
    m_bars->setObjectName(QStringLiteral("tryItBars"));
    m_barLayout = new QVBoxLayout(m_bars);
    m_barLayout->setContentsMargins(0, 0, 0, 0);
}

void TryItPanel::setFormSource(const ClassifierSource &source)
{
    const uint64_t unchanged = 0;
    if (tryItCacheKey(source, unchanged) == tryItCacheKey(m_formSource, unchanged))
        return;
    // Another project (or another run of it): a model chosen for the previous one no longer
    // answers for this one; the panel goes back to the form's model.
    if (source.model_dir != m_formSource.model_dir || source.input_meta_data_path != m_formSource.input_meta_data_path)
        m_chosen.clear();
    m_formSource = source;
    scheduleRefresh();
}

void TryItPanel::setChosenModel(const QString &path)
{
    m_chosen = path;
    scheduleRefresh();
}

ClassifierSource TryItPanel::effectiveSource() const
{
    ClassifierSource s = m_formSource;
    if (m_chosen.isEmpty())
        return s;
    const QFileInfo info(m_chosen);
    if (info.isDir() && QFileInfo::exists(QDir(m_chosen).filePath(QStringLiteral("model.safetensors")))) {
        // An export stands alone: its own config, meta data, vocab and tokenizer settings.
        ClassifierSource e;
        e.model_export_path = m_chosen.toStdString();
        return e;
    }
    s.checkpoint_path = m_chosen.toStdString();
    if (s.model_dir.empty())
        s.model_dir = info.absolutePath().toStdString();
    return s;
}

void TryItPanel::startOver()
{
    m_chosen.clear();
    m_explainClass = -1;
    updateClassChoice({}, false);
    setTexts(QString());
    clearResult();
    scheduleRefresh();
}

void TryItPanel::setTexts(const QString &text, const QString &textB)
{
    m_textB->setPlainText(textB);
    m_text->setPlainText(text);
}

JobHandle TryItPanel::startRequest(uint64_t generation)
{
    TryItRequest req;
    req.source = effectiveSource();
    if (!m_chosen.isEmpty())
        req.project_meta_data = m_formSource.input_meta_data_path;
    req.epoch = reloadEpoch();
    if (!m_text->toPlainText().trimmed().isEmpty()) {
        req.text = m_text->toPlainText().toStdString();
        req.text_b = m_textB->toPlainText().trimmed().isEmpty() ? std::string() : m_textB->toPlainText().toStdString();
    }
    req.explain = explainEnabled();
    req.explain_options = explainOptions();
    m_busy->setVisible(true);
    return runRequestJob<TryItOutcome>(
        generation, [cache = m_cache, req](const JobControl &control) { return runTryItRequest(cache, req, control); },
        [this](const JobOutcome<TryItOutcome> &outcome) { applyOutcome(outcome); });
}

void TryItPanel::applyOutcome(const JobOutcome<TryItOutcome> &outcome)
{
    m_busy->setVisible(false);
    if (!outcome.ok()) {
        clearResult();
        setModelLine(tr("Model: not loaded"));
        // The core worded the error and its fix for the window ("“BERT config”: required with
        // “Model directory”", core/config/optionwords.h).
        showMessage(tr("Cannot load the model: %1").arg(outcome.error.withHowToFix()), true);
    } else {
        const TryItOutcome &o = *outcome.value;
        switch (o.kind) {
        case TryItOutcome::Kind::Cancelled:
            break;
        case TryItOutcome::Kind::NoModel:
            showNoModel(tr("Set “Model directory” in the form, or choose a checkpoint or export folder."));
            break;
        case TryItOutcome::Kind::NoCheckpoint:
            showNoModel(tr("No checkpoint yet in %1: train first, or choose a checkpoint or export folder.")
                            .arg(QDir::toNativeSeparators(q(o.model_dir))));
            break;
        case TryItOutcome::Kind::Loaded:
            showModel(o);
            updateClassChoice(o.labels, o.regression, o.multi_label);
            clearExplanation();
            showChips({});
            showBars(o.labels, nullptr, o.regression);
            // The text field's placeholder says what to do: a hint here would vanish at the first
            // key and move everything below it up a line.
            if (o.warnings.empty())
                showMessage(QString(), false);
            break;
        case TryItOutcome::Kind::Classified:
            showModel(o);
            showChips(o.result.tokenized);
            showBars(o.labels, &o.result, o.regression);
            updateClassChoice(o.labels, o.regression, o.multi_label, &o.result);
            if (o.explanation)
                showExplanation(o.result.tokenized, *o.explanation); // shades the chips just drawn
            else
                clearExplanation(o.explain_error.empty() ? QString()
                                                         : tr("No explanation: %1").arg(q(o.explain_error)));
            if (!o.short_text_note.empty()) { // below the model's warnings, which showModel put there
                QStringList lines;
                for (const std::string &w : o.warnings)
                    lines << q(w);
                showMessage((lines << q(o.short_text_note)).join(QLatin1Char('\n')), false);
            } else if (o.warnings.empty()) {
                showMessage(QString(), false);
            }
            break;
        }
    }
}

void TryItPanel::showModel(const TryItOutcome &o)
{
    showLoadedModel(o.weights_path, o.weights_label, o.max_seq_length, o.notes);
    QStringList warnings;
    for (const std::string &w : o.warnings)
        warnings << q(w);
    if (!warnings.isEmpty())
        showMessage(warnings.join(QLatin1Char('\n')), false);
}

void TryItPanel::showMessage(const QString &text, bool isError)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
    m_message->setStyleSheet(isError ? QStringLiteral("QLabel{color:#a00000;background:#fdecea;border:1px solid #e0a0a0;padding:4px}")
                                     : QStringLiteral("QLabel{color:#404040;padding:2px}"));
}

void TryItPanel::clearResult()
{
    clearExplanation();
    showChips({});
    showBars({}, nullptr, false);
}

void TryItPanel::showChips(const TokenizedText &t)
{
    m_tokens = t;
    m_chips->setUpdatesEnabled(false);
    qDeleteAll(m_chips->findChildren<QLabel *>(QString(), Qt::FindDirectChildrenOnly));
    QLayout *flow = m_chips->layout();
    for (size_t k = 0; k < t.tokens.size(); ++k) {
        const QString token = q(t.tokens[k]);
        const bool special = token == QLatin1String("[CLS]") || token == QLatin1String("[SEP]");
        const bool unknown = k < t.unknown.size() && t.unknown[k];
        const bool second = k < t.segment_ids.size() && t.segment_ids[k] == 1;
        auto *chip = new QLabel(QStringLiteral("%1 <span style=\"color:#707070;font-size:small\">%2</span>")
                                    .arg(token.toHtmlEscaped())
                                    .arg(t.input_ids[k]));
        chip->setObjectName(QStringLiteral("tokenChip"));
        chip->setTextFormat(Qt::RichText);
        chip->setProperty("token", token);
        chip->setProperty("inputId", qlonglong(t.input_ids[k]));
        chip->setProperty("unknown", unknown);
        if (unknown) {
            chip->setStyleSheet(kChipStyle.arg(QStringLiteral("#ffd8cc"), QStringLiteral("#d04a20"), QStringLiteral("#8a1c00")));
            chip->setToolTip(tr("[UNK]: not in the vocabulary (input_id %1)").arg(t.input_ids[k]));
        } else if (special) {
            chip->setStyleSheet(kChipStyle.arg(QStringLiteral("#e4e4e4"), QStringLiteral("#a0a0a0"), QStringLiteral("#404040")));
            chip->setToolTip(token == QLatin1String("[CLS]") ? tr("[CLS]: starts every input; the classifier reads its vector")
                                                             : tr("[SEP]: ends a segment"));
        } else {
            chip->setStyleSheet(second ? kChipStyle.arg(QStringLiteral("#e2f3e6"), QStringLiteral("#8cc49a"), QStringLiteral("#10301a"))
                                       : kChipStyle.arg(QStringLiteral("#e3ecf8"), QStringLiteral("#9ab4d8"), QStringLiteral("#10203a")));
            chip->setToolTip(tr("input_id %1, segment %2").arg(t.input_ids[k]).arg(second ? 1 : 0));
        }
        flow->addWidget(chip);
    }
    if (t.truncated) {
        auto *cut = new QLabel(tr("✂ cut here: %1 of %2 wordpieces kept").arg(t.tokens.size()).arg(t.tokens_needed));
        cut->setObjectName(QStringLiteral("cutLine"));
        cut->setStyleSheet(QStringLiteral("QLabel{color:#a00000;border:1px dashed #c04040;border-radius:4px;padding:1px 4px;font-weight:bold}"));
        cut->setToolTip(tr("The model reads at most max_seq_length wordpieces; the rest of the text is not seen."));
        flow->addWidget(cut);
    }
    m_chips->setUpdatesEnabled(true);
}

void TryItPanel::showBars(const std::vector<std::string> &labels, const Classification *c, bool regression)
{
    if (labels != m_labels || regression || m_barWidgets.size() != (regression ? 1 : labels.size())) {
        for (QProgressBar *bar : m_barWidgets)
            delete bar;
        m_barWidgets.clear();
        m_labels = labels;
        const size_t n = regression ? (c ? 1 : 0) : labels.size();
        for (size_t k = 0; k < n; ++k) {
            auto *bar = new QProgressBar;
            bar->setObjectName(QStringLiteral("labelBar"));
            bar->setRange(0, 1000);
            bar->setMinimumHeight(24);
            m_barLayout->addWidget(bar);
            m_barWidgets.push_back(bar);
        }
    }
    for (size_t k = 0; k < m_barWidgets.size(); ++k) {
        QProgressBar *bar = m_barWidgets[k];
        const QString name = regression ? tr("value") : q(labels[k]);
        const bool has = c && k < c->probabilities.size();
        const double p = has ? c->probabilities[k] : 0.0;
        const bool multi = has && c->multi_label;
        const double threshold = multi && k < c->thresholds.size() ? c->thresholds[k] : 0.5;
        const bool predicted = has && !regression
                               && (multi ? p >= threshold : int64_t(k) == c->predicted_label_id);
        bar->setProperty("label", name);
        bar->setProperty("probability", has ? QVariant(p) : QVariant());
        bar->setValue(regression ? 0 : int(std::lround(std::clamp(p, 0.0, 1.0) * 1000)));
        // Leading spaces: the style draws left-aligned text on the frame's edge.
        bar->setFormat(!has ? QStringLiteral("  %1 —").arg(name)
                            : regression ? QStringLiteral("  %1 %2").arg(name).arg(p, 0, 'g', 6)
                            : multi      ? tr("  %1 %2 % (threshold %3 %)")
                                          .arg(name)
                                          .arg(p * 100.0, 0, 'f', 1)
                                          .arg(threshold * 100.0, 0, 'f', 0)
                                         : QStringLiteral("  %1 %2 %").arg(name).arg(p * 100.0, 0, 'f', 1));
        const QString chunk = predicted ? QStringLiteral("#3b9a5c") : QStringLiteral("#a9bcd6");
        bar->setStyleSheet(QStringLiteral("QProgressBar{border:1px solid #b0b0b0;border-radius:3px;background:#f6f6f6;"
                                          "text-align:left;%1}"
                                          "QProgressBar::chunk{background:%2;border-radius:2px}")
                               .arg(predicted ? QStringLiteral("font-weight:bold") : QString(), chunk));
        bar->setToolTip(multi ? (predicted ? tr("In the predicted set: its probability reaches its threshold")
                                           : tr("Not predicted: its probability is below its threshold"))
                        : predicted ? tr("The predicted label (the largest probability)")
                                    : QString());
    }
}

void TryItPanel::chooseModel()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a checkpoint"), q(m_formSource.model_dir),
                                                      tr("Checkpoints (ckpt-* *.safetensors);;All files (*)"));
    if (!path.isEmpty())
        setChosenModel(path);
}

QString TryItPanel::messageText() const { return m_message->text(); }

QStringList TryItPanel::shownLabels() const
{
    QStringList names;
    for (const QProgressBar *bar : m_barWidgets)
        names << bar->property("label").toString();
    return names;
}

std::vector<double> TryItPanel::shownProbabilities() const
{
    std::vector<double> p;
    for (const QProgressBar *bar : m_barWidgets)
        if (bar->property("probability").isValid())
            p.push_back(bar->property("probability").toDouble());
    return p;
}

QString TryItPanel::cutText() const
{
    const auto *cut = m_chips->findChild<QLabel *>(QStringLiteral("cutLine"));
    return cut ? cut->text() : QString();
}

} // namespace wb
