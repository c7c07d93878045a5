// SPDX-License-Identifier: Apache-2.0
#include "ui/tryit/tryitpanel.h"
#include "ui/common/qtext.h"
#include "ui/tryit/attributionchips.h"

#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/config/optiontable.h"
#include "core/train/bestmodel.h"
#include "core/train/checkpointstate.h"
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
#include <cmath>
#include <mutex>

namespace wb {

/// The loaded model, shared by the panel's jobs; one job uses it at a time (the mutex).
struct TryItModelCache
{
    std::mutex mutex;
    std::unique_ptr<TextClassifier> classifier;
    std::string key;  ///< source, resolved weights and reload epoch it was loaded from
};

/// What one request produced, copied out of the classifier for the GUI thread.
struct TryItOutcome
{
    enum class Kind { Cancelled, NoModel, NoCheckpoint, Loaded, Classified };
    Kind kind = Kind::Cancelled;
    std::string model_dir;
    std::string weights_path;
    std::string weights_label; ///< "best, step 42 (eval_accuracy 0.6667)" or "latest, step 60" (a run's checkpoint)
    std::vector<std::string> labels;
    std::vector<std::string> warnings;
    int64_t max_seq_length = 0;
    bool regression = false;
    Classification result;
    std::optional<Explanation> explanation; ///< when asked for and computed
    std::string explain_error;              ///< why it could not be computed (e.g. a class the model lacks)
};

namespace {


struct TryItRequest
{
    ClassifierSource source;
    /// The project's meta data when `source` is a model the user chose (labels compared), else "".
    std::string project_meta_data;
    uint64_t epoch = 0;
    std::string text, text_b;
    bool explain = false;
    ExplainOptions explain_options;
};

std::string cacheKey(const ClassifierSource &s, uint64_t epoch)
{
    const std::string lower = s.do_lower_case ? (*s.do_lower_case ? "1" : "0") : "-";
    return s.model_export_path + '\n' + s.model_dir + '\n' + s.checkpoint_path + '\n' + s.bert_config_file + '\n'
           + s.input_meta_data_path + '\n' + s.vocab_file + '\n' + lower + '\n' + std::to_string(s.max_seq_length)
           + '\n' + std::to_string(epoch);
}

/// A chosen model whose label names are not the project's (`projectMeta`'s labels.txt, or its
/// label names): the sentence that says so, else "". Never throws.
std::string labelMismatch(const std::string &projectMeta, const std::vector<std::string> &modelLabels)
{
    if (projectMeta.empty() || modelLabels.empty())
        return {};
    try {
        Diagnostics diag;
        const auto meta = InputMetaData::load(projectMeta, diag);
        if (!meta || diag.hasErrors() || meta->isRegression())
            return {};
        const std::vector<std::string> project = readLabelNames(projectMeta, meta->num_labels, {}).names;
        if (project == modelLabels)
            return {};
        const auto join = [](const std::vector<std::string> &v) {
            std::string s;
            for (const auto &x : v)
                s += (s.empty() ? "" : ", ") + x;
            return s;
        };
        return "the chosen model's labels (" + join(modelLabels) + ") are not this project's (" + join(project)
               + "): its answers are in its own labels; choose another model, or Choose… → “The Model directory's checkpoint”";
    } catch (...) {
        return {};
    }
}

/// Runs on a pool thread: (re)loads the model when its source changed, then classifies.
TryItOutcome runRequest(const std::shared_ptr<TryItModelCache> &cache, TryItRequest req, const JobControl &control)
{
    std::lock_guard<std::mutex> lock(cache->mutex);
    TryItOutcome out;
    if (control.isCancelled())
        return out;
    ClassifierSource s = std::move(req.source);
    out.model_dir = s.model_dir;
    if (s.model_export_path.empty()) {
        if (s.model_dir.empty()) {
            out.kind = TryItOutcome::Kind::NoModel;
            return out;
        }
        if (s.checkpoint_path.empty()) {
            // The run's checkpoint (its best when it kept one, else the latest), pinned now, so
            // that a new one saved by training is a new key.
            const RunCheckpointChoice choice = chooseRunCheckpoint(s.model_dir);
            s.checkpoint_path = choice.path;
            out.weights_label = choice.label();
            if (s.checkpoint_path.empty()) {
                out.kind = TryItOutcome::Kind::NoCheckpoint;
                return out;
            }
        }
    }
    const std::string key = cacheKey(s, req.epoch);
    if (!cache->classifier || cache->key != key) {
        cache->classifier.reset();
        cache->key.clear();
        cache->classifier = std::make_unique<TextClassifier>(s);
        cache->key = key;
    }
    const TextClassifier &c = *cache->classifier;
    out.weights_path = c.weightsPath();
    out.labels = c.labelNames();
    out.warnings = c.warnings();
    if (const std::string w = labelMismatch(req.project_meta_data, out.labels); !w.empty())
        out.warnings.push_back(w);
    out.max_seq_length = c.maxSeqLength();
    out.regression = c.isRegression();
    out.kind = TryItOutcome::Kind::Loaded;
    if (!req.text.empty() && !control.isCancelled()) {
        if (req.explain) {
            try {
                out.explanation = c.explain(req.text, req.text_b, req.explain_options, &out.result);
            } catch (const Error &e) {
                out.explain_error = e.field() + ": " + e.what() + (e.hint().empty() ? "" : " (" + e.hint() + ")");
                out.result = c.classify(req.text, req.text_b);
            }
        } else {
            out.result = c.classify(req.text, req.text_b);
        }
        out.kind = TryItOutcome::Kind::Classified;
    }
    return out;
}

/// "bert_config_file: required with --model_dir" → "“BERT config”: required with “Model directory”".
QString inFormWords(const ErrorReport &e)
{
    static const QRegularExpression fieldPrefix(QStringLiteral("^([a-z_]+): "));
    QString message = e.message;
    const auto m = fieldPrefix.match(message);
    if (m.hasMatch()) {
        const OptionSpec *spec = findOption(m.captured(1).toStdString());
        if (spec && spec->group != FormGroup::None)
            message = QStringLiteral("“%1”: %2").arg(QString::fromUtf8(spec->label), message.mid(m.capturedLength()));
    }
    message = formWording(message);
    if (!e.hint.isEmpty())
        message += QStringLiteral("\n") + TryItPanel::tr("How to fix: %1").arg(formWording(e.hint));
    return message;
}

/// Lays its items out left to right and wraps them into rows (the chips).
class ChipFlowLayout : public QLayout
{
public:
    explicit ChipFlowLayout(QWidget *parent) : QLayout(parent)
    {
        setContentsMargins(6, 6, 6, 6);
        setSpacing(4);
    }
    ~ChipFlowLayout() override
    {
        while (QLayoutItem *item = ChipFlowLayout::takeAt(0))
            delete item;
    }
    void addItem(QLayoutItem *item) override { m_items.push_back(item); }
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int index) const override
    {
        return index >= 0 && index < count() ? m_items[size_t(index)] : nullptr;
    }
    QLayoutItem *takeAt(int index) override
    {
        if (index < 0 || index >= count())
            return nullptr;
        QLayoutItem *item = m_items[size_t(index)];
        m_items.erase(m_items.begin() + index);
        return item;
    }
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    QSize sizeHint() const override { return minimumSize(); }
    QSize minimumSize() const override
    {
        QSize size;
        for (const QLayoutItem *item : m_items)
            size = size.expandedTo(item->minimumSize());
        const QMargins m = contentsMargins();
        return size + QSize(m.left() + m.right(), m.top() + m.bottom());
    }
    void setGeometry(const QRect &rect) override
    {
        QLayout::setGeometry(rect);
        arrange(rect, true);
    }

private:
    int arrange(const QRect &rect, bool place) const
    {
        const QRect area = rect.marginsRemoved(contentsMargins());
        int x = area.x(), y = area.y(), rowHeight = 0;
        for (QLayoutItem *item : m_items) {
            const QSize size = item->sizeHint();
            if (x > area.x() && x + size.width() > area.right() + 1) {
                x = area.x();
                y += rowHeight + spacing();
                rowHeight = 0;
            }
            if (place)
                item->setGeometry(QRect(QPoint(x, y), size));
            x += size.width() + spacing();
            rowHeight = std::max(rowHeight, size.height());
        }
        return y + rowHeight - rect.y() + contentsMargins().bottom();
    }

    std::vector<QLayoutItem *> m_items;
};

const QString kChipStyle = QStringLiteral("QLabel{background:%1;border:1px solid %2;border-radius:4px;padding:1px 4px;color:%3}");

} // namespace

TryItPanel::TryItPanel(QWidget *parent) : QWidget(parent), m_cache(std::make_shared<TryItModelCache>())
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

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, [this] { refreshNow(); });
    connect(m_text, &QPlainTextEdit::textChanged, this, &TryItPanel::scheduleRefresh);
    connect(m_textB, &QPlainTextEdit::textChanged, this, &TryItPanel::scheduleRefresh);
    showMessage(tr("Set “Model directory” in the form, or choose a checkpoint or export folder."), false);
}


void TryItPanel::buildTextFields()
{
    m_text = new QPlainTextEdit;
    m_text->setObjectName(QStringLiteral("tryItText"));
    m_text->setPlaceholderText(tr("Type or paste a text; the model's answer follows as you type."));
    m_textB = new QPlainTextEdit;
    m_textB->setObjectName(QStringLiteral("tryItTextB"));
    m_textB->setPlaceholderText(tr("Only for tasks on text pairs (e.g. MNLI, MRPC); leave empty otherwise."));
    m_text->setMinimumHeight(60);
    m_text->setMaximumHeight(150);
    m_textB->setMaximumHeight(56);
}

QHBoxLayout *TryItPanel::buildModelRow()
{
    m_modelLine = new QLabel;
    m_modelLine->setObjectName(QStringLiteral("tryItModel"));
    m_modelLine->setWordWrap(true);
    m_modelLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
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
    modelRow->addWidget(m_modelLine, 1);
    modelRow->addWidget(m_choose, 0, Qt::AlignTop);
    return modelRow;
}

void TryItPanel::buildAnswerArea()
{
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("tryItMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_busy = new QLabel(tr("working…"));
    m_busy->setStyleSheet(QStringLiteral("color:#808080"));
    m_busy->setVisible(false);

    m_chips = new QWidget;
    m_chips->setObjectName(QStringLiteral("tryItChips"));
    new ChipFlowLayout(m_chips);
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

TryItPanel::~TryItPanel()
{
    // The job owns only values and the shared cache; waiting lets a load end before exit.
    m_job.cancel();
    m_job.waitForFinished();
}

void TryItPanel::setFormSource(const ClassifierSource &source)
{
    const uint64_t unchanged = 0;
    if (cacheKey(source, unchanged) == cacheKey(m_formSource, unchanged))
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

void TryItPanel::setTexts(const QString &text, const QString &textB)
{
    m_textB->setPlainText(textB);
    m_text->setPlainText(text);
}

void TryItPanel::checkpointSaved(const QString &modelDir)
{
    // While hidden nothing more is done: showEvent() looks for the run's checkpoint again.
    if (QDir(modelDir) != QDir(q(m_formSource.model_dir)))
        return;
    // A run of the form's model: the panel follows it, whatever model was chosen before.
    m_chosen.clear();
    ++m_reloadEpoch;
    if (isVisible())
        refreshNow();
}

void TryItPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Cheap when nothing changed: the job finds the same checkpoint and keeps the loaded model.
    scheduleRefresh();
}

void TryItPanel::scheduleRefresh()
{
    if (isVisible())
        m_debounce->start();
}

uint64_t TryItPanel::refreshNow()
{
    m_debounce->stop();
    m_job.cancel();
    const uint64_t generation = ++m_generation;
    TryItRequest req;
    req.source = effectiveSource();
    if (!m_chosen.isEmpty())
        req.project_meta_data = m_formSource.input_meta_data_path;
    req.epoch = m_reloadEpoch;
    if (!m_text->toPlainText().trimmed().isEmpty()) {
        req.text = m_text->toPlainText().toStdString();
        req.text_b = m_textB->toPlainText().trimmed().isEmpty() ? std::string() : m_textB->toPlainText().toStdString();
    }
    req.explain = explainEnabled();
    req.explain_options = explainOptions();
    m_busy->setVisible(true);
    m_job = runBackgroundJob<TryItOutcome>(
        this, [cache = m_cache, req](const JobControl &control) { return runRequest(cache, req, control); },
        [this, generation](JobOutcome<TryItOutcome> outcome) { applyOutcome(generation, outcome); });
    return generation;
}

void TryItPanel::applyOutcome(uint64_t generation, const JobOutcome<TryItOutcome> &outcome)
{
    if (generation != m_generation) {
        ++m_dropped;
        return;
    }
    m_busy->setVisible(false);
    m_shownGeneration = generation;
    if (!outcome.ok()) {
        clearResult();
        m_modelLine->setText(tr("Model: not loaded"));
        showMessage(tr("Cannot load the model: %1").arg(inFormWords(outcome.error)), true);
    } else {
        const TryItOutcome &o = *outcome.value;
        switch (o.kind) {
        case TryItOutcome::Kind::Cancelled:
            break;
        case TryItOutcome::Kind::NoModel:
            clearResult();
            m_modelLine->setText(tr("Model: none"));
            showMessage(tr("Set “Model directory” in the form, or choose a checkpoint or export folder."), false);
            break;
        case TryItOutcome::Kind::NoCheckpoint:
            clearResult();
            m_modelLine->setText(tr("Model: none"));
            showMessage(tr("No checkpoint yet in %1: train first, or choose a checkpoint or export folder.")
                            .arg(QDir::toNativeSeparators(q(o.model_dir))),
                        false);
            break;
        case TryItOutcome::Kind::Loaded:
            showModel(o);
            updateClassChoice(o.labels, o.regression);
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
            updateClassChoice(o.labels, o.regression);
            if (o.explanation)
                showExplanation(o.result.tokenized, *o.explanation); // shades the chips just drawn
            else
                clearExplanation(o.explain_error.empty() ? QString()
                                                         : tr("No explanation: %1").arg(formWording(q(o.explain_error))));
            if (o.warnings.empty())
                showMessage(QString(), false);
            break;
        }
    }
    Q_EMIT outcomeShown(generation);
}

void TryItPanel::showModel(const TryItOutcome &o)
{
    const QString which = o.weights_label.empty() ? QString() : QStringLiteral(" — %1").arg(q(o.weights_label));
    m_modelLine->setText(tr("Model: %1%2 (max_seq_length %3)")
                             .arg(QDir::toNativeSeparators(q(o.weights_path)), which)
                             .arg(o.max_seq_length));
    QStringList warnings;
    for (const std::string &w : o.warnings)
        warnings << formWording(q(w));
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
        const bool predicted = has && !regression && int64_t(k) == c->predicted_label_id;
        bar->setProperty("label", name);
        bar->setProperty("probability", has ? QVariant(p) : QVariant());
        bar->setValue(regression ? 0 : int(std::lround(std::clamp(p, 0.0, 1.0) * 1000)));
        // Leading spaces: the style draws left-aligned text on the frame's edge.
        bar->setFormat(!has ? QStringLiteral("  %1 —").arg(name)
                            : regression ? QStringLiteral("  %1 %2").arg(name).arg(p, 0, 'g', 6)
                                         : QStringLiteral("  %1 %2 %").arg(name).arg(p * 100.0, 0, 'f', 1));
        const QString chunk = predicted ? QStringLiteral("#3b9a5c") : QStringLiteral("#a9bcd6");
        bar->setStyleSheet(QStringLiteral("QProgressBar{border:1px solid #b0b0b0;border-radius:3px;background:#f6f6f6;"
                                          "text-align:left;%1}"
                                          "QProgressBar::chunk{background:%2;border-radius:2px}")
                               .arg(predicted ? QStringLiteral("font-weight:bold") : QString(), chunk));
        bar->setToolTip(predicted ? tr("The predicted label (the largest probability)") : QString());
    }
}

void TryItPanel::chooseModel()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a checkpoint"), q(m_formSource.model_dir),
                                                      tr("Checkpoints (ckpt-* *.safetensors);;All files (*)"));
    if (!path.isEmpty())
        setChosenModel(path);
}

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
    m_explainLines = new QLabel;
    m_explainLines->setObjectName(QStringLiteral("tryItExplanation"));
    m_explainLines->setWordWrap(true);
    m_explainLines->setTextFormat(Qt::RichText);
    m_explainLines->setTextInteractionFlags(Qt::TextSelectableByMouse);
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
    // One narrow row, so that Try it is no wider and no taller than the other tabs (a 1280×800
    // screen at 150 %): the boxes show the first characters of long names (the full name is in
    // the list), and the class box's tooltip says what it is for.
    auto *row = new QHBoxLayout;
    row->addWidget(m_explain);
    row->addWidget(m_explainMethod);
    row->addWidget(m_igSteps);
    row->addWidget(m_explainClassBox);
    row->addStretch(1);
    v->addLayout(row);
    for (QComboBox *box : {m_explainMethod, m_explainClassBox}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(9);
    }
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

void TryItPanel::updateClassChoice(const std::vector<std::string> &labels, bool regression)
{
    // Items: "the predicted class", then one per label (regression: its one value).
    const int wanted = 1 + int(regression ? 1 : labels.size());
    bool same = m_explainClassBox->count() == wanted;
    for (int k = 1; same && k < wanted; ++k)
        same = m_explainClassBox->itemText(k) == (regression ? tr("value") : q(labels[size_t(k - 1)]));
    if (same)
        return;
    const QSignalBlocker block(m_explainClassBox);
    m_explainClassBox->clear();
    m_explainClassBox->addItem(tr("the predicted class"), qlonglong(-1));
    for (int k = 1; k < wanted; ++k)
        m_explainClassBox->addItem(regression ? tr("value") : q(labels[size_t(k - 1)]), qlonglong(k - 1));
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
        chip->setToolTip(tr("%1: %2 to the logit of “%3” (input_id %4)")
                             .arg(q(e.tokens[size_t(k)]))
                             .arg(a >= 0 ? QStringLiteral("+%1").arg(a, 0, 'g', 3) : QString::number(a, 'g', 3))
                             .arg(q(e.target_label))
                             .arg(t.input_ids[size_t(k)]));
    }
    const QString target = q(e.target_label);
    m_legend->setScale(maxAbs, target);
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
    QString html = tr("<b>For</b> %1: <span style=\"color:%2\">%3</span><br><b>Against</b> it: <span style=\"color:%4\">%5</span>")
                       .arg(which, kAttributionFor.name(), list(topWords(e.words, kTopWords, true)),
                            kAttributionAgainst.name(), list(topWords(e.words, kTopWords, false)));
    const QString check = q(completenessText(e)).toHtmlEscaped();
    if (e.completeness.steps_too_small)
        html += QStringLiteral("<br><span style=\"color:#a00000\"><b>%1</b> %2</span>")
                    .arg(tr("m is too small:"), check);
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

QString TryItPanel::modelLine() const { return m_modelLine->text(); }

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
