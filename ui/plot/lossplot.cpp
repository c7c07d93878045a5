// SPDX-License-Identifier: Apache-2.0
// LossPlot: the canvas, axes, graphs, legend and controls (its data: lossplotseries.cpp).
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/plot/lossplotprivate.h"

namespace wb {

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
    d->notice = new QLabel(this);
    d->notice->setObjectName(QStringLiteral("plotNotice"));
    d->notice->setWordWrap(true);
    d->notice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->notice->setStyleSheet(QStringLiteral("QLabel { background: #fff4ce; padding: 4px; }"));
    d->notice->hide();
    layout->addWidget(d->notice);
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
    const auto [x, y, y2, lrX, lrY] = d->axes();
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
    const auto [x, y, y2, lrX, lrY] = d->axes();
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
    const Private::Axes a = d->axes();
    d->overlays = std::make_unique<PlotOverlays>(d->plot, a.x, a.y, a.y2);
    d->baseline.build(d->plot, d->lossRect, a.x, a.y2, QPen(QColor(110, 110, 110), 1.5, Qt::DashLine),
                      tr("majority-class baseline"));
    // The bag-of-words baseline: dashed too, in a colour of its own (no series uses it).
    d->bow.build(d->plot, d->lossRect, a.x, a.y2, QPen(QColor(150, 80, 160), 1.5, Qt::DashLine), tr("bag of words"));
}

void LossPlot::buildLegend()
{
    // The legend sits under the plots, off the data (the newest points are at the top right).
    d->plot->legend->setVisible(true);
    d->plot->legend->setBrush(Qt::NoBrush);
    d->plot->legend->setBorderPen(Qt::NoPen);
    d->plot->legend->setFont(font());
    d->plot->legend->setIconSize(18, 10);
    // Three entries a row at first; fitLegendColumns then fits the columns to the widest entry,
    // so the legend never sets the plot's minimum width nor cuts an entry (1024×700 screens).
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
    connect(d->plot, &QCustomPlot::beforeReplot, this, [this] { d->fitLegendColumns(); }); // also on resize
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

void LossPlot::setNotice(const QString &text)
{
    d->notice->setText(text);
    d->notice->setVisible(!text.isEmpty());
}

QString LossPlot::notice() const { return d->notice->text(); }

} // namespace wb
