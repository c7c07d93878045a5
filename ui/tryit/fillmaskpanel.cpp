// SPDX-License-Identifier: Apache-2.0
#include "ui/tryit/fillmaskpanel.h"
#include "ui/common/qtext.h"
#include "ui/form/newwidgets.h"

#include "core/formats/bestmodel.h"
#include "ui/common/loadedmodelcache.h"

#include <QDir>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollArea>
#include <QVBoxLayout>

#include <mutex>

namespace wb {

/// The loaded predictor, shared by the panel's jobs; one job uses it at a time (the mutex).
struct FillMaskCache : LoadedModelCache<FillMaskPredictor>
{
};

/// What one request produced, copied out for the GUI thread.
struct FillMaskOutcome
{
    enum class Kind { Cancelled, NoModel, NoCheckpoint, Loaded, Filled };
    Kind kind = Kind::Cancelled;
    std::string model_dir, weights_path, weights_label;
    std::vector<std::string> warnings;
    int64_t max_seq_length = 0;
    FillMaskResult result;
};

namespace {

struct FillMaskRequest
{
    FillMaskSource source;
    uint64_t epoch = 0;
    std::string text;
};

FillMaskOutcome runRequest(const std::shared_ptr<FillMaskCache> &cache, const FillMaskRequest &req, const JobControl &job)
{
    FillMaskOutcome o;
    o.model_dir = req.source.model_dir;
    if (req.source.model_dir.empty() && req.source.model_export_path.empty()) {
        o.kind = FillMaskOutcome::Kind::NoModel;
        return o;
    }
    // The checkpoint the predictor would take now: a new one (the run went on) loads again.
    const std::string weights = req.source.model_export_path.empty() ? chooseRunCheckpoint(req.source.model_dir).path
                                                                     : req.source.model_export_path;
    if (weights.empty()) {
        o.kind = FillMaskOutcome::Kind::NoCheckpoint;
        return o;
    }
    const FillMaskSource &s = req.source;
    const std::string key = s.model_export_path + '\n' + s.model_dir + '\n' + s.checkpoint_path + '\n' + s.bert_config_file
                            + '\n' + s.input_meta_data_path + '\n' + s.vocab_file + '\n'
                            + (s.do_lower_case ? (*s.do_lower_case ? "1" : "0") : "-") + '\n' + weights + '\n'
                            + std::to_string(req.epoch);
    std::lock_guard<std::mutex> lock(cache->mutex);
    if (job.isCancelled())
        return o;
    const FillMaskPredictor &p = cache->load(key, s);
    o.weights_path = p.weightsPath();
    o.weights_label = p.weightsLabel();
    o.warnings = p.warnings();
    o.max_seq_length = p.maxSeqLength();
    if (req.text.empty() || job.isCancelled()) {
        o.kind = FillMaskOutcome::Kind::Loaded;
        return o;
    }
    o.result = p.predict(req.text, FillMaskPanel::kTopK);
    o.kind = FillMaskOutcome::Kind::Filled;
    return o;
}

} // namespace

FillMaskPanel::FillMaskPanel(QWidget *parent) : LiveModelPanel(parent), m_cache(std::make_shared<FillMaskCache>())
{
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Fill in the blank: write [MASK] where a word is missing, e.g. “the meeting is on "
                                "[MASK]”. The pretrained model proposes its %1 most probable wordpieces for each blank.")
                                 .arg(kTopK));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_text = newTextField<QPlainTextEdit>(QStringLiteral("fillMaskText"), tr("the meeting is on [MASK]"));
    m_text->setMaximumHeight(90);
    layout->addWidget(m_text);
    layout->addWidget(newModelLine(QStringLiteral("fillMaskModel"), tr("Model: none")));
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("fillMaskMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    layout->addWidget(m_message);
    m_results = new QWidget;
    m_results->setObjectName(QStringLiteral("fillMaskResults"));
    m_resultsLayout = new QVBoxLayout(m_results);
    m_resultsLayout->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_results);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(scroll, 1);
    connect(m_text, &QPlainTextEdit::textChanged, this, &FillMaskPanel::scheduleRefresh);
}

void FillMaskPanel::setFormSource(const FillMaskSource &source)
{
    m_source = source;
    scheduleRefresh();
}

void FillMaskPanel::setText(const QString &text) { m_text->setPlainText(text); }

JobHandle FillMaskPanel::startRequest(uint64_t generation)
{
    FillMaskRequest req;
    req.source = m_source;
    req.epoch = reloadEpoch();
    if (!m_text->toPlainText().trimmed().isEmpty())
        req.text = m_text->toPlainText().toStdString();
    return runRequestJob<FillMaskOutcome>(
        generation, [cache = m_cache, req](const JobControl &control) { return runRequest(cache, req, control); },
        [this](const JobOutcome<FillMaskOutcome> &outcome) { applyOutcome(outcome); });
}

void FillMaskPanel::applyOutcome(const JobOutcome<FillMaskOutcome> &outcome)
{
    if (!outcome.ok()) {
        showResult({});
        // A text without [MASK] is the user's to fix; the model line stays.
        showMessage(outcome.error.withHowToFix(), true);
        return;
    }
    const FillMaskOutcome &o = *outcome.value;
    switch (o.kind) {
    case FillMaskOutcome::Kind::Cancelled:
        break;
    case FillMaskOutcome::Kind::NoModel:
        showNoModel(tr("Set “Model directory” in the form to a pretraining run."));
        break;
    case FillMaskOutcome::Kind::NoCheckpoint:
        showNoModel(tr("No checkpoint yet in %1: pretrain first (a checkpoint is written at each evaluation).")
                        .arg(QDir::toNativeSeparators(q(o.model_dir))));
        break;
    case FillMaskOutcome::Kind::Loaded:
    case FillMaskOutcome::Kind::Filled: {
        showLoadedModel(o.weights_path, o.weights_label, o.max_seq_length);
        showResult(o.result);
        QStringList notes;
        if (o.kind == FillMaskOutcome::Kind::Loaded)
            notes << tr("Type a text with [MASK] to see what the model fills in.");
        if (o.result.truncated)
            notes << tr("The text was cut at max_seq_length (%1 wordpieces).").arg(o.max_seq_length);
        for (const std::string &w : o.warnings)
            notes << q(w);
        showMessage(notes.join(QLatin1Char('\n')), false);
        break;
    }
    }
}

void FillMaskPanel::showResult(const FillMaskResult &r)
{
    m_result = r;
    while (QLayoutItem *item = m_resultsLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (size_t m = 0; m < r.masks.size(); ++m) {
        const MaskFill &fill = r.masks[m];
        QString context;
        for (int64_t i = std::max<int64_t>(1, fill.position - 3); i < std::min<int64_t>(int64_t(r.tokens.size()) - 1, fill.position + 4); ++i)
            context += (context.isEmpty() ? QString() : QStringLiteral(" ")) + (i == fill.position ? QStringLiteral("___") : q(r.tokens[size_t(i)]));
        auto *box = new QGroupBox(tr("Blank %1: %2").arg(m + 1).arg(context));
        box->setObjectName(QStringLiteral("fillMaskBlank%1").arg(m + 1));
        auto *grid = new QGridLayout(box);
        for (size_t k = 0; k < fill.top.size(); ++k) {
            const MaskCandidate &c = fill.top[k];
            auto *token = new QLabel(q(c.token));
            token->setToolTip(tr("token id %1").arg(c.token_id));
            QFont f = token->font();
            f.setBold(k == 0);
            token->setFont(f);
            auto *bar = new QProgressBar;
            bar->setObjectName(QStringLiteral("fillMaskBar%1_%2").arg(m + 1).arg(k + 1));
            bar->setRange(0, 10000);
            bar->setValue(int(c.probability * 10000.0 + 0.5));
            bar->setFormat(QStringLiteral("%1 %").arg(c.probability * 100.0, 0, 'f', 1));
            bar->setToolTip(tr("%1: probability %2").arg(q(c.token)).arg(c.probability, 0, 'g', 6));
            grid->addWidget(token, int(k), 0);
            grid->addWidget(bar, int(k), 1);
        }
        grid->setColumnStretch(1, 1);
        m_resultsLayout->addWidget(box);
    }
    m_resultsLayout->addStretch(1);
}

void FillMaskPanel::showMessage(const QString &text, bool isError)
{
    m_message->setText(text);
    m_message->setStyleSheet(isError ? QStringLiteral("color:#b00000") : QString());
}

QString FillMaskPanel::messageText() const { return m_message->text(); }

} // namespace wb
