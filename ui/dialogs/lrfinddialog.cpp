// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/dialogs/lrfinddialog.h"
#include "ui/common/qtext.h"

#include "core/config/diagnostics.h"
#include "core/config/schedule.h"
#include "core/engine/preparedrun.h"
#include "core/util/errortext.h"
#include "ui/form/configurationform.h"
#include "ui/form/fieldhelp.h"
#include "ui/form/newwidgets.h"
#include "ui/form/numberspinbox.h"
#include "ui/form/wheelguard.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleValidator>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

/// Carries each step of the range test from the worker thread to the dialog (a queued
/// signal). Owned by the job through a shared_ptr, so the job never touches the dialog.
class LrFindRelay : public QObject
{
    Q_OBJECT
Q_SIGNALS:
    void stepped(const wb::LrFindResult &result);
};

namespace {

constexpr int kReplotIntervalMs = 40; // at most 25 replots a second
constexpr int kMinSteps = 2, kMaxSteps = 100000; // the step field's range (a loaded value beyond it is shown as is)
constexpr int kRateDecimals = 1000; // digits a rate field takes after the point: a 17-digit rate stays editable
const QColor kRawColour(70, 110, 170, 90);
const QColor kSmoothedColour(31, 90, 180);
const QColor kSuggestionColour(200, 50, 30);
const QColor kMinOver10Colour(30, 130, 60);


/// Log-axis ticks as the dialog writes learning rates: 1e-6, 1e-5, … (no exponent padding).
class LrTicker : public QCPAxisTickerLog
{
protected:
    QString getTickLabel(double tick, const QLocale &, QChar, int) override { return LrFindDialog::rateText(tick, 0); }
};

/// The range test's outcome on the job thread: either the pre-flight errors or a result.
struct LrFindOutcome
{
    std::optional<Diagnostics> invalid;
    LrFindResult result;
};

QCPItemStraightLine *verticalLine(QCustomPlot *plot, const QColor &colour, Qt::PenStyle style, const QString &name)
{
    auto *line = new QCPItemStraightLine(plot);
    line->setObjectName(name);
    line->setPen(QPen(colour, 1.8, style));
    line->setVisible(false);
    return line;
}

QCPItemText *markerLabel(QCustomPlot *plot, const QColor &colour, double yRatio, const QString &name)
{
    auto *label = new QCPItemText(plot);
    label->setObjectName(name);
    label->setColor(colour);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(1, yRatio);
    label->setPadding(QMargins(4, 1, 4, 1));
    label->setBrush(QBrush(QColor(255, 255, 255, 220)));
    label->setVisible(false);
    return label;
}

/// Shows the vertical line `name` at `x` with its label: right of the line, or left of it when
/// `leftOfLine` or near the right edge, so that the label stays inside.
void placeMarker(QCustomPlot *plot, const QString &name, double x, const QString &text, bool leftOfLine = false)
{
    auto *line = plot->findChild<QCPItemStraightLine *>(name);
    auto *label = plot->findChild<QCPItemText *>(name + QStringLiteral("Label"));
    const bool on = std::isfinite(x) && x > 0;
    line->setVisible(on);
    label->setVisible(on);
    if (!on)
        return;
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    label->position->setCoords(x, label->position->coords().y());
    label->setText(text);
    const QCPRange r = plot->xAxis->range();
    const double at = r.lower > 0 && r.upper > r.lower ? std::log(x / r.lower) / std::log(r.upper / r.lower) : 0;
    label->setPositionAlignment((leftOfLine ? at > 0.3 : at > 0.7) ? Qt::AlignRight | Qt::AlignTop : Qt::AlignLeft | Qt::AlignTop);
}

} // namespace

LrFindDialog::LrFindDialog(ConfigurationForm *form, QWidget *parent) : QDialog(parent), m_form(form)
{
    qRegisterMetaType<wb::LrFindResult>();
    setObjectName(QStringLiteral("lrFindDialog"));
    setWindowTitle(tr("Find Learning Rate"));
    auto *layout = new QVBoxLayout(this);

    auto *note = new QLabel(
        tr("The range test trains a throwaway copy of the model for a few steps while the learning rate rises "
           "exponentially, and records the loss of each step (Smith 2017; fastai's lr_find). Along the longest "
           "descent of the smoothed loss (fastai's \"valley\"), the learning rate is large enough to make quick "
           "progress but not yet so large that training becomes unstable, so that point is a good rate to start "
           "from; the minimum / 10 is a more cautious choice. A flat or noisy curve gives no suggestion."));
    note->setWordWrap(true);
    note->setObjectName(QStringLiteral("lrFindNote"));
    layout->addWidget(note);

    layout->addLayout(buildRangeRow());
    buildErrorLine();
    layout->addWidget(m_error);
    buildPlot();
    layout->addWidget(m_plot, 1);
    buildProgressLines();
    layout->addWidget(m_progress);
    layout->addWidget(m_summary);
    QDialogButtonBox *buttons = buildButtons();
    layout->addWidget(buttons);

    m_replot = new QTimer(this);
    m_replot->setSingleShot(true);
    m_replot->setInterval(kReplotIntervalMs);
    connect(m_replot, &QTimer::timeout, this, [this] { m_plot->replot(QCustomPlot::rpQueuedReplot); });
    connect(m_run, &QPushButton::clicked, this, &LrFindDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &LrFindDialog::stop);
    connect(m_useSuggestion, &QPushButton::clicked, this, [this] {
        if (m_result)
            useRate(m_result->suggestion);
    });
    connect(m_useMin, &QPushButton::clicked, this, [this] {
        if (m_result)
            useRate(m_result->min_over_10);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(760, 620);
    showRange(m_form->options());
    updateButtons();
    guardWheel(this);
}


QHBoxLayout *LrFindDialog::buildRangeRow()
{
    auto *range = new QHBoxLayout;
    m_steps = new NumberSpinBox(NumberSpinBox::Kind::Integer);
    m_steps->setObjectName(QStringLiteral("lr_find_steps"));
    m_steps->setRange(kMinSteps, kMaxSteps);
    m_steps->setToolTip(fieldHelp(QStringLiteral("lr_find_steps")).text);
    const auto rateEdit = [this](const char *flag) {
        auto *edit = new QLineEdit;
        edit->setObjectName(QLatin1String(flag));
        auto *validator = new QDoubleValidator(0, 100, kRateDecimals, edit);
        validator->setNotation(QDoubleValidator::ScientificNotation);
        validator->setLocale(QLocale::c());
        edit->setValidator(validator);
        edit->setMaximumWidth(90);
        edit->setToolTip(fieldHelp(QLatin1String(flag)).text);
        return edit;
    };
    m_start = rateEdit("lr_find_start");
    m_end = rateEdit("lr_find_end");
    range->addWidget(new QLabel(tr("Up to")));
    range->addWidget(m_steps);
    range->addWidget(new QLabel(tr("steps, learning rate from")));
    range->addWidget(m_start);
    range->addWidget(new QLabel(tr("to")));
    range->addWidget(m_end);
    range->addStretch(1);
    m_run = new QPushButton(tr("Run"));
    m_run->setObjectName(QStringLiteral("runLrFind"));
    m_stop = new QPushButton(tr("Stop"));
    m_stop->setObjectName(QStringLiteral("stopLrFind"));
    m_stop->setToolTip(tr("Stop after the current step; what was measured is kept and saved"));
    range->addWidget(m_run);
    range->addWidget(m_stop);
    return range;
}

void LrFindDialog::buildErrorLine()
{
    m_error = newSelectableLabel(QStringLiteral("lrFindError"), Qt::PlainText);
    m_error->setStyleSheet(QStringLiteral("color:#b00000"));
    m_error->hide();
}

void LrFindDialog::buildPlot()
{
    m_plot = new QCustomPlot;
    m_plot->setObjectName(QStringLiteral("lrFindPlot"));
    m_plot->setMinimumSize(520, 300);
    QCPAxis *x = m_plot->xAxis, *y = m_plot->yAxis;
    x->setScaleType(QCPAxis::stLogarithmic);
    x->setTicker(QSharedPointer<LrTicker>::create());
    x->setNumberFormat(QStringLiteral("g")); // the ticker's "1e-6" as written, not typeset as a power
    x->setLabel(tr("learning rate (log scale)"));
    y->setLabel(tr("training loss"));
    QCPGraph *raw = m_plot->addGraph(x, y);
    raw->setObjectName(QStringLiteral("rawLoss"));
    raw->setName(tr("loss of each step"));
    raw->setLineStyle(QCPGraph::lsNone);
    raw->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(kRawColour), QBrush(kRawColour), 4));
    QCPGraph *smoothed = m_plot->addGraph(x, y);
    smoothed->setObjectName(QStringLiteral("smoothedLoss"));
    smoothed->setName(tr("smoothed loss (β = %1)").arg(kLrFindBeta));
    smoothed->setPen(QPen(kSmoothedColour, 2.2));
    QCPGraph *suggestionKey = m_plot->addGraph(x, y);
    suggestionKey->setName(tr("suggestion: valley"));
    suggestionKey->setPen(QPen(kSuggestionColour, 1.8));
    QCPGraph *minKey = m_plot->addGraph(x, y);
    minKey->setName(tr("minimum / 10"));
    minKey->setPen(QPen(kMinOver10Colour, 1.8, Qt::DashLine));
    verticalLine(m_plot, kSuggestionColour, Qt::SolidLine, QStringLiteral("suggestionMarker"));
    markerLabel(m_plot, kSuggestionColour, 0.03, QStringLiteral("suggestionMarkerLabel"));
    verticalLine(m_plot, kMinOver10Colour, Qt::DashLine, QStringLiteral("minOver10Marker"));
    markerLabel(m_plot, kMinOver10Colour, 0.14, QStringLiteral("minOver10MarkerLabel"));
    buildPlotLegend();
}

void LrFindDialog::buildPlotLegend()
{
    // The legend sits under the plot, off the data.
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(Qt::NoBrush);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setFont(font());
    m_plot->legend->setWrap(2);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
}

void LrFindDialog::buildProgressLines()
{
    m_progress = new QLabel;
    m_progress->setObjectName(QStringLiteral("lrFindProgress"));
    m_summary = newSelectableLabel(QStringLiteral("lrFindSummary"));
    m_summary->setMinimumWidth(200);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // a long model_dir path is clipped, not widening the dialog
}

QDialogButtonBox *LrFindDialog::buildButtons()
{
    auto *buttons = new QDialogButtonBox;
    m_useSuggestion = buttons->addButton(tr("Use this"), QDialogButtonBox::ActionRole);
    m_useSuggestion->setObjectName(QStringLiteral("useSuggestion"));
    m_useSuggestion->setToolTip(tr("Put the suggested learning rate into the form's Learning rate field"));
    m_useMin = buttons->addButton(tr("Use minimum / 10"), QDialogButtonBox::ActionRole);
    m_useMin->setObjectName(QStringLiteral("useMinOver10"));
    m_useMin->setToolTip(tr("Put the more cautious rate (the minimum of the smoothed loss / 10) into the form"));
    buttons->addButton(QDialogButtonBox::Close);
    return buttons;
}

LrFindDialog::~LrFindDialog() { m_job.cancel(); }

void LrFindDialog::begin()
{
    if (isRunning())
        return;
    const TrainingOptions o = m_form->options();
    showRange(o);
    // A saved result is shown (or, when it cannot be read, why not: Run replaces it).
    const QString saved = q(lrFindPath(o.model_dir));
    if (!o.model_dir.empty() && QFileInfo::exists(saved)) {
        showSaved(saved);
        return;
    }
    start();
}

void LrFindDialog::showRange(const TrainingOptions &o)
{
    // The values as given (a rate in its shortest round-trip text, not 'g', 6's rounding).
    m_steps->setRange(kMinSteps, kMaxSteps);
    m_steps->widenTo(o.lr_find_steps);
    m_steps->setValue(o.lr_find_steps);
    m_start->setText(QString::number(o.lr_find_start, 'g', QLocale::FloatingPointShortest));
    m_end->setText(QString::number(o.lr_find_end, 'g', QLocale::FloatingPointShortest));
}

TrainingOptions LrFindDialog::runOptions() const
{
    TrainingOptions o = m_form->options();
    o.mode = "train_and_eval";
    o.lr_find_steps = m_steps->value();
    bool ok = false;
    const double start = QLocale::c().toDouble(m_start->text().trimmed(), &ok);
    o.lr_find_start = ok ? start : std::numeric_limits<double>::quiet_NaN();
    const double end = QLocale::c().toDouble(m_end->text().trimmed(), &ok);
    o.lr_find_end = ok ? end : std::numeric_limits<double>::quiet_NaN();
    return o;
}

bool LrFindDialog::start()
{
    if (isRunning())
        return false;
    const TrainingOptions o = runOptions();
    m_facts = runFactsFor(o, Schedule{}); // its start (a small run_config.json at most)
    m_result.reset();
    m_totalSteps = o.lr_find_steps;
    m_error->hide();
    m_error->clear();
    m_summary->setText(tr("When it ends, the curve is saved as %1; nothing else in the model directory changes.")
                           .arg(QDir(q(o.model_dir)).filePath(QStringLiteral("lr_find.json")).toHtmlEscaped()));
    m_progress->setText(tr("Checking the configuration…"));
    for (int i = 0; i < m_plot->graphCount(); ++i)
        m_plot->graph(i)->data()->clear();
    placeMarker(m_plot, QStringLiteral("suggestionMarker"), 0, QString());
    placeMarker(m_plot, QStringLiteral("minOver10Marker"), 0, QString());
    m_plot->xAxis->setRange(o.lr_find_start > 0 ? o.lr_find_start : 1e-7, o.lr_find_end > 0 ? o.lr_find_end : 1);
    m_plot->yAxis->setRange(0, 1);
    scheduleReplot();

    if (m_relay)
        m_relay->disconnect(this);
    m_relay = std::shared_ptr<LrFindRelay>(new LrFindRelay, [](LrFindRelay *r) { r->deleteLater(); });
    connect(m_relay.get(), &LrFindRelay::stepped, this, &LrFindDialog::showStep);
    m_running = true;
    updateButtons();
    std::shared_ptr<LrFindRelay> relay = m_relay;
    m_job = runBackgroundJob<LrFindOutcome>(
        this,
        [o, relay](const JobControl &control) {
            LrFindOutcome out;
            // The one pre-flight check, with lr_find's scope (as `bert-workbench-cli lr_find`):
            // no evaluation data or learning rate needed, the run in model_dir left alone.
            PreparedRun prepared = prepareRun(o, RunPurpose::LrFind);
            if (!prepared.ok()) {
                out.invalid = std::move(prepared.validation.diagnostics);
                return out;
            }
            TrainingObserver quiet;
            out.result = findLearningRate(prepared, quiet, *control.stopToken(),
                                          [&relay](const LrFindResult &r) { Q_EMIT relay->stepped(r); });
            return out;
        },
        [this](JobOutcome<LrFindOutcome> outcome) {
            m_running = false;
            if (!outcome.ok()) {
                const bool noStep = outcome.cancelled;
                showError(noStep ? tr("Stopped before the first step; nothing was measured.")
                                 : tr("The range test failed: %1").arg(outcome.error.message),
                          noStep ? QString() : outcome.error.hint);
            } else if (outcome.value->invalid) {
                const FormValidationText text = formValidationText(*outcome.value->invalid);
                m_form->highlightFields(text.fields);
                showError(text.errors, text.hints);
            } else {
                showResult(outcome.value->result, false);
            }
            updateButtons();
            Q_EMIT rangeTestFinished();
        });
    return true;
}

void LrFindDialog::stop()
{
    if (!isRunning())
        return;
    m_job.cancel();
    m_progress->setText(tr("Stopping after this step…"));
    m_stop->setEnabled(false);
}

void LrFindDialog::reject()
{
    stop(); // a test nobody watches is not worth its compute; what it measured is still saved
    QDialog::reject();
}

void LrFindDialog::showError(const QString &text, const QString &hints)
{
    m_error->setText(hints.isEmpty() ? text : text + QStringLiteral("\n") + tr("How to fix:\n") + hints);
    m_error->show();
    m_progress->setText(tr("Nothing was run."));
    m_summary->clear();
}

void LrFindDialog::showStep(const LrFindResult &r)
{
    if (!m_running || r.steps.empty())
        return;
    showResult(r, true);
    Q_EMIT stepShown(int(r.steps.back()));
}

void LrFindDialog::showResult(const LrFindResult &r, bool running)
{
    const auto vec = [](const std::vector<double> &v, size_t n) { return QVector<double>(v.begin(), v.begin() + qsizetype(n)); };
    const size_t n = std::min({r.learning_rates.size(), r.losses.size(), r.smoothed.size()});
    const QVector<double> xs = vec(r.learning_rates, n);
    m_plot->graph(0)->setData(xs, vec(r.losses, n), true);
    m_plot->graph(1)->setData(xs, vec(r.smoothed, n), true);

    // y: the smoothed curve in full and the raw points near it; a blown-up last loss does
    // not flatten the curve.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t k = 0; k < n; ++k)
        if (std::isfinite(r.smoothed[k])) {
            lo = std::min(lo, r.smoothed[k]);
            hi = std::max(hi, r.smoothed[k]);
        }
    if (std::isfinite(lo)) {
        const double cap = hi + (hi - lo) * 0.5;
        for (size_t k = 0; k < n; ++k)
            if (std::isfinite(r.losses[k]) && r.losses[k] <= cap) {
                lo = std::min(lo, r.losses[k]);
                hi = std::max(hi, r.losses[k]);
            }
        const double pad = std::max((hi - lo) * 0.08, 1e-3);
        m_plot->yAxis->setRange(lo - pad, hi + pad);
    }
    if (!r.learning_rates.empty()) {
        const QCPRange xr = m_plot->xAxis->range();
        m_plot->xAxis->setRange(std::min(xr.lower, r.learning_rates.front()), std::max(xr.upper, r.learning_rates.back()));
    }

    const int64_t steps = int64_t(r.steps.size());
    const double lastLr = r.learning_rates.empty() ? 0 : r.learning_rates.back();
    const double lastLoss = r.losses.empty() ? 0 : r.losses.back();
    const QString loss = std::isfinite(lastLoss) ? QString::number(lastLoss, 'f', 2) : tr("not a number");
    if (running) {
        m_progress->setText(tr("step %1 of %2, lr %3, loss %4").arg(steps).arg(m_totalSteps).arg(rateText(lastLr), loss));
        scheduleReplot();
        return;
    }

    m_result = r;
    m_error->hide();
    if (r.diverged)
        m_progress->setText(tr("stopped: the loss exploded at lr %1 (step %2 of %3)").arg(rateText(lastLr)).arg(steps).arg(m_totalSteps));
    else if (m_totalSteps > 0 && steps < m_totalSteps)
        m_progress->setText(tr("stopped after step %1 of %2, lr %3, loss %4").arg(steps).arg(m_totalSteps).arg(rateText(lastLr), loss));
    else
        m_progress->setText(tr("finished: %1 steps, lr %2 to %3").arg(steps).arg(rateText(r.learning_rates.front()), rateText(lastLr)));
    placeMarker(m_plot, QStringLiteral("suggestionMarker"), r.suggestion,
                r.suggestion > 0 ? tr("suggested %1").arg(rateText(r.suggestion)) : QString());
    placeMarker(m_plot, QStringLiteral("minOver10Marker"), r.min_over_10,
                r.min_over_10 > 0 ? tr("min / 10: %1").arg(rateText(r.min_over_10)) : QString(),
                r.min_over_10 < r.suggestion);
    // The same sentences as the CLI's lr_find (core/engine/lrfind.h), on the facts of the run tested.
    const QString said = q(lrFindSummary(r, m_facts)).toHtmlEscaped();
    QString summary = r.verdict != "ok" ? QStringLiteral("<span style='color:#a06000'>") + said + QStringLiteral("</span>")
                                        : said;
    if (!r.path.empty())
        summary += QStringLiteral("<br>") + tr("Saved as %1").arg(q(r.path).toHtmlEscaped());
    else if (m_totalSteps > 0 && steps < m_totalSteps && !r.diverged)
        summary += QStringLiteral("<br>") + tr("Stopped early, so not saved: the model directory keeps the result of the "
                                               "earlier test.");
    m_summary->setText(summary);
    scheduleReplot();
}

bool LrFindDialog::showSaved(const QString &path)
{
    std::optional<LrFindResult> saved;
    try {
        saved = readLrFindJson(path.toStdString()); // core/advice/lrfindanalysis.h: the writer's twin
    } catch (...) {
        const ErrorText e = describeCurrentException(path.toStdString());
        showError(tr("The saved result cannot be shown: %1").arg(q(e.line())), q(e.hint));
        return false;
    }
    if (!saved)
        return false;
    LrFindResult r = std::move(*saved);
    analyzeLrFind(r); // the suggestions of the curve as this version finds them
    m_facts = runFactsFor(m_form->options(), Schedule{});
    m_totalSteps = int64_t(r.steps.size());
    showResult(r, false);
    m_summary->setText(tr("Shown: the saved result of an earlier test. Press Run to test again.") + QStringLiteral("<br>")
                       + m_summary->text());
    updateButtons();
    return true;
}

void LrFindDialog::useRate(double lr)
{
    const double rounded = roundedRate(lr);
    if (!m_form->setValue(QStringLiteral("learning_rate"), rateText(lr)))
        return;
    m_progress->setText(tr("Learning rate set to %1 in the form.").arg(rateText(rounded)));
    Q_EMIT learningRateChosen(rounded);
}

void LrFindDialog::updateButtons()
{
    const bool running = isRunning();
    m_run->setEnabled(!running);
    m_run->setText(m_result ? tr("Run again") : tr("Run"));
    m_stop->setEnabled(running);
    m_steps->setEnabled(!running);
    m_start->setEnabled(!running);
    m_end->setEnabled(!running);
    const bool have = !running && m_result && m_result->suggestion > 0;
    const bool haveMin = have && m_result->min_over_10 > 0;
    m_useSuggestion->setEnabled(have);
    m_useMin->setEnabled(haveMin);
    // A rate on a button only when there is one to use: no "Use this: 0" (issue 44, item 11).
    m_useSuggestion->setText(have ? tr("Use this: %1").arg(rateText(m_result->suggestion)) : tr("Use this"));
    m_useMin->setText(haveMin ? tr("Use min / 10: %1").arg(rateText(m_result->min_over_10)) : tr("Use minimum / 10"));
}

void LrFindDialog::scheduleReplot()
{
    if (!m_replot->isActive())
        m_replot->start();
}

QString LrFindDialog::validationText() const { return m_error->isHidden() ? QString() : m_error->text(); }
QString LrFindDialog::progressText() const { return m_progress->text(); }
QString LrFindDialog::summaryText() const { return m_summary->text(); }

QString LrFindDialog::rateText(double lr, int digits)
{
    if (!std::isfinite(lr))
        return tr("not a number");
    if (lr == 0)
        return QStringLiteral("0");
    QString s = QString::number(lr, 'e', digits); // "3.2e-04", "1e+00"
    static const QRegularExpression exponent(QStringLiteral("e([+-])0*(\\d)"));
    s.replace(exponent, QStringLiteral("e\\1\\2"));
    s.replace(QStringLiteral("e+"), QStringLiteral("e"));
    if (s.endsWith(QStringLiteral("e0")))
        s.chop(2); // 1e0 → 1
    return s;
}

double LrFindDialog::roundedRate(double lr) { return QLocale::c().toDouble(rateText(lr)); }

} // namespace wb

#include "lrfinddialog.moc"
