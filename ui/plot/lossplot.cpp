// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/plot/lossplot.h"

#include "ui/form/fieldhelp.h"
#include "ui/plot/plotaxes.h"
#include "ui/plot/plotcontrolrow.h"
#include "ui/plot/plotoverlays.h"
#include "ui/plot/smoothing.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

constexpr int kReplotIntervalMs = 40;       // ≤ 25 Hz: one coalescing single-shot timer (QCustomPlot::rpQueuedReplot)
constexpr double kLogFloor = 1e-8;          // values ≤ 0 are clamped to this on a log axis
constexpr double kDefaultSmoothing = 0.6;   // TensorBoard's default
const QColor kLossColour(31, 119, 180);
const QColor kEvalLossColour(255, 127, 14);
const QColor kEvalAccColour(44, 160, 44);
const QColor kLrColour(148, 103, 189);

struct Points
{
    std::vector<double> step, wall, value;
    void clear() { step.clear(); wall.clear(); value.clear(); }
    int size() const { return int(step.size()); }
};

} // namespace

struct LossPlot::Private
{
    LossPlot *q = nullptr;
    QCustomPlot *plot = nullptr;
    QCPAxisRect *lossRect = nullptr;
    QCPAxisRect *lrRect = nullptr;
    QCPGraph *raw = nullptr, *smoothed = nullptr, *evalLoss = nullptr, *evalAcc = nullptr, *evalNsp = nullptr;
    bool pretraining = false; ///< setPretraining(): the curves are named for masked-LM pretraining
    QString runName;          ///< setRunName(): the live run's legend prefix ("" none)
    /// `text` as the live run's legend entry: "<run>: <text>" when the run has a name.
    QString named(const QString &text) const { return runName.isEmpty() ? text : runName + QStringLiteral(": ") + text; }
    QCPGraph *lr = nullptr, *planned = nullptr;
    QCPGraph *baselineKey = nullptr;          // legend entry of the baseline line (no data)
    QCPItemStraightLine *baselineLine = nullptr;
    double baseline = std::numeric_limits<double>::quiet_NaN();
    // The bag-of-words baseline (prepare_report.json): a second dashed line, its own legend entry.
    QCPGraph *bowKey = nullptr;
    QCPItemStraightLine *bowLine = nullptr;
    double bow = std::numeric_limits<double>::quiet_NaN();
    Points trainData, lrData, evalLossData, evalAccData, evalNspData;
    std::vector<double> plannedStep, plannedLr;
    std::unique_ptr<PlotOverlays> overlays;
    TensorBoardSmoother smoother{kDefaultSmoothing};
    double smoothing = kDefaultSmoothing;
    XAxis xMode = XAxis::Step;
    bool logScale = false;
    bool follow = true; // auto-rescale until the user zooms or pans
    double t0 = std::numeric_limits<double>::quiet_NaN();
    QTimer replotTimer;
    int replots = 0;
    QSlider *slider = nullptr;
    QDoubleSpinBox *smoothingBox = nullptr;
    QComboBox *xCombo = nullptr;
    QCheckBox *logBox = nullptr;

    double key(double step, double wall, double runT0) const
    {
        switch (xMode) {
        case XAxis::Step: return step;
        case XAxis::RelativeTime: return wall - runT0;
        case XAxis::WallTime: return wall;
        }
        return step;
    }
    double lossValue(double v) const { return logScale && std::isfinite(v) && v <= 0 ? kLogFloor : v; }

    static QVector<QCPGraphData> build(const std::vector<double> &steps, const std::vector<double> &walls,
                                       const std::vector<double> &values, const Private &p, double runT0,
                                       bool lossAxis)
    {
        QVector<QCPGraphData> out;
        out.reserve(int(values.size()));
        for (std::size_t i = 0; i < values.size(); ++i)
            out.append(QCPGraphData(p.key(steps[i], walls.empty() ? 0 : walls[i], runT0),
                                    lossAxis ? p.lossValue(values[i]) : values[i]));
        return out;
    }

    void rebuild()
    {
        const std::vector<double> sm = smoothTensorBoard(trainData.value, smoothing);
        raw->data()->set(build(trainData.step, trainData.wall, trainData.value, *this, t0, true), true);
        smoothed->data()->set(build(trainData.step, trainData.wall, sm, *this, t0, true), true);
        evalLoss->data()->set(build(evalLossData.step, evalLossData.wall, evalLossData.value, *this, t0, true), true);
        evalAcc->data()->set(build(evalAccData.step, evalAccData.wall, evalAccData.value, *this, t0, false), true);
        evalNsp->data()->set(build(evalNspData.step, evalNspData.wall, evalNspData.value, *this, t0, false), true);
        lr->data()->set(build(lrData.step, lrData.wall, lrData.value, *this, t0, false), true);
        planned->data()->set(build(plannedStep, {}, plannedLr, *this, t0, false), true);
        planned->setVisible(xMode == XAxis::Step);
        smoother = TensorBoardSmoother(smoothing);
        for (double v : trainData.value)
            smoother.add(v);
        overlays->rebuild(mapping());
        scheduleReplot();
    }

    PlotMapping mapping() const
    {
        return {[this](double step, double wall, double runT0) { return key(step, wall, runT0); },
                [this](double v) { return lossValue(v); }, smoothing};
    }

    /// Recomputes only the smoothed curves, in place: keys and raw series stay, so a new
    /// smoothing weight costs one EMA pass per series over the existing graph data instead of
    /// rebuilding every container (10^6 points: a few milliseconds plus the replot).
    void resmooth()
    {
        const PlotMapping m = mapping();
        if (!resmoothGraph(smoothed, trainData.value, m, &smoother) || !overlays->resmooth(m))
            rebuild(); // also restarts the live smoother
        scheduleReplot();
    }

    void scheduleReplot()
    {
        if (!replotTimer.isActive())
            replotTimer.start();
    }

    void replot()
    {
        if (follow)
            plotaxes::fit(plot, lossRect, lrRect, evalAccData.value.empty() && !overlays->hasAccuracy() ? 1.0 : 1.05);
        plot->replot(QCustomPlot::rpQueuedReplot);
    }

    static QString tr(const char *s) { return LossPlot::tr(s); }

    const Points *points(Series s) const
    {
        switch (s) {
        case Series::TrainLoss:
        case Series::SmoothedTrainLoss: return &trainData;
        case Series::EvalLoss: return &evalLossData;
        case Series::EvalAccuracy: return &evalAccData;
        case Series::EvalNextSentenceAccuracy: return &evalNspData;
        case Series::LearningRate: return &lrData;
        case Series::PlannedLearningRate: return nullptr;
        }
        return nullptr;
    }

    void showTooltip(QMouseEvent *event);
};

LossPlot::LossPlot(QWidget *parent) : QWidget(parent), d(std::make_unique<Private>())
{
    d->q = this;
    buildCanvas();
    buildAxes();
    buildGraphs();
    buildBaseline();
    buildLegend();
    connectCanvas();
    QWidget *smoothingGroup = buildSmoothingControls();
    QWidget *viewGroup = buildViewControls();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *row = new PlotControlRow(smoothingGroup, viewGroup, this);
    row->setObjectName(QStringLiteral("plotControls"));
    layout->addWidget(row);
    layout->addWidget(d->plot, 1);
    plotaxes::applyXAxisMode(d->lossRect, d->lrRect, d->xMode);
    d->scheduleReplot();
}


void LossPlot::buildCanvas()
{
    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("lossPlotCanvas"));
    d->plot->setMinimumHeight(260);
    d->plot->setNoAntialiasingOnDrag(true);
    d->plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    d->lossRect = d->plot->axisRect();
    d->lrRect = new QCPAxisRect(d->plot, true);
    d->plot->plotLayout()->addElement(1, 0, d->lrRect);
    d->plot->plotLayout()->setRowStretchFactor(1, 0.4);
    auto *group = new QCPMarginGroup(d->plot);
    d->lossRect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    d->lrRect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    d->lrRect->axis(QCPAxis::atRight)->setVisible(true);
    d->lrRect->axis(QCPAxis::atRight)->setTickLabels(false);
    d->lrRect->axis(QCPAxis::atRight)->setTicks(false);

}

void LossPlot::buildAxes()
{
    QCPAxis *x = d->lossRect->axis(QCPAxis::atBottom);
    QCPAxis *y = d->lossRect->axis(QCPAxis::atLeft);
    QCPAxis *y2 = d->lossRect->axis(QCPAxis::atRight);
    QCPAxis *lrX = d->lrRect->axis(QCPAxis::atBottom);
    QCPAxis *lrY = d->lrRect->axis(QCPAxis::atLeft);
    y->setLabel(tr("loss"));
    y2->setVisible(true);
    y2->setLabel(tr("eval accuracy"));
    y2->setRange(0, 1);
    lrY->setLabel(tr("learning rate"));
    plotaxes::useLearningRateTicks(lrY);
    lrX->setLabel(tr("step"));
    d->lossRect->setRangeZoomAxes(x, y);
    d->lossRect->setRangeDragAxes(x, y);
    d->lrRect->setRangeZoomAxes(lrX, lrY);
    d->lrRect->setRangeDragAxes(lrX, lrY);
    connect(x, QOverload<const QCPRange &>::of(&QCPAxis::rangeChanged), lrX,
            QOverload<const QCPRange &>::of(&QCPAxis::setRange));
    connect(lrX, QOverload<const QCPRange &>::of(&QCPAxis::rangeChanged), x,
            QOverload<const QCPRange &>::of(&QCPAxis::setRange));

}

void LossPlot::buildGraphs()
{
    QCPAxis *x = d->lossRect->axis(QCPAxis::atBottom);
    QCPAxis *y = d->lossRect->axis(QCPAxis::atLeft);
    QCPAxis *y2 = d->lossRect->axis(QCPAxis::atRight);
    QCPAxis *lrX = d->lrRect->axis(QCPAxis::atBottom);
    QCPAxis *lrY = d->lrRect->axis(QCPAxis::atLeft);
    d->raw = d->plot->addGraph(x, y);
    d->raw->setName(tr("train loss (raw)"));
    QColor faint = kLossColour;
    faint.setAlpha(70);
    d->raw->setPen(QPen(faint, 1));
    d->smoothed = d->plot->addGraph(x, y);
    d->smoothed->setName(tr("train loss (smoothed)"));
    d->smoothed->setPen(QPen(kLossColour, 2));
    d->evalLoss = d->plot->addGraph(x, y);
    d->evalLoss->setName(tr("eval loss"));
    d->evalLoss->setPen(QPen(kEvalLossColour, 1, Qt::DotLine));
    d->evalLoss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kEvalLossColour, 1.5), QBrush(Qt::white), 8));
    d->evalAcc = d->plot->addGraph(x, y2);
    d->evalAcc->setName(tr("eval accuracy"));
    d->evalAcc->setPen(QPen(kEvalAccColour, 1, Qt::DotLine));
    d->evalAcc->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kEvalAccColour, 1.5), QBrush(kEvalAccColour), 9));
    d->evalNsp = d->plot->addGraph(x, y2); // pretraining with next-sentence pairs only
    d->evalNsp->setName(tr("eval next-sentence accuracy"));
    d->evalNsp->setPen(QPen(kEvalAccColour.darker(150), 1, Qt::DashDotLine));
    d->evalNsp->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(kEvalAccColour.darker(150), 1.5), QBrush(Qt::white), 8));
    d->evalNsp->removeFromLegend();
    d->planned = d->plot->addGraph(lrX, lrY);
    d->planned->setName(tr("planned learning rate"));
    d->planned->setPen(QPen(Qt::gray, 1.5, Qt::DashLine));
    d->lr = d->plot->addGraph(lrX, lrY);
    d->lr->setName(tr("learning rate"));
    d->lr->setPen(QPen(kLrColour, 2));
}

void LossPlot::buildBaseline()
{
    QCPAxis *x = d->lossRect->axis(QCPAxis::atBottom);
    QCPAxis *y = d->lossRect->axis(QCPAxis::atLeft);
    QCPAxis *y2 = d->lossRect->axis(QCPAxis::atRight);
    d->overlays = std::make_unique<PlotOverlays>(d->plot, x, y, y2);
    QPen baselinePen(QColor(110, 110, 110), 1.5, Qt::DashLine);
    d->baselineKey = d->plot->addGraph(x, y2);
    d->baselineKey->setPen(baselinePen);
    d->baselineKey->setName(tr("majority-class baseline"));
    d->baselineKey->removeFromLegend();
    d->baselineLine = new QCPItemStraightLine(d->plot);
    d->baselineLine->setClipAxisRect(d->lossRect);
    d->baselineLine->setPen(baselinePen);
    for (QCPItemPosition *p : {d->baselineLine->point1, d->baselineLine->point2})
        p->setAxes(x, y2);
    d->baselineLine->setVisible(false);
    // The bag-of-words baseline: dashed too, in a colour of its own (no series uses it).
    const QPen bowPen(QColor(150, 80, 160), 1.5, Qt::DashLine);
    d->bowKey = d->plot->addGraph(x, y2);
    d->bowKey->setPen(bowPen);
    d->bowKey->setName(tr("bag of words"));
    d->bowKey->removeFromLegend();
    d->bowLine = new QCPItemStraightLine(d->plot);
    d->bowLine->setClipAxisRect(d->lossRect);
    d->bowLine->setPen(bowPen);
    for (QCPItemPosition *p : {d->bowLine->point1, d->bowLine->point2})
        p->setAxes(x, y2);
    d->bowLine->setVisible(false);
}

void LossPlot::buildLegend()
{
    // The legend sits under the plots, off the data (the newest points are at the top right).
    d->plot->legend->setVisible(true);
    d->plot->legend->setBrush(Qt::NoBrush);
    d->plot->legend->setBorderPen(Qt::NoPen);
    d->plot->legend->setFont(font());
    d->plot->legend->setIconSize(18, 10);
    // Three entries a row, so the legend never sets the plot's minimum width (1024×700 screens).
    d->plot->legend->setWrap(3);
    d->plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    d->lossRect->insetLayout()->take(d->plot->legend);
    d->plot->plotLayout()->addElement(2, 0, d->plot->legend);
    d->plot->plotLayout()->setRowStretchFactor(2, 0.001);

}

void LossPlot::connectCanvas()
{
    d->replotTimer.setSingleShot(true);
    d->replotTimer.setInterval(kReplotIntervalMs);
    connect(&d->replotTimer, &QTimer::timeout, this, [this] { d->replot(); });
    connect(d->plot, &QCustomPlot::afterReplot, this, [this] { ++d->replots; });
    connect(d->plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *) { d->follow = false; });
    connect(d->plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent *) { d->follow = false; });
    connect(d->plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) { d->showTooltip(e); });
    connect(d->plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent *) { resetView(); });
    connect(d->plot, &QCustomPlot::legendClick, this, [this](QCPLegend *, QCPAbstractLegendItem *item, QMouseEvent *) {
        auto *pi = qobject_cast<QCPPlottableLegendItem *>(item);
        if (!pi)
            return;
        QCPAbstractPlottable *p = pi->plottable();
        p->setVisible(!p->visible());
        pi->setTextColor(p->visible() ? Qt::black : Qt::gray);
        d->scheduleReplot();
    });

}

QWidget *LossPlot::buildSmoothingControls()
{
    auto *smLabel = new QLabel(tr("Smoothing"), this);
    smLabel->setToolTip(fieldHelp(QStringLiteral("smoothing")).text);
    d->slider = new QSlider(Qt::Horizontal, this);
    d->slider->setObjectName(QStringLiteral("smoothingSlider"));
    d->slider->setRange(0, 999);
    d->slider->setValue(int(std::lround(kDefaultSmoothing * 1000)));
    d->slider->setToolTip(smLabel->toolTip());
    d->slider->setMinimumWidth(80); // never a stub
    d->slider->setMaximumWidth(180);
    d->smoothingBox = new QDoubleSpinBox(this);
    d->smoothingBox->setRange(0, 0.999);
    d->smoothingBox->setDecimals(3);
    d->smoothingBox->setSingleStep(0.01);
    // Applied on Enter or focus-out: applying each keystroke turned "0.95" into 0 on the "0".
    d->smoothingBox->setKeyboardTracking(false);
    d->smoothingBox->setValue(kDefaultSmoothing);
    connect(d->slider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 1000.0); });
    connect(d->smoothingBox, QOverload<double>::of(&QDoubleSpinBox::valueChanged), this,
            [this](double v) { setSmoothing(v); });
    auto *smoothingGroup = new QWidget;
    auto *controls = new QHBoxLayout(smoothingGroup);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(smLabel);
    controls->addWidget(d->slider);
    controls->addWidget(d->smoothingBox);
    controls->addStretch(1);
    return smoothingGroup;
}

QToolButton *LossPlot::buildExportButton()
{
    auto *exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(exportButton);
    auto saveImage = [this](const QString &filter, const QString &suffix) {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), QStringLiteral("loss.") + suffix, filter);
        QString error;
        if (!path.isEmpty() && !exportImage(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    };
    menu->addAction(tr("Plot as PNG…"), this, [=] { saveImage(tr("PNG image (*.png)"), QStringLiteral("png")); });
    menu->addAction(tr("Plot as PDF…"), this, [=] { saveImage(tr("PDF document (*.pdf)"), QStringLiteral("pdf")); });
    menu->addSeparator();
    const std::pair<QString, Series> csvs[] = {{tr("Train loss as CSV…"), Series::TrainLoss},
                                               {tr("Eval loss as CSV…"), Series::EvalLoss},
                                               {tr("Eval accuracy as CSV…"), Series::EvalAccuracy},
                                               {tr("Learning rate as CSV…"), Series::LearningRate}};
    for (const auto &[text, series] : csvs) {
        const Series s = series;
        menu->addAction(text, this, [this, s] {
            const QString path = QFileDialog::getSaveFileName(this, tr("Export data"), QStringLiteral("metrics.csv"),
                                                              tr("CSV (*.csv)"));
            QString error;
            if (!path.isEmpty() && !exportCsv(path, s, &error))
                QMessageBox::warning(this, tr("Export failed"), error);
        });
    }
    exportButton->setMenu(menu);
    return exportButton;
}

QWidget *LossPlot::buildViewControls()
{
    d->xCombo = new QComboBox(this);
    d->xCombo->addItems({tr("Step"), tr("Relative time"), tr("Wall time")});
    d->xCombo->setToolTip(tr("Horizontal axis: training step, time since the run started, or clock time"));
    connect(d->xCombo, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
            [this](int i) { setXAxis(XAxis(i)); });
    d->logBox = new QCheckBox(tr("Log scale"), this);
    d->logBox->setToolTip(tr("Logarithmic loss axis; shows late, small improvements (values ≤ 0 are clamped)"));
    connect(d->logBox, &QCheckBox::toggled, this, &LossPlot::setLogScale);
    auto *reset = new QToolButton(this);
    reset->setText(tr("Reset view"));
    reset->setToolTip(tr("Fit all data and follow new points again (also: double-click the plot). "
                         "Drag to pan, wheel to zoom."));
    connect(reset, &QToolButton::clicked, this, &LossPlot::resetView);
    QToolButton *exportButton = buildExportButton();
    auto *viewGroup = new QWidget;
    auto *controls = new QHBoxLayout(viewGroup);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(new QLabel(tr("X axis"), this));
    controls->addWidget(d->xCombo);
    controls->addWidget(d->logBox);
    controls->addStretch(1);
    controls->addWidget(reset);
    controls->addWidget(exportButton);
    return viewGroup;
}

LossPlot::~LossPlot() = default;

void LossPlot::Private::showTooltip(QMouseEvent *event)
{
    if (trainData.step.empty() || !lossRect->rect().contains(event->pos())) {
        if (!lrRect->rect().contains(event->pos()))
            return;
    }
    if (trainData.step.empty())
        return;
    const double k = lossRect->axis(QCPAxis::atBottom)->pixelToCoord(event->pos().x());
    auto begin = raw->data()->constBegin();
    auto it = raw->data()->findBegin(k, false);
    if (it == raw->data()->constEnd())
        return;
    auto next = it + 1;
    if (next != raw->data()->constEnd() && std::abs(next->key - k) < std::abs(it->key - k))
        it = next;
    const int i = int(it - begin);
    if (i < 0 || i >= trainData.size())
        return;
    const double smoothedValue = (smoothed->data()->constBegin() + i)->value;
    QString text = tr("step %1").arg(qint64(trainData.step[i]));
    if (!trainData.wall.empty())
        text += QStringLiteral("\n") + QDateTime::fromMSecsSinceEpoch(qint64(trainData.wall[i] * 1000)).toString(QStringLiteral("hh:mm:ss"))
                + tr(" (+%1 s)").arg(trainData.wall[i] - t0, 0, 'f', 1);
    text += tr("\nloss %1 (smoothed %2)").arg(trainData.value[i], 0, 'g', 5).arg(smoothedValue, 0, 'g', 5);
    if (i < lrData.size())
        text += tr("\nlearning rate %1").arg(lrData.value[i], 0, 'g', 4);
    QToolTip::showText(event->globalPosition().toPoint(), text, plot);
}

namespace {

/// The legend of a pretraining evaluation: the latest perplexity, exp(eval MLM loss), as the
/// run's eval_perplexity (docs/pretraining.md, "Metrics").
void showPretrainingEvaluation(QCPGraph *evalLoss, const EvalMetrics &m, const QString &runName)
{
    evalLoss->setName((runName.isEmpty() ? QString() : runName + QStringLiteral(": ")) + LossPlot::tr("eval MLM loss (perplexity %1)").arg(std::exp(m.eval_loss), 0, 'g', 4));
}

} // namespace

void LossPlot::clear()
{
    d->trainData.clear();
    d->lrData.clear();
    d->evalLossData.clear();
    d->evalAccData.clear();
    d->evalNspData.clear();
    d->evalNsp->removeFromLegend();
    d->t0 = std::numeric_limits<double>::quiet_NaN();
    d->follow = true;
    d->rebuild();
}

void LossPlot::setPlannedSchedule(const std::vector<double> &steps, const std::vector<double> &lr)
{
    d->plannedStep = steps;
    d->plannedLr = lr;
    d->planned->data()->set(Private::build(d->plannedStep, {}, d->plannedLr, *d, d->t0, false), true);
    d->scheduleReplot();
}

void LossPlot::addStep(const StepMetrics &m)
{
    if (std::isnan(d->t0))
        d->t0 = m.wall_time;
    const double step = double(m.step);
    d->trainData.step.push_back(step);
    d->trainData.wall.push_back(m.wall_time);
    d->trainData.value.push_back(m.loss);
    d->lrData.step.push_back(step);
    d->lrData.wall.push_back(m.wall_time);
    d->lrData.value.push_back(m.learning_rate);
    const double k = d->key(step, m.wall_time, d->t0);
    d->raw->addData(k, d->lossValue(m.loss));
    d->smoothed->addData(k, d->lossValue(d->smoother.add(m.loss)));
    d->lr->addData(k, m.learning_rate);
    d->scheduleReplot();
}

void LossPlot::addEvaluation(const EvalMetrics &m)
{
    if (std::isnan(d->t0))
        d->t0 = m.wall_time;
    const double step = double(m.step);
    const double k = d->key(step, m.wall_time, d->t0);
    d->evalLossData.step.push_back(step);
    d->evalLossData.wall.push_back(m.wall_time);
    d->evalLossData.value.push_back(m.eval_loss);
    d->evalLoss->addData(k, d->lossValue(m.eval_loss));
    if (!m.regression) {
        d->evalAccData.step.push_back(step);
        d->evalAccData.wall.push_back(m.wall_time);
        d->evalAccData.value.push_back(m.eval_accuracy);
        d->evalAcc->addData(k, m.eval_accuracy);
    }
    if (m.next_sentence) {
        if (d->evalNspData.value.empty())
            d->evalNsp->addToLegend();
        d->evalNspData.step.push_back(step);
        d->evalNspData.wall.push_back(m.wall_time);
        d->evalNspData.value.push_back(m.eval_nsp_accuracy);
        d->evalNsp->addData(k, m.eval_nsp_accuracy);
    }
    if (d->pretraining)
        showPretrainingEvaluation(d->evalLoss, m, d->runName);
    d->scheduleReplot();
}

void LossPlot::addComparisonRun(const RunHistory &run, const QColor &colour)
{
    d->overlays->add(run, colour);
    d->rebuild();
}

void LossPlot::removeComparisonRun(const QString &sourcePath)
{
    if (d->overlays->remove(sourcePath))
        d->scheduleReplot();
}

void LossPlot::clearComparisonRuns()
{
    d->overlays->clear();
    d->scheduleReplot();
}

int LossPlot::comparisonRunCount() const { return d->overlays->count(); }

void LossPlot::setAccuracyBaseline(double accuracy)
{
    const bool show = std::isfinite(accuracy);
    if (show == std::isfinite(d->baseline) && (!show || accuracy == d->baseline))
        return;
    d->baseline = accuracy;
    d->baselineLine->setVisible(show);
    if (show) {
        d->baselineLine->point1->setCoords(0, accuracy);
        d->baselineLine->point2->setCoords(1, accuracy);
        d->baselineKey->setName(tr("majority-class baseline (%1)").arg(accuracy, 0, 'f', 2));
        d->baselineKey->addToLegend();
    } else {
        d->baselineKey->removeFromLegend();
    }
    d->scheduleReplot();
}

double LossPlot::accuracyBaseline() const { return d->baseline; }

void LossPlot::setBagOfWordsBaseline(double accuracy)
{
    const bool show = std::isfinite(accuracy);
    if (show == std::isfinite(d->bow) && (!show || accuracy == d->bow))
        return;
    d->bow = accuracy;
    d->bowLine->setVisible(show);
    if (show) {
        d->bowLine->point1->setCoords(0, accuracy);
        d->bowLine->point2->setCoords(1, accuracy);
        d->bowKey->setName(tr("bag of words: %1").arg(accuracy, 0, 'f', 2));
        d->bowKey->addToLegend();
    } else {
        d->bowKey->removeFromLegend();
    }
    d->scheduleReplot();
}

double LossPlot::bagOfWordsBaseline() const { return d->bow; }

QString LossPlot::bagOfWordsBaselineLabel() const
{
    return std::isfinite(d->bow) && d->plot->legend->hasItemWithPlottable(d->bowKey) ? d->bowKey->name() : QString();
}

double LossPlot::smoothing() const { return d->smoothing; }

void LossPlot::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.999);
    if (std::abs(weight - d->smoothing) < 1e-9)
        return;
    d->smoothing = weight;
    const QSignalBlocker b1(d->slider), b2(d->smoothingBox);
    d->slider->setValue(int(std::lround(weight * 1000)));
    if (std::abs(d->smoothingBox->value() - weight) > 1e-9)
        d->smoothingBox->setValue(weight);
    d->resmooth();
    Q_EMIT smoothingChanged(weight);
}

LossPlot::XAxis LossPlot::xAxis() const { return d->xMode; }

void LossPlot::setXAxis(XAxis mode)
{
    if (mode == d->xMode)
        return;
    d->xMode = mode;
    const QSignalBlocker b(d->xCombo);
    d->xCombo->setCurrentIndex(int(mode));
    plotaxes::applyXAxisMode(d->lossRect, d->lrRect, d->xMode);
    d->follow = true;
    d->rebuild();
}

bool LossPlot::isLogScale() const { return d->logScale; }

void LossPlot::setLogScale(bool on)
{
    if (on == d->logScale)
        return;
    d->logScale = on;
    const QSignalBlocker b(d->logBox);
    d->logBox->setChecked(on);
    QCPAxis *y = d->lossRect->axis(QCPAxis::atLeft);
    y->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on)
        y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        y->setTicker(QSharedPointer<QCPAxisTicker>::create());
    d->follow = true;
    d->rebuild();
}

void LossPlot::resetView()
{
    d->follow = true;
    d->scheduleReplot();
}

int LossPlot::pointCount(Series s) const
{
    switch (s) {
    case Series::TrainLoss: return d->raw->dataCount();
    case Series::SmoothedTrainLoss: return d->smoothed->dataCount();
    case Series::EvalLoss: return d->evalLoss->dataCount();
    case Series::EvalAccuracy: return d->evalAcc->dataCount();
    case Series::EvalNextSentenceAccuracy: return d->evalNsp->dataCount();
    case Series::LearningRate: return d->lr->dataCount();
    case Series::PlannedLearningRate: return d->planned->dataCount();
    }
    return 0;
}

bool LossPlot::exportCsv(const QString &path, Series s, QString *error) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = tr("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    QByteArray out("wall_time,step,value\n");
    if (s == Series::PlannedLearningRate) {
        for (std::size_t i = 0; i < d->plannedStep.size(); ++i)
            out += ',' + QByteArray::number(qint64(d->plannedStep[i])) + ',' + QByteArray::number(d->plannedLr[i], 'g', 17) + '\n';
    } else {
        const Points *p = d->points(s);
        std::vector<double> values = p->value;
        if (s == Series::SmoothedTrainLoss)
            values = smoothTensorBoard(values, d->smoothing);
        for (int i = 0; i < p->size(); ++i)
            out += QByteArray::number(p->wall[i], 'f', 6) + ',' + QByteArray::number(qint64(p->step[i])) + ','
                   + QByteArray::number(values[i], 'g', 17) + '\n';
    }
    f.write(out);
    if (!f.commit()) {
        if (error)
            *error = tr("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool LossPlot::exportImage(const QString &path, QString *error)
{
    d->replot();
    const bool ok = path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive) ? d->plot->savePdf(path)
                                                                               : d->plot->savePng(path);
    if (!ok && error)
        *error = tr("%1: could not save the plot").arg(path);
    return ok;
}

int LossPlot::replotCount() const { return d->replots; }
bool LossPlot::isReplotPending() const { return d->replotTimer.isActive(); }
QCustomPlot *LossPlot::customPlot() const { return d->plot; }

} // namespace wb

namespace wb {

void LossPlot::setPretraining(bool on)
{
    d->pretraining = on;
    d->raw->setName(d->named(on ? tr("train MLM loss (raw)") : tr("train loss (raw)")));
    d->smoothed->setName(d->named(on ? tr("train MLM loss (smoothed)") : tr("train loss (smoothed)")));
    d->evalLoss->setName(d->named(on ? tr("eval MLM loss") : tr("eval loss")));
    d->evalAcc->setName(d->named(on ? tr("eval MLM accuracy (masked words)") : tr("eval accuracy")));
    d->evalNsp->setName(d->named(tr("eval next-sentence accuracy")));
    d->lossRect->axis(QCPAxis::atLeft)->setLabel(on ? tr("MLM loss") : tr("loss"));
    d->lossRect->axis(QCPAxis::atRight)->setLabel(on ? tr("MLM accuracy") : tr("eval accuracy"));
    d->scheduleReplot();
}

bool LossPlot::isPretraining() const { return d->pretraining; }

void LossPlot::setRunName(const QString &name)
{
    d->runName = name;
    setPretraining(d->pretraining); // names the live curves again
}

QString LossPlot::runName() const { return d->runName; }

QString LossPlot::seriesName(Series s) const
{
    switch (s) {
    case Series::TrainLoss: return d->raw->name();
    case Series::SmoothedTrainLoss: return d->smoothed->name();
    case Series::EvalLoss: return d->evalLoss->name();
    case Series::EvalAccuracy: return d->evalAcc->name();
    case Series::EvalNextSentenceAccuracy: return d->evalNsp->name();
    case Series::LearningRate: return d->lr->name();
    case Series::PlannedLearningRate: return d->planned->name();
    }
    return {};
}

} // namespace wb
