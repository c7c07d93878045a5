// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/embeddingview.h"

#include "core/formats/evalexamples.h"
#include "ui/common/backgroundjob.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSlider>
#include <QToolTip>
#include <QVBoxLayout>

#include <filesystem>
#include <limits>

namespace wb {

namespace {

// Label colours (colour-blind friendly, Okabe & Ito 2008), repeated beyond eight labels.
const QColor kLabelColours[] = {QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115), QColor(204, 121, 167),
                                QColor(86, 180, 233), QColor(213, 94, 0), QColor(240, 228, 66), QColor(0, 0, 0)};

// A disc as a pixmap: QCustomPlot blits a pixmap scatter, several times faster than it draws
// an ellipse per point (bench_embeddingview; docs/benchmarks.md).
constexpr int kDiscDiameter = 6; ///< pixels

QPixmap discPixmap(const QColor &colour, int diameter = kDiscDiameter)
{
    QPixmap pix(diameter, diameter);
    pix.fill(Qt::transparent);
    QPainter painter(&pix);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawEllipse(QRectF(0, 0, diameter, diameter));
    return pix;
}

/// One step read and projected off the GUI thread.
struct LoadedStep
{
    EmbeddingSnapshot snapshot;
    Projection2D projection;
    std::vector<QString> texts, labelNames;
};

} // namespace

EmbeddingView::EmbeddingView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("embeddingPlot"));
    m_plot->setMinimumSize(300, 250);
    m_plot->xAxis->setLabel(tr("first principal axis"));
    m_plot->yAxis->setLabel(tr("second principal axis"));
    m_plot->legend->setVisible(true);
    // Many points: no antialiasing of scatters, and the graphs' own adaptive sampling.
    m_plot->setNotAntialiasedElements(QCP::aeScatters | QCP::aePlottables);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // The mistakes' rings on a layer above the points, so that no point hides one; a ring, not a
    // cross, so that the mistaken point's own colour (its true label) shows inside it.
    m_plot->addLayer(QStringLiteral("mistakes"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    m_mistakes = m_plot->addGraph();
    m_mistakes->setLayer(QStringLiteral("mistakes"));
    m_mistakes->setName(tr("mistakes (ringed)"));
    m_mistakes->setLineStyle(QCPGraph::lsNone);
    m_mistakes->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.5), Qt::NoBrush, kDiscDiameter + 6));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("embeddingStep"));
    m_slider->setEnabled(false);
    m_summary = new QLabel(tr("No embeddings yet: each evaluation saves the eval examples' pooled [CLS] vectors."), this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_slider);
    layout->addWidget(m_summary);
    connect(m_slider, &QSlider::valueChanged, this, [this](int i) {
        if (i >= 0 && size_t(i) < m_steps.size())
            loadStep(m_steps[size_t(i)]);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &EmbeddingView::mouseMoved);
    connect(m_plot, &QCustomPlot::mousePress, this, &EmbeddingView::mouseClicked);
}

void EmbeddingView::setModelDir(const QString &modelDir, bool saved)
{
    m_modelDir = modelDir;
    m_steps = modelDir.isEmpty() ? std::vector<int64_t>{} : embeddingSteps(modelDir.toStdString());
    m_slider->setEnabled(m_steps.size() > 1);
    if (m_steps.empty()) { // another run or none: nothing of the last one stays
        ++m_generation;
        for (auto &[id, graph] : m_labelGraphs)
            m_plot->removeGraph(graph);
        m_labelGraphs.clear();
        m_mistakes->data()->clear();
        m_points.clear();
        m_rowTexts.clear();
        m_rowTrue.clear();
        m_rowPredicted.clear();
        m_summary->setText(
            saved || modelDir.isEmpty()
                ? tr("No embeddings yet: each evaluation saves the eval examples' pooled [CLS] vectors.")
                : tr("No embeddings: this run does not save them (Save embeddings is off), "
                     "so that a big eval set does not fill the model directory. Turn it on under Hyperparameters "
                     "to see the eval examples here at each evaluation."));
        m_plot->replot();
        return;
    }
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, int(m_steps.size()) - 1);
    m_slider->setValue(int(m_steps.size()) - 1);
    loadStep(m_steps.back());
}

void EmbeddingView::loadStep(int64_t step)
{
    const quint64 generation = ++m_generation;
    const std::string modelDir = m_modelDir.toStdString();
    runBackgroundJob<LoadedStep>(
        this,
        [modelDir, step](const JobControl &) {
            LoadedStep l;
            l.snapshot = readEmbeddings(embeddingsPath(modelDir, step));
            l.projection = pcaProject2D(l.snapshot.pooled, l.snapshot.size(), l.snapshot.hidden);
            const std::string examplesPath = evalExamplesPath(modelDir);
            if (std::filesystem::exists(examplesPath)) {
                std::map<int64_t, QString> byIndex;
                for (const EvalExample &e : readEvalExamples(examplesPath)) {
                    byIndex[e.index] = QString::fromStdString(e.text);
                    if (e.true_label_id >= 0 && e.true_label_id < 100000) {
                        if (l.labelNames.size() <= size_t(e.true_label_id))
                            l.labelNames.resize(size_t(e.true_label_id) + 1);
                        l.labelNames[size_t(e.true_label_id)] = QString::fromStdString(e.true_label);
                    }
                }
                for (const int64_t index : l.snapshot.example_index)
                    l.texts.push_back(byIndex.count(index) ? byIndex[index] : QString());
            }
            return l;
        },
        [this, generation](JobOutcome<LoadedStep> out) {
            if (generation != m_generation)
                return; // a later step was asked for meanwhile
            if (!out.ok()) {
                m_summary->setText(tr("Cannot show the embeddings: %1").arg(out.error.message));
                return;
            }
            showPoints(out.value->snapshot, out.value->projection, out.value->texts, out.value->labelNames);
        });
}

void EmbeddingView::showPoints(const EmbeddingSnapshot &s, const Projection2D &p, const std::vector<QString> &texts,
                               const std::vector<QString> &labelNames)
{
    for (auto &[id, graph] : m_labelGraphs)
        m_plot->removeGraph(graph);
    m_labelGraphs.clear();
    std::map<int64_t, QVector<double>> xs, ys;
    QVector<double> mx, my;
    int64_t mistakes = 0;
    for (size_t i = 0; i < p.points.size() && i < size_t(s.size()); ++i) {
        xs[s.label_ids[i]].push_back(p.points[i][0]);
        ys[s.label_ids[i]].push_back(p.points[i][1]);
        if (s.label_ids[i] != s.predictions[i]) {
            mx.push_back(p.points[i][0]);
            my.push_back(p.points[i][1]);
            ++mistakes;
        }
    }
    for (auto &[id, x] : xs) {
        QCPGraph *g = m_plot->addGraph();
        const QColor colour = kLabelColours[size_t(id) % std::size(kLabelColours)];
        g->setName(id >= 0 && size_t(id) < labelNames.size() && !labelNames[size_t(id)].isEmpty()
                       ? labelNames[size_t(id)]
                       : tr("label %1").arg(id));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(discPixmap(colour)));
        g->setPen(QPen(colour)); // the legend's line, and the colour tests and readers see
        g->setAdaptiveSampling(true);
        g->setData(x, ys[id]);
        m_labelGraphs[id] = g;
    }
    m_mistakes->setData(mx, my, true);
    m_mistakes->setAdaptiveSampling(false); // every mistake drawn (sampling would thin out close crosses)
    m_plot->rescaleAxes();
    // A margin of 5 % on each side: points on the outermost rows are drawn whole, not cut by the frame.
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        const QCPRange r = axis->range();
        const double margin = r.size() > 0 ? 0.05 * r.size() : 1.0;
        axis->setRange(r.lower - margin, r.upper + margin);
    }
    m_points = p.points;
    m_rowTexts = texts;
    m_rowTrue.assign(s.label_ids.begin(), s.label_ids.begin() + std::ptrdiff_t(std::min(s.label_ids.size(), p.points.size())));
    m_rowPredicted.assign(s.predictions.begin(),
                          s.predictions.begin() + std::ptrdiff_t(std::min(s.predictions.size(), p.points.size())));
    m_labelNames = labelNames;
    m_summary->setText(tr("Step %1: %2 eval examples, %3 mistakes (ringed); PCA of the pooled [CLS] vectors "
                          "(variance %4 and %5 along the axes). Hover for the labels and the text, click to try it.")
                           .arg(s.step).arg(s.size()).arg(mistakes)
                           .arg(p.variance[0], 0, 'g', 3).arg(p.variance[1], 0, 'g', 3));
    m_plot->replot();
}

QCPGraph *EmbeddingView::labelGraph(int64_t labelId) const
{
    const auto it = m_labelGraphs.find(labelId);
    return it == m_labelGraphs.end() ? nullptr : it->second;
}

QString EmbeddingView::summaryText() const { return m_summary->text(); }

int EmbeddingView::rowAt(const QPointF &pixel, double radius) const
{
    int best = -1;
    double bestD = radius * radius;
    for (size_t i = 0; i < m_points.size(); ++i) {
        const double px = m_plot->xAxis->coordToPixel(m_points[i][0]) - pixel.x();
        const double py = m_plot->yAxis->coordToPixel(m_points[i][1]) - pixel.y();
        const double d = px * px + py * py;
        if (d <= bestD) {
            bestD = d;
            best = int(i);
        }
    }
    return best;
}

QString EmbeddingView::labelText(int64_t id) const
{
    if (id >= 0 && size_t(id) < m_labelNames.size() && !m_labelNames[size_t(id)].isEmpty())
        return m_labelNames[size_t(id)];
    return tr("label %1").arg(id);
}

QString EmbeddingView::hoverText(int row) const
{
    if (row < 0 || size_t(row) >= m_points.size())
        return {};
    QString text;
    if (size_t(row) < m_rowTrue.size() && size_t(row) < m_rowPredicted.size()) {
        const int64_t truth = m_rowTrue[size_t(row)], predicted = m_rowPredicted[size_t(row)];
        text = truth == predicted ? tr("true %1, predicted %2 (right)").arg(labelText(truth), labelText(predicted))
                                  : tr("true %1, predicted %2 (a mistake)").arg(labelText(truth), labelText(predicted));
    }
    if (size_t(row) < m_rowTexts.size() && !m_rowTexts[size_t(row)].isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + m_rowTexts[size_t(row)].left(400);
    return text;
}

void EmbeddingView::mouseMoved(QMouseEvent *event)
{
    const QString text = hoverText(rowAt(event->position()));
    if (!text.isEmpty())
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    else
        QToolTip::hideText();
}

void EmbeddingView::mouseClicked(QMouseEvent *event)
{
    const int row = rowAt(event->position());
    if (row >= 0 && size_t(row) < m_rowTexts.size())
        Q_EMIT exampleChosen(m_rowTexts[size_t(row)]);
}

} // namespace wb
