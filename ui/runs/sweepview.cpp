// SPDX-License-Identifier: Apache-2.0
// The sweep view of Compare runs: the runs sorted by a metric and in parallel coordinates.
#include "ui/runs/sweepview.h"

#include "ui/runs/rungroup.h"

#include "core/config/optiontable.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace wb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Blue (low) → teal → yellow (high), a perceptually ordered ramp after matplotlib's viridis.
QColor rampColour(double t)
{
    static const QColor stops[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (!std::isfinite(t))
        return QColor(150, 150, 150);
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, int(t));
    const double f = t - i;
    const QColor &a = stops[i], &b = stops[i + 1];
    return QColor(int(a.red() + f * (b.red() - a.red())), int(a.green() + f * (b.green() - a.green())),
                  int(a.blue() + f * (b.blue() - a.blue())));
}

bool lowerIsBetter(const QString &metric) { return metric == QLatin1String("eval_loss") || metric == QLatin1String("train_loss"); }


bool anyFinite(const std::vector<RunHistory> &runs, const QString &metric)
{
    return std::any_of(runs.begin(), runs.end(), [&](const RunHistory &r) { return std::isfinite(sweepMetricOf(r, metric)); });
}

/// A setting's text as a number; NaN when it is not one ("–", "gelu").
double settingNumber(const RunHistory &run, const std::string &key)
{
    const auto it = run.settings.find(key);
    bool ok = false;
    const double v = it == run.settings.end() ? kNaN : QString::fromStdString(it->second).toDouble(&ok);
    return ok ? v : kNaN;
}

constexpr double kTitleGap = 8; ///< pixels between two titles on one row
constexpr int kMaxFallbackAxes = 6; ///< axes of runs that differ in no sweepable option
} // namespace

double sweepMetricOf(const RunHistory &run, const QString &metric)
{
    const FinalMetrics f = finalMetrics(run);
    if (metric == QLatin1String("eval_loss"))
        return f.evalLoss;
    if (metric == QLatin1String("train_loss"))
        return f.trainLoss;
    if (metric == QLatin1String("best_eval_accuracy")) {
        double best = kNaN;
        for (double v : run.evalAccuracy)
            if (std::isfinite(v) && !(v <= best))
                best = v;
        return best;
    }
    return f.evalAccuracy;
}

QStringList sweepMetricsOf(const std::vector<RunHistory> &runs)
{
    QStringList out;
    if (anyFinite(runs, QStringLiteral("eval_accuracy")))
        out << QStringLiteral("eval_accuracy") << QStringLiteral("best_eval_accuracy");
    if (anyFinite(runs, QStringLiteral("eval_loss")))
        out << QStringLiteral("eval_loss");
    if (out.isEmpty())
        out << QStringLiteral("train_loss");
    return out;
}

QStringList sweepAxesOf(const std::vector<RunHistory> &runs)
{
    const std::vector<SettingDifference> diffs = differingSettings(runs);
    const auto numeric = [](const SettingDifference &d) {
        bool any = false;
        for (const std::string &v : d.values) {
            bool ok = false;
            QString::fromStdString(v).toDouble(&ok);
            if (!ok && v != "–")
                return false;
            any = any || ok;
        }
        return any;
    };
    QStringList out;
    for (const std::string &option : sweepableOptions())
        for (const SettingDifference &d : diffs)
            if (d.key == option && numeric(d))
                out << QString::fromStdString(d.key);
    if (!out.isEmpty())
        return out;
    static const std::set<std::string> derived = {"total_steps", "warmup_steps", "steps_per_epoch", "train_data_size",
                                                  "num_labels", "eval_data_size"};
    for (const SettingDifference &d : diffs)
        if (out.size() < kMaxFallbackAxes && numeric(d) && d.key.rfind("bert_config.", 0) != 0 && !derived.count(d.key))
            out << QString::fromStdString(d.key);
    return out;
}

QString sweepAxisTitle(const QString &key)
{
    if (key == QLatin1String("eval_accuracy"))
        return QObject::tr("Eval accuracy");
    if (key == QLatin1String("best_eval_accuracy"))
        return QObject::tr("Best eval accuracy");
    if (key == QLatin1String("eval_loss"))
        return QObject::tr("Eval loss");
    if (key == QLatin1String("train_loss"))
        return QObject::tr("Train loss");
    const OptionSpec *spec = findOption(key.toStdString());
    return spec && *spec->label ? QString::fromUtf8(spec->label) : key;
}

ParallelCoordinates::ParallelCoordinates(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("parallelCoordinates"));
    setMinimumHeight(220);
    setToolTip(tr("One line per run. Drag along an axis to show only the runs in that range; click an axis to clear it."));
}

void ParallelCoordinates::setData(const QStringList &axes, const std::vector<ParallelLine> &lines, const QStringList &titles)
{
    m_axes = axes;
    m_titles = titles.size() == axes.size() ? titles : axes;
    m_lines = lines;
    m_range.assign(size_t(axes.size()), {kNaN, kNaN});
    m_log.assign(size_t(axes.size()), false);
    m_brush.assign(size_t(axes.size()), std::nullopt);
    for (int a = 0; a < axes.size(); ++a) {
        double lo = kNaN, hi = kNaN;
        bool positive = true;
        for (const ParallelLine &l : lines) {
            const double v = size_t(a) < l.values.size() ? l.values[size_t(a)] : kNaN;
            if (!std::isfinite(v))
                continue;
            lo = std::isfinite(lo) ? std::min(lo, v) : v;
            hi = std::isfinite(hi) ? std::max(hi, v) : v;
            positive = positive && v > 0;
        }
        m_range[size_t(a)] = {lo, hi};
        m_log[size_t(a)] = positive && (axes[a] == QLatin1String("learning_rate") || axes[a] == QLatin1String("weight_decay_rate"));
    }
    update();
    Q_EMIT brushChanged();
}

void ParallelCoordinates::setBrush(int axis, std::optional<std::pair<double, double>> range)
{
    if (axis < 0 || axis >= int(m_brush.size()))
        return;
    if (range && range->first > range->second)
        std::swap(range->first, range->second);
    m_brush[size_t(axis)] = range;
    update();
    Q_EMIT brushChanged();
}

std::vector<int> ParallelCoordinates::visibleLines() const
{
    std::vector<int> out;
    for (int i = 0; i < int(m_lines.size()); ++i) {
        bool inside = true;
        for (size_t a = 0; a < m_brush.size() && inside; ++a) {
            if (!m_brush[a])
                continue;
            const double v = a < m_lines[size_t(i)].values.size() ? m_lines[size_t(i)].values[a] : kNaN;
            inside = std::isfinite(v) && v >= m_brush[a]->first && v <= m_brush[a]->second;
        }
        if (inside)
            out.push_back(i);
    }
    return out;
}

double ParallelCoordinates::axisX(int axis) const
{
    const double left = 70, right = width() - 70.0;
    return m_axes.size() <= 1 ? (left + right) / 2 : left + (right - left) * axis / (m_axes.size() - 1);
}

bool ParallelCoordinates::twoTitleRows() const
{
    if (m_axes.size() < 2)
        return false;
    const double spacing = axisX(1) - axisX(0);
    for (const QString &t : m_titles)
        if (fontMetrics().horizontalAdvance(t) + kTitleGap > spacing)
            return true;
    return false;
}

QString ParallelCoordinates::shownTitle(int axis) const
{
    // The room of a title: the spacing of the axes on one row, twice that on two rows (its
    // neighbours are on the other row), and never past the widget's edges.
    const double spacing = m_axes.size() < 2 ? width() : axisX(1) - axisX(0);
    double room = (twoTitleRows() ? 2 * spacing : spacing) - kTitleGap;
    const double x = axisX(axis);
    room = std::min(room, 2 * std::min(x, width() - x) - 4);
    return fontMetrics().elidedText(m_titles[axis], Qt::ElideMiddle, int(std::max(room, 20.0)));
}

double ParallelCoordinates::plotTop() const
{
    return (twoTitleRows() ? 2 : 1) * (fontMetrics().height() + 4) + 8.0;
}

std::vector<QRectF> ParallelCoordinates::titleRects() const
{
    std::vector<QRectF> out;
    const double h = fontMetrics().height() + 4;
    const bool two = twoTitleRows();
    for (int a = 0; a < m_axes.size(); ++a) {
        const double w = fontMetrics().horizontalAdvance(shownTitle(a));
        out.emplace_back(axisX(a) - w / 2, 2 + (two && a % 2 == 1 ? h : 0), w, h);
    }
    return out;
}

bool ParallelCoordinates::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(e);
        const std::vector<QRectF> rects = titleRects();
        for (int a = 0; a < int(rects.size()); ++a)
            if (rects[size_t(a)].contains(help->pos())) {
                QToolTip::showText(help->globalPos(), QStringLiteral("%1 (%2)").arg(m_titles[a], m_axes[a]), this);
                return true;
            }
    }
    return QWidget::event(e);
}

double ParallelCoordinates::position(int axis, double v) const
{
    const auto [lo, hi] = m_range[size_t(axis)];
    if (!std::isfinite(v) || !std::isfinite(lo))
        return kNaN;
    if (hi == lo)
        return 0.5;
    if (m_log[size_t(axis)])
        return (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
    return (v - lo) / (hi - lo);
}

double ParallelCoordinates::valueAt(int axis, double p) const
{
    const auto [lo, hi] = m_range[size_t(axis)];
    if (m_log[size_t(axis)])
        return std::exp(std::log(lo) + p * (std::log(hi) - std::log(lo)));
    return lo + p * (hi - lo);
}

void ParallelCoordinates::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (m_axes.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No settings differ between these runs."));
        return;
    }
    const double top = plotTop(), bottom = plotBottom();
    const auto yOf = [&](double pos) { return bottom - pos * (bottom - top); };
    const int metricAxis = int(m_axes.size()) - 1;
    const std::vector<int> visible = visibleLines();
    for (int pass = 0; pass < 2; ++pass) { // faint lines below, chosen ones on top
        for (int i = 0; i < int(m_lines.size()); ++i) {
            const bool shown = std::find(visible.begin(), visible.end(), i) != visible.end();
            if (shown != (pass == 1))
                continue;
            QColor c = rampColour(position(metricAxis, m_lines[size_t(i)].values.back()));
            if (!shown)
                c = QColor(200, 200, 200);
            p.setPen(QPen(c, shown ? 2.0 : 1.0));
            QPainterPath path;
            bool started = false;
            for (int a = 0; a < m_axes.size(); ++a) {
                const double pos = position(a, size_t(a) < m_lines[size_t(i)].values.size() ? m_lines[size_t(i)].values[size_t(a)] : kNaN);
                if (!std::isfinite(pos)) {
                    started = false;
                    continue;
                }
                const QPointF pt(axisX(a), yOf(pos));
                if (started)
                    path.lineTo(pt);
                else
                    path.moveTo(pt);
                started = true;
            }
            p.drawPath(path);
        }
    }
    p.setPen(palette().text().color());
    const std::vector<QRectF> titles = titleRects();
    for (int a = 0; a < m_axes.size(); ++a) {
        const double x = axisX(a);
        p.drawLine(QPointF(x, top), QPointF(x, bottom));
        p.drawText(titles[size_t(a)], Qt::AlignCenter, shownTitle(a));
        const auto [lo, hi] = m_range[size_t(a)];
        if (std::isfinite(lo)) {
            p.drawText(QRectF(x - 80, bottom + 2, 160, 20), Qt::AlignCenter, QString::number(lo, 'g', 3));
            const QString hiText = QString::number(hi, 'g', 3);
            const QRectF hiRect(x + 4, top + 1, fontMetrics().horizontalAdvance(hiText) + 4, fontMetrics().height());
            p.fillRect(hiRect, palette().base()); // readable over the lines that meet at the top
            p.drawText(hiRect, Qt::AlignCenter, hiText);
        }
        std::optional<std::pair<double, double>> b = m_brush[size_t(a)];
        if (m_dragAxis == a)
            b = std::make_pair(std::min(m_dragFrom, m_dragTo), std::max(m_dragFrom, m_dragTo));
        if (b && std::isfinite(lo)) {
            const double y1 = yOf(std::clamp(position(a, b->second), 0.0, 1.0)), y2 = yOf(std::clamp(position(a, b->first), 0.0, 1.0));
            p.fillRect(QRectF(x - 6, y1, 12, std::max(2.0, y2 - y1)), QColor(0, 114, 178, 90));
        }
    }
}

void ParallelCoordinates::mousePressEvent(QMouseEvent *e)
{
    m_dragAxis = -1;
    for (int a = 0; a < m_axes.size(); ++a)
        if (std::abs(e->position().x() - axisX(a)) <= 10 && std::isfinite(m_range[size_t(a)].first)) {
            m_dragAxis = a;
            const double pos = std::clamp((plotBottom() - e->position().y()) / (plotBottom() - plotTop()), 0.0, 1.0);
            m_dragFrom = m_dragTo = valueAt(a, pos);
        }
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent *e)
{
    if (m_dragAxis < 0)
        return;
    const double pos = std::clamp((plotBottom() - e->position().y()) / (plotBottom() - plotTop()), 0.0, 1.0);
    m_dragTo = valueAt(m_dragAxis, pos);
    update();
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent *)
{
    if (m_dragAxis < 0)
        return;
    const int axis = std::exchange(m_dragAxis, -1);
    if (m_dragFrom == m_dragTo)
        setBrush(axis, std::nullopt); // a click clears
    else
        setBrush(axis, std::make_pair(m_dragFrom, m_dragTo));
}

SweepView::SweepView(QWidget *parent)
    : QDialog(parent), m_metric(new QComboBox(this)), m_title(new QLabel(this)), m_table(new QTableWidget(this)),
      m_plot(new ParallelCoordinates(this)), m_note(new QLabel(this))
{
    setObjectName(QStringLiteral("sweepView"));
    setWindowTitle(tr("Sweep view"));
    m_title->setObjectName(QStringLiteral("sweepTitle"));
    m_title->setWordWrap(true);
    m_metric->setObjectName(QStringLiteral("sweepMetric"));
    m_metric->setToolTip(tr("Sort and colour the runs by this metric (the last evaluation's value; best eval accuracy: "
                            "the highest of any evaluation)"));
    m_table->setObjectName(QStringLiteral("sweepTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_note->setWordWrap(true);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Metric:"), this));
    row->addWidget(m_metric);
    row->addWidget(m_note, 1);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addLayout(row);
    layout->addWidget(m_plot, 3);
    layout->addWidget(m_table, 2);
    layout->addWidget(box);
    resize(900, 620);
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(m_plot, &ParallelCoordinates::brushChanged, this, [this] {
        const std::vector<int> visible = m_plot->visibleLines();
        for (int r = 0; r < m_table->rowCount(); ++r) {
            const int line = m_table->item(r, 0) ? m_table->item(r, 0)->data(Qt::UserRole).toInt() : -1;
            m_table->setRowHidden(r, std::find(visible.begin(), visible.end(), line) == visible.end());
        }
        m_note->setText(tr("%1 of %n run(s) shown; drag along an axis to pick a range", nullptr, int(m_runs.size()))
                            .arg(visible.size()));
    });
}

void SweepView::setRuns(const std::vector<RunHistory> &runs)
{
    const QStringList axes = sweepAxesOf(runs);
    std::vector<std::vector<double>> values;
    for (const RunHistory &r : runs) {
        std::vector<double> v;
        for (const QString &k : axes)
            v.push_back(settingNumber(r, k.toStdString()));
        values.push_back(std::move(v));
    }
    present(runs, axes, std::move(values), QString(),
            tr("%n run(s); the axes are the settings they differ in.", nullptr, int(runs.size())));
}

void SweepView::setSweep(const std::vector<RunHistory> &runs, const SweepFile &file, const QString &name)
{
    // Each run's swept values as its sweep planned them (sweep.json), else as it recorded them.
    QStringList swept;
    for (const SweepParameter &p : file.spec.parameters)
        swept << QString::fromStdString(p.name);
    std::vector<std::vector<double>> all;
    for (const RunHistory &r : runs) {
        const QString folder = QFileInfo(r.sourcePath).isFile() ? QFileInfo(r.sourcePath).dir().dirName()
                                                                : QFileInfo(r.sourcePath).fileName();
        const SweepRun *planned = nullptr;
        for (const SweepRunRecord &rec : file.runs)
            if (QString::fromStdString(rec.run.name) == folder)
                planned = &rec.run;
        std::vector<double> v;
        for (const QString &k : swept) {
            double x = settingNumber(r, k.toStdString());
            if (planned)
                for (const auto &[option, value] : planned->values)
                    if (QString::fromStdString(option) == k)
                        x = value;
            v.push_back(x);
        }
        all.push_back(std::move(v));
    }
    // The axes: the swept options that take two or more values in these runs (all when none does).
    QStringList axes;
    std::vector<int> kept;
    for (int k = 0; k < swept.size(); ++k) {
        std::set<double> distinct;
        for (const std::vector<double> &v : all)
            if (std::isfinite(v[size_t(k)]))
                distinct.insert(v[size_t(k)]);
        if (distinct.size() > 1)
            kept.push_back(k);
    }
    if (kept.empty())
        for (int k = 0; k < swept.size(); ++k)
            kept.push_back(k);
    std::vector<std::vector<double>> values;
    for (const std::vector<double> &v : all) {
        std::vector<double> out;
        for (int k : kept)
            out.push_back(v[size_t(k)]);
        values.push_back(std::move(out));
    }
    QStringList titles;
    for (int k : kept) {
        axes << swept[k];
        titles << sweepAxisTitle(swept[k]);
    }
    const QString method = file.spec.method == "random" ? tr("random search") : tr("grid");
    present(runs, axes, std::move(values), QString::fromStdString(file.metric),
            tr("%1: %n run(s), %2 over %3", nullptr, int(runs.size())).arg(name, method, titles.join(QStringLiteral(" × "))));
}

void SweepView::present(const std::vector<RunHistory> &runs, const QStringList &axes, std::vector<std::vector<double>> values,
                        const QString &metric, const QString &title)
{
    m_runs = runs;
    m_keys = axes;
    m_values = std::move(values);
    m_title->setText(title);
    const QStringList metrics = sweepMetricsOf(runs);
    const QSignalBlocker blocker(m_metric);
    m_metric->clear();
    for (const QString &m : metrics)
        m_metric->addItem(sweepAxisTitle(m), m);
    const int preferred = m_metric->findData(metric);
    m_metric->setCurrentIndex(preferred >= 0 ? preferred : 0);
    rebuild();
}

void SweepView::setMetric(const QString &metric)
{
    if (const int i = m_metric->findData(metric); i >= 0)
        m_metric->setCurrentIndex(i); // currentIndexChanged → rebuild()
}

QString SweepView::metric() const { return m_metric->currentData().toString(); }

void SweepView::rebuild()
{
    const QString metric = this->metric();
    std::vector<ParallelLine> lines;
    for (size_t i = 0; i < m_runs.size(); ++i) {
        ParallelLine l{m_runs[i].name, i < m_values.size() ? m_values[i] : std::vector<double>(size_t(m_keys.size()), kNaN)};
        l.values.push_back(sweepMetricOf(m_runs[i], metric));
        lines.push_back(std::move(l));
    }
    // The table: best first by the metric, runs without it last (in list order).
    std::vector<int> order(m_runs.size());
    for (int i = 0; i < int(order.size()); ++i)
        order[size_t(i)] = i;
    const bool lower = lowerIsBetter(metric);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const double x = lines[size_t(a)].values.back(), y = lines[size_t(b)].values.back();
        if (!std::isfinite(y))
            return std::isfinite(x);
        if (!std::isfinite(x))
            return false;
        return lower ? x < y : x > y;
    });
    QStringList titles;
    for (const QString &k : m_keys)
        titles << sweepAxisTitle(k);
    m_table->clear();
    m_table->setColumnCount(int(m_keys.size()) + 2);
    m_table->setHorizontalHeaderLabels(QStringList{tr("Run"), sweepAxisTitle(metric)} + titles);
    for (int k = 0; k < m_keys.size(); ++k)
        m_table->horizontalHeaderItem(k + 2)->setToolTip(m_keys[k]);
    m_table->setRowCount(int(order.size()));
    for (int r = 0; r < int(order.size()); ++r) {
        const ParallelLine &l = lines[size_t(order[size_t(r)])];
        auto *name = new QTableWidgetItem(l.name);
        name->setData(Qt::UserRole, order[size_t(r)]);
        name->setToolTip(m_runs[size_t(order[size_t(r)])].sourcePath);
        m_table->setItem(r, 0, name);
        m_table->setItem(r, 1, new QTableWidgetItem(std::isfinite(l.values.back()) ? QString::number(l.values.back(), 'g', 4)
                                                                                   : QStringLiteral("–")));
        for (int k = 0; k < m_keys.size(); ++k)
            m_table->setItem(r, k + 2, new QTableWidgetItem(std::isfinite(l.values[size_t(k)]) ? QString::number(l.values[size_t(k)], 'g', 6)
                                                                                                : QStringLiteral("–")));
    }
    m_plot->setData(QStringList(m_keys) << metric, lines, titles << sweepAxisTitle(metric)); // brushChanged → the table's rows and the note
}

} // namespace wb
