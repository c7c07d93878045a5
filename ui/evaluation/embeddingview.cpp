// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/embeddingview.h"

#include "core/formats/evalexamples.h"
#include "ui/common/backgroundjob.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSlider>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
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
    /// Multi-label runs: each row's true and predicted label sets (eval_examples.jsonl's).
    bool multiLabel = false;
    std::vector<std::vector<int64_t>> trueSets, predictedSets;
};

/// Names label ids from a multi-label line's (id, name) pairs; num_labels from its probabilities.
void nameMultiLabels(const EvalExample &e, std::vector<QString> &names)
{
    if (names.size() < e.probabilities.size())
        names.resize(e.probabilities.size());
    for (const auto &[ids, labels] : {std::pair{&e.true_label_ids, &e.true_labels},
                                      std::pair{&e.predicted_label_ids, &e.predicted_labels}})
        for (size_t k = 0; k < ids->size() && k < labels->size(); ++k)
            if ((*ids)[k] >= 0 && (*ids)[k] < 100000) {
                if (names.size() <= size_t((*ids)[k]))
                    names.resize(size_t((*ids)[k]) + 1);
                names[size_t((*ids)[k])] = QString::fromStdString((*labels)[k]);
            }
}

/// Reads eval_examples.jsonl into `l`: each row's text, the label names and (multi-label) sets.
void readExamplesInto(const std::string &path, LoadedStep &l)
{
    std::map<int64_t, const EvalExample *> byIndex;
    const std::vector<EvalExample> examples = readEvalExamples(path);
    for (const EvalExample &e : examples) {
        byIndex[e.index] = &e;
        if (e.multi_label) {
            l.multiLabel = true;
            nameMultiLabels(e, l.labelNames);
        } else if (e.true_label_id >= 0 && e.true_label_id < 100000) {
            if (l.labelNames.size() <= size_t(e.true_label_id))
                l.labelNames.resize(size_t(e.true_label_id) + 1);
            l.labelNames[size_t(e.true_label_id)] = QString::fromStdString(e.true_label);
        }
    }
    for (const int64_t index : l.snapshot.example_index) {
        const auto it = byIndex.find(index);
        l.texts.push_back(it != byIndex.end() ? QString::fromStdString(it->second->text) : QString());
        if (l.multiLabel) {
            l.trueSets.push_back(it != byIndex.end() ? it->second->true_label_ids : std::vector<int64_t>{});
            l.predictedSets.push_back(it != byIndex.end() ? it->second->predicted_label_ids : std::vector<int64_t>{});
        }
    }
}

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
    m_labelBox = new QComboBox(this);
    m_labelBox->setObjectName(QStringLiteral("embeddingLabel"));
    m_labelBox->setToolTip(tr("A multi-label run: colour the examples by whether they have this label; the "
                              "mistakes for it (predicted at 0.5) are ringed"));
    m_labelBox->setVisible(false);
    connect(m_labelBox, &QComboBox::activated, this,
            [this](int index) { setColourLabel(m_labelBox->itemData(index).toLongLong()); });
    layout->addWidget(m_labelBox, 0, Qt::AlignLeft);
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
        m_multiLabel = false;
        m_rowTrueSets.clear();
        m_rowPredictedSets.clear();
        m_labelBox->setVisible(false);
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
            if (std::filesystem::exists(examplesPath))
                readExamplesInto(examplesPath, l);
            return l;
        },
        [this, generation](JobOutcome<LoadedStep> out) {
            if (generation != m_generation)
                return; // a later step was asked for meanwhile
            if (!out.ok()) {
                m_summary->setText(tr("Cannot show the embeddings: %1").arg(out.error.message));
                return;
            }
            const LoadedStep &l = *out.value;
            if (l.multiLabel)
                showMultiLabelPoints(l.snapshot, l.projection, l.texts, l.labelNames, l.trueSets, l.predictedSets);
            else
                showPoints(l.snapshot, l.projection, l.texts, l.labelNames);
        });
}

int64_t EmbeddingView::drawGroups(const std::vector<int64_t> &group, const std::vector<bool> &mistake,
                                  const std::map<int64_t, std::pair<QString, QColor>> &looks)
{
    for (auto &[id, graph] : m_labelGraphs)
        m_plot->removeGraph(graph);
    m_labelGraphs.clear();
    std::map<int64_t, QVector<double>> xs, ys;
    QVector<double> mx, my;
    int64_t mistakes = 0;
    for (size_t i = 0; i < m_points.size() && i < group.size(); ++i) {
        xs[group[i]].push_back(m_points[i][0]);
        ys[group[i]].push_back(m_points[i][1]);
        if (i < mistake.size() && mistake[i]) {
            mx.push_back(m_points[i][0]);
            my.push_back(m_points[i][1]);
            ++mistakes;
        }
    }
    for (auto &[id, x] : xs) {
        QCPGraph *g = m_plot->addGraph();
        const auto look = looks.find(id);
        const QColor colour = look != looks.end() ? look->second.second : kLabelColours[size_t(id) % std::size(kLabelColours)];
        g->setName(look != looks.end() ? look->second.first : labelText(id));
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
    m_plot->replot();
    return mistakes;
}

void EmbeddingView::keepRows(const EmbeddingSnapshot &s, const Projection2D &p, const std::vector<QString> &texts,
                             const std::vector<QString> &labelNames)
{
    const size_t n = std::min(p.points.size(), size_t(s.size()));
    m_points.assign(p.points.begin(), p.points.begin() + std::ptrdiff_t(n));
    m_rowTexts = texts;
    m_rowTrue.assign(s.label_ids.begin(), s.label_ids.begin() + std::ptrdiff_t(std::min(s.label_ids.size(), n)));
    m_rowPredicted.assign(s.predictions.begin(), s.predictions.begin() + std::ptrdiff_t(std::min(s.predictions.size(), n)));
    m_labelNames = labelNames;
    m_step = s.step;
    m_variance = p.variance;
}

void EmbeddingView::showPoints(const EmbeddingSnapshot &s, const Projection2D &p, const std::vector<QString> &texts,
                               const std::vector<QString> &labelNames)
{
    m_multiLabel = false;
    m_rowTrueSets.clear();
    m_rowPredictedSets.clear();
    m_labelBox->setVisible(false);
    keepRows(s, p, texts, labelNames);
    std::vector<bool> mistake(m_rowTrue.size());
    for (size_t i = 0; i < m_rowTrue.size() && i < m_rowPredicted.size(); ++i)
        mistake[i] = m_rowTrue[i] != m_rowPredicted[i];
    const int64_t mistakes = drawGroups(m_rowTrue, mistake, {});
    m_summary->setText(tr("Step %1: %2 eval examples, %3 mistakes (ringed); PCA of the pooled [CLS] vectors "
                          "(variance %4 and %5 along the axes). Hover for the labels and the text, click to try it.")
                           .arg(s.step).arg(s.size()).arg(mistakes)
                           .arg(p.variance[0], 0, 'g', 3).arg(p.variance[1], 0, 'g', 3));
}

void EmbeddingView::showMultiLabelPoints(const EmbeddingSnapshot &s, const Projection2D &p,
                                         const std::vector<QString> &texts, const std::vector<QString> &labelNames,
                                         const std::vector<std::vector<int64_t>> &trueSets,
                                         const std::vector<std::vector<int64_t>> &predictedSets)
{
    m_multiLabel = true;
    keepRows(s, p, texts, labelNames);
    m_rowTrueSets = trueSets;
    m_rowPredictedSets = predictedSets;
    {
        const QSignalBlocker block(m_labelBox);
        m_labelBox->clear();
        for (size_t k = 0; k < labelNames.size(); ++k)
            m_labelBox->addItem(tr("Colour by: %1").arg(labelText(int64_t(k))), qlonglong(k));
    }
    m_labelBox->setVisible(true);
    setColourLabel(m_colourLabel >= 0 && size_t(m_colourLabel) < labelNames.size() ? m_colourLabel : 0);
}

void EmbeddingView::setColourLabel(int64_t labelId)
{
    m_colourLabel = labelId;
    const int index = m_labelBox->findData(qlonglong(labelId));
    if (index >= 0) {
        const QSignalBlocker block(m_labelBox);
        m_labelBox->setCurrentIndex(index);
    }
    if (m_multiLabel)
        drawMultiLabel();
}

void EmbeddingView::drawMultiLabel()
{
    const auto has = [this](const std::vector<std::vector<int64_t>> &sets, size_t row) {
        return row < sets.size() && std::find(sets[row].begin(), sets[row].end(), m_colourLabel) != sets[row].end();
    };
    std::vector<int64_t> group(m_points.size());
    std::vector<bool> mistake(m_points.size());
    int64_t having = 0;
    for (size_t i = 0; i < m_points.size(); ++i) {
        group[i] = has(m_rowTrueSets, i) ? 1 : 0;
        mistake[i] = has(m_rowTrueSets, i) != has(m_rowPredictedSets, i);
        having += group[i];
    }
    const QString name = labelText(m_colourLabel);
    const int64_t mistakes = drawGroups(group, mistake,
                                        {{1, {tr("has %1").arg(name), kLabelColours[0]}},
                                         {0, {tr("does not have %1").arg(name), QColor(190, 190, 190)}}});
    m_summary->setText(tr("Step %1: %2 eval examples coloured by %3: %4 have it, %5 mistakes for it (ringed: predicted "
                          "at 0.5 otherwise); PCA of the pooled [CLS] vectors (variance %6 and %7 along the axes). "
                          "Hover for the label sets and the text, click to try it.")
                           .arg(m_step).arg(m_points.size()).arg(name).arg(having).arg(mistakes)
                           .arg(m_variance[0], 0, 'g', 3).arg(m_variance[1], 0, 'g', 3));
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

QString EmbeddingView::labelSetText(const std::vector<int64_t> &ids) const
{
    QStringList names;
    for (const int64_t id : ids)
        names << labelText(id);
    return QStringLiteral("{%1}").arg(names.join(QStringLiteral(", ")));
}

QString EmbeddingView::hoverText(int row) const
{
    if (row < 0 || size_t(row) >= m_points.size())
        return {};
    QString text;
    if (m_multiLabel && size_t(row) < m_rowTrueSets.size() && size_t(row) < m_rowPredictedSets.size()) {
        const auto &truth = m_rowTrueSets[size_t(row)], &predicted = m_rowPredictedSets[size_t(row)];
        const bool right = (std::find(truth.begin(), truth.end(), m_colourLabel) != truth.end())
                           == (std::find(predicted.begin(), predicted.end(), m_colourLabel) != predicted.end());
        text = (right ? tr("true %1, predicted %2: right for %3") : tr("true %1, predicted %2: a mistake for %3"))
                   .arg(labelSetText(truth), labelSetText(predicted), labelText(m_colourLabel));
    } else if (size_t(row) < m_rowTrue.size() && size_t(row) < m_rowPredicted.size()) {
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
