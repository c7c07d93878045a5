// SPDX-License-Identifier: Apache-2.0
// The Label tab: its widgets, opening a session, the text shown and the keys (the queue and the
// cycles: labeltabqueue.cpp; the Labelled page and the project: labeltablist.cpp).
#include "ui/label/labeltab.h"

#include "core/learn/labelcycle.h"
#include "ui/common/qtext.h"
#include "ui/label/labelcurveplot.h"
#include "ui/label/labelsessiondialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <filesystem>

namespace wb {

/// What opening a session reads in the background.
struct LabelTab::Loaded
{
    QString dir;
    LabelSessionSettings settings;
    std::vector<PoolText> pool;
    std::shared_ptr<LabelStore> store;
    std::vector<CurvePoint> curve;
};

LabelTab::LabelTab(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_sessionLine = new QLabel(tr("No labelling session open."));
    m_sessionLine->setObjectName(QStringLiteral("labelSessionLine"));
    m_sessionLine->setWordWrap(true);
    m_new = new QPushButton(tr("New session…"));
    m_open = new QPushButton(tr("Open session…"));
    m_makeProject = new QPushButton(tr("Make a project…"));
    m_makeProject->setObjectName(QStringLiteral("labelMakeProject"));
    m_makeProject->setToolTip(tr("Make a project from these labels: prepare labels.csv and fill the form to train on it."));
    m_makeProject->setEnabled(false);
    for (QPushButton *b : {m_new, m_open, m_makeProject}) {
        b->setFocusPolicy(Qt::NoFocus);
        top->addWidget(b);
    }
    connect(m_new, &QPushButton::clicked, this, &LabelTab::newSession);
    connect(m_open, &QPushButton::clicked, this, &LabelTab::chooseSession);
    connect(m_makeProject, &QPushButton::clicked, this, &LabelTab::makeProject);
    top->addStretch(1);
    layout->addLayout(top);
    layout->addWidget(m_sessionLine);

    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("labelPages"));
    m_pages->setFocusPolicy(Qt::NoFocus);
    m_pages->addTab(buildLabelPage(), tr("Label"));
    m_pages->addTab(buildListPage(), tr("Labelled"));
    m_plot = new LabelCurvePlot;
    m_pages->addTab(m_plot, tr("Curve"));
    m_stack = new QStackedWidget;
    m_stack->addWidget(buildEmptyPage());
    m_stack->addWidget(m_pages);
    layout->addWidget(m_stack, 1);

    auto *statusRow = new QHBoxLayout;
    m_statusLine = new QLabel;
    m_statusLine->setObjectName(QStringLiteral("labelStatus"));
    m_statusLine->setWordWrap(true);
    m_progress = new QProgressBar;
    m_progress->setRange(0, kJobProgressMax);
    m_progress->setMaximumWidth(120);
    m_progress->setTextVisible(false);
    m_progress->hide();
    statusRow->addWidget(m_statusLine, 1);
    statusRow->addWidget(m_progress);
    layout->addLayout(statusRow);
}

LabelTab::~LabelTab()
{
    // A cycle trains with libtorch on a pool thread: stop it (it polls between steps) before the
    // program's objects go away.
    for (JobHandle *job : {&m_cycleJob, &m_loadJob, &m_projectJob}) {
        job->cancel();
        job->waitForFinished();
    }
}

QWidget *LabelTab::buildEmptyPage()
{
    auto *empty = new QLabel(
        tr("<h3>Label to learn</h3><p>Import your own texts, create the labels, and label the texts one at a "
           "time with the keyboard. A model learns from your labels as you go: after every few labels it "
           "retrains in the background, suggests the next labels and picks the texts it is least sure "
           "about. A curve shows what each label buys.</p><p>Every label is saved as you give it (labels.csv "
           "in the session folder): nothing is lost if the program stops.</p><p>Start with <b>New "
           "session…</b>, or open a session folder.</p>"));
    empty->setObjectName(QStringLiteral("labelEmptyPage"));
    empty->setWordWrap(true);
    empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    return empty;
}

QWidget *LabelTab::buildLabelPage()
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    m_position = new QLabel;
    m_position->setObjectName(QStringLiteral("labelPosition"));
    m_heldOutNote = new QLabel(tr("This text is kept aside to measure the model: the model never trains on it, "
                                  "and does not suggest a label for it."));
    m_heldOutNote->setObjectName(QStringLiteral("labelHeldOutNote"));
    m_heldOutNote->setWordWrap(true);
    m_heldOutNote->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    m_text = new QPlainTextEdit;
    m_text->setObjectName(QStringLiteral("labelText"));
    m_text->setReadOnly(true);
    m_text->setFocusPolicy(Qt::NoFocus);
    QFont big = m_text->font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    m_text->setFont(big);
    m_suggestion = new QLabel;
    m_suggestion->setObjectName(QStringLiteral("labelSuggestion"));
    m_buttonRow = new QHBoxLayout;
    auto *actions = new QHBoxLayout;
    m_skip = new QPushButton(tr("Skip (S)"));
    m_undo = new QPushButton(tr("Undo (Ctrl+Z)"));
    for (QPushButton *b : {m_skip, m_undo}) {
        b->setFocusPolicy(Qt::NoFocus);
        actions->addWidget(b);
    }
    actions->addStretch(1);
    connect(m_skip, &QPushButton::clicked, this, &LabelTab::skipShown);
    connect(m_undo, &QPushButton::clicked, this, &LabelTab::undoLast);
    m_keysHint = new QLabel(tr("Keys: 1…9 give a label, Enter takes the suggestion, S skips, Ctrl+Z or Backspace undoes."));
    m_keysHint->setWordWrap(true);
    m_keysHint->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(m_position);
    layout->addWidget(m_heldOutNote);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_suggestion);
    layout->addLayout(m_buttonRow);
    layout->addLayout(actions);
    layout->addWidget(m_keysHint);
    return page;
}

void LabelTab::newSession()
{
    LabelSessionSettings defaults;
    if (m_formOptions) {
        const TrainingOptions o = m_formOptions();
        defaults.bert_config_file = o.bert_config_file;
        defaults.vocab_file = o.vocab_file;
        defaults.init_checkpoint = o.init_checkpoint;
        defaults.do_lower_case = o.do_lower_case != "false";
    }
    LabelSessionDialog dialog(defaults, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    if (!createSession(dialog.folder(), dialog.settings(), &error))
        setStatus(error);
}

void LabelTab::chooseSession()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a labelling session (a folder with label_session.json)"), m_dir);
    if (!dir.isEmpty())
        openSession(dir);
}

bool LabelTab::createSession(const QString &dir, const LabelSessionSettings &settings, QString *error)
{
    try {
        std::filesystem::create_directories(dir.toStdString());
        LabelSessionSettings s = settings;
        s.pool_path = std::filesystem::absolute(s.pool_path).lexically_normal().string();
        writeLabelSession(labelSessionPath(dir.toStdString()), s);
    } catch (...) {
        if (error)
            *error = tr("Cannot create the session: %1").arg(currentErrorReport().logLine());
        return false;
    }
    openSession(dir);
    return true;
}

void LabelTab::openSession(const QString &dir)
{
    m_cycleJob.cancel();
    m_loaded = false;
    const quint64 generation = ++m_generation;
    setStatus(tr("Opening the session in %1: reading its texts and labels…").arg(QDir::toNativeSeparators(dir)));
    m_loadJob = runBackgroundJob<std::shared_ptr<Loaded>>(
        this,
        [dir](const JobControl &) {
            auto l = std::make_shared<Loaded>();
            l->dir = dir;
            const std::string d = dir.toStdString();
            l->settings = readLabelSession(labelSessionPath(d));
            std::filesystem::path pool(l->settings.pool_path);
            if (pool.is_relative())
                pool = std::filesystem::path(d) / pool;
            PoolReadOptions o;
            o.text_column = l->settings.text_column;
            o.email_body_only = l->settings.email_body_only;
            l->pool = readLabelPool(pool.string(), o);
            l->store = std::make_shared<LabelStore>(LabelStore::open(labelSessionLabelsPath(d)));
            l->curve = readCurve(labelSessionCurvePath(d));
            return l;
        },
        [this, generation](JobOutcome<std::shared_ptr<Loaded>> outcome) {
            if (generation != m_generation)
                return;
            if (!outcome.ok()) {
                setStatus(tr("Cannot open the session: %1").arg(outcome.error.logLine()));
                Q_EMIT sessionFailed(outcome.error.logLine());
                return;
            }
            showSession(**outcome.value);
        });
}

void LabelTab::showSession(Loaded &l)
{
    m_dir = l.dir;
    m_settings = std::move(l.settings);
    m_pool = std::move(l.pool);
    m_store = std::make_unique<LabelStore>(std::move(*l.store));
    m_curve = std::move(l.curve);
    auto texts = std::make_shared<std::vector<std::string>>();
    m_keyIndex.clear();
    m_heldOut.assign(m_pool.size(), false);
    m_labelled.assign(m_pool.size(), false);
    m_skipped.assign(m_pool.size(), false);
    for (size_t i = 0; i < m_pool.size(); ++i) {
        texts->push_back(m_pool[i].text);
        m_keyIndex[poolTextKey(m_pool[i])] = int64_t(i);
        m_heldOut[i] = isHeldOut(m_pool[i], m_settings.held_out_fraction);
    }
    m_poolTexts = texts;
    for (const PoolLabel &label : m_store->labels())
        if (const int64_t i = poolIndexOf(label); i >= 0)
            m_labelled[size_t(i)] = true;
    m_scores = PoolScores();
    m_cycle.reset();
    m_queue.clear();
    m_current = -1;
    m_shown = int64_t(m_store->labels().size());
    m_labelsAtCycleStart = -1;
    m_loaded = true;
    m_stack->setCurrentIndex(1);
    m_makeProject->setEnabled(true);
    rebuildLabelButtons();
    fillTable();
    updateCurve();
    setStatus(m_store->cutTail().empty() ? QString() : q(m_store->cutTail()));
    showNext();
    maybeStartCycle();
    setFocus();
    Q_EMIT sessionOpened(m_dir);
}

void LabelTab::rebuildLabelButtons()
{
    for (QPushButton *b : m_labelButtons)
        delete b;
    m_labelButtons.clear();
    for (size_t i = 0; i < m_settings.label_names.size(); ++i) {
        const QString name = q(m_settings.label_names[i]);
        auto *b = new QPushButton(i < 9 ? tr("%1  %2").arg(i + 1).arg(name) : name);
        b->setObjectName(QStringLiteral("labelButton%1").arg(i));
        b->setFocusPolicy(Qt::NoFocus);
        b->setCheckable(true);
        b->setMinimumHeight(36);
        // The suggested label: checked, and marked so that it stands out in every style.
        b->setStyleSheet(QStringLiteral("QPushButton:checked { font-weight: bold; border: 2px solid palette(highlight); "
                                        "border-radius: 3px; background: palette(midlight); }"));
        connect(b, &QPushButton::clicked, this, [this, i] { labelShown(int(i)); });
        m_buttonRow->addWidget(b);
        m_labelButtons.push_back(b);
    }
}

const std::vector<PoolLabel> &LabelTab::labels() const
{
    static const std::vector<PoolLabel> none;
    return m_store ? m_store->labels() : none;
}

bool LabelTab::currentIsHeldOut() const { return m_current >= 0 && m_heldOut[size_t(m_current)]; }

QString LabelTab::shownText() const { return m_current >= 0 ? q(m_pool[size_t(m_current)].text) : QString(); }

QString LabelTab::suggestedLabel() const
{
    if (m_current < 0 || currentIsHeldOut() || m_scores.n != int64_t(m_pool.size()) || m_scores.num_labels < 2)
        return {};
    const float *row = m_scores.probabilities.data() + m_current * m_scores.num_labels;
    const int64_t best = std::max_element(row, row + m_scores.num_labels) - row;
    return best < int64_t(m_settings.label_names.size()) ? q(m_settings.label_names[size_t(best)]) : QString();
}

QString LabelTab::suggestionText() const
{
    const QString label = suggestedLabel();
    if (label.isEmpty())
        return {};
    const float *row = m_scores.probabilities.data() + m_current * m_scores.num_labels;
    const float p = *std::max_element(row, row + m_scores.num_labels);
    return tr("Model suggests: %1 %2 %").arg(label).arg(qRound(100 * p));
}

void LabelTab::showCurrent()
{
    const bool have = m_current >= 0;
    // Shown without the blank lines around it (an e-mail body often starts with some); saved whole.
    m_text->setPlainText(have ? shownText().trimmed()
                              : tr("Every text of the pool is labelled or skipped. Reopen the session to see the "
                                   "skipped ones again, or make a project from these labels."));
    m_heldOutNote->setVisible(currentIsHeldOut());
    const QString suggested = suggestedLabel();
    for (size_t i = 0; i < m_labelButtons.size(); ++i) {
        m_labelButtons[i]->setEnabled(have);
        m_labelButtons[i]->setChecked(!suggested.isEmpty() && q(m_settings.label_names[i]) == suggested);
    }
    m_skip->setEnabled(have);
    m_undo->setEnabled(m_store && !m_store->labels().empty());
    if (!have)
        m_suggestion->setText(QString());
    else if (currentIsHeldOut() || m_scores.n > 0)
        m_suggestion->setText(suggestionText());
    else
        m_suggestion->setText(tr("No model yet: it learns after the first %1.").arg(counted(m_settings.batch_size)));
    if (have) {
        const PoolText &t = m_pool[size_t(m_current)];
        const QString source = t.file.empty() ? QString() : t.line > 0 ? tr(" · %1:%2").arg(q(t.file)).arg(t.line) : tr(" · %1").arg(q(t.file));
        m_position->setText(tr("Text %1 of %2%3").arg(m_current + 1).arg(QLocale().toString(qlonglong(m_pool.size())), source));
    } else {
        m_position->setText(QString());
    }
    updateCounts();
}

void LabelTab::updateCounts()
{
    const qlonglong n = qlonglong(labels().size());
    m_sessionLine->setText(tr("%1 — %2 labelled of %3 texts (%4 kept aside to measure the model); retrains after every "
                              "%6, %5.")
                               .arg(QDir::toNativeSeparators(m_dir), QLocale().toString(n),
                                    QLocale().toString(qlonglong(m_pool.size())), QLocale().toString(heldOutLabels()),
                                    strategyWords(m_settings.strategy), counted(m_settings.batch_size, tr("label"), tr("labels"))));
    m_pages->setTabText(1, tr("Labelled (%1)").arg(QLocale().toString(n)));
}

void LabelTab::setStatus(const QString &text)
{
    m_status = text;
    m_statusLine->setText(text);
}

QString LabelTab::statusText() const { return m_status; }

QString LabelTab::curveNote() const { return m_plot->note(); }

void LabelTab::keyPressEvent(QKeyEvent *event)
{
    if (!m_loaded || m_pages->currentIndex() != 0) {
        QWidget::keyPressEvent(event);
        return;
    }
    const int key = event->key();
    if (event->matches(QKeySequence::Undo) || (key == Qt::Key_Backspace && event->modifiers() == Qt::NoModifier))
        undoLast();
    else if (key >= Qt::Key_1 && key <= Qt::Key_9 && !(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier)))
        labelShown(key - Qt::Key_1);
    else if (key == Qt::Key_S && event->modifiers() == Qt::NoModifier)
        skipShown();
    else if (key == Qt::Key_Return || key == Qt::Key_Enter)
        takeSuggestion();
    else
        QWidget::keyPressEvent(event);
}

void LabelTab::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_loaded)
        setFocus();
}

bool LabelTab::labelShown(int index)
{
    if (m_current < 0 || index < 0 || index >= int(m_settings.label_names.size()))
        return false;
    const PoolText &t = m_pool[size_t(m_current)];
    PoolLabel label;
    label.text = t.text;
    label.label = m_settings.label_names[size_t(index)];
    label.file = t.file;
    label.line = t.line;
    label.suggested_label = suggestedLabel().toStdString();
    try {
        m_store->append(label);
    } catch (...) {
        setStatus(tr("The label was not saved: %1. Press S to skip this text.").arg(currentErrorReport().logLine()));
        m_statusIsLabelError = true;
        return false;
    }
    if (m_statusIsLabelError)
        setStatus(QString());
    m_statusIsLabelError = false;
    m_labelled[size_t(m_current)] = true;
    appendTableRow(m_store->labels().back());
    showNext();
    Q_EMIT labelSaved(qlonglong(m_store->labels().size()));
    maybeStartCycle();
    return true;
}

bool LabelTab::takeSuggestion()
{
    const QString s = suggestedLabel();
    for (size_t i = 0; i < m_settings.label_names.size(); ++i)
        if (!s.isEmpty() && q(m_settings.label_names[i]) == s)
            return labelShown(int(i));
    return false;
}

void LabelTab::skipShown()
{
    if (m_current < 0)
        return;
    if (m_statusIsLabelError)
        setStatus(QString());
    m_statusIsLabelError = false;
    m_skipped[size_t(m_current)] = true;
    showNext();
}

bool LabelTab::undoLast()
{
    if (!m_store || m_store->labels().empty())
        return false;
    PoolLabel undone;
    try {
        undone = m_store->undoLast();
    } catch (...) {
        setStatus(tr("Cannot undo: %1").arg(currentErrorReport().logLine()));
        return false;
    }
    m_table->removeRow(m_table->rowCount() - 1); // the last label given is the last row
    const int64_t i = poolIndexOf(undone);
    if (i >= 0) {
        m_labelled[size_t(i)] = false;
        if (m_current >= 0)
            m_queue.push_front(m_current);
        m_current = i;
    }
    setStatus(tr("Undone: “%1” for the text shown again.").arg(q(undone.label)));
    showCurrent();
    return true;
}

} // namespace wb
