// SPDX-License-Identifier: Apache-2.0
// LossPlot's data: training steps, evaluations, comparison runs, baselines, smoothing, the x
// axis and scale, CSV/PNG export, the pretraining and run-name legend (the widget: lossplot.cpp).
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/plot/lossplotprivate.h"

namespace wb {

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
    if (d->baseline.set(accuracy, tr("majority-class baseline (%1)").arg(accuracy, 0, 'f', 2)))
        d->scheduleReplot();
}

double LossPlot::accuracyBaseline() const { return d->baseline.value; }

void LossPlot::setBagOfWordsBaseline(double accuracy)
{
    if (d->bow.set(accuracy, tr("bag of words: %1").arg(accuracy, 0, 'f', 2)))
        d->scheduleReplot();
}

double LossPlot::bagOfWordsBaseline() const { return d->bow.value; }

QString LossPlot::bagOfWordsBaselineLabel() const
{
    return std::isfinite(d->bow.value) && d->plot->legend->hasItemWithPlottable(d->bow.key) ? d->bow.key->name() : QString();
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
    const QCPGraph *g = d->graph(s);
    return g ? g->dataCount() : 0;
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
    const QCPGraph *g = d->graph(s);
    return g ? g->name() : QString();
}

} // namespace wb

