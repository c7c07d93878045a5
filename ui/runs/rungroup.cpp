// SPDX-License-Identifier: Apache-2.0
// Groups of runs (the seeds of one setting): mean curves with a min–max band, the spread of
// their final metrics.
#include "ui/runs/rungroup.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace wb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The finite points of `s`, as (step, value), in step order.
std::vector<std::pair<double, double>> finitePoints(const CurveSeries &s)
{
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; i < s.step.size() && i < s.value.size(); ++i)
        if (std::isfinite(s.step[i]) && std::isfinite(s.value[i]))
            out.emplace_back(s.step[i], s.value[i]);
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    return out;
}

/// The value of `points` at `step`: exact, interpolated, or NaN outside them.
double valueAt(const std::vector<std::pair<double, double>> &points, double step)
{
    if (points.empty() || step < points.front().first || step > points.back().first)
        return kNaN;
    const auto hi = std::lower_bound(points.begin(), points.end(), step,
                                     [](const auto &p, double s) { return p.first < s; });
    if (hi->first == step) {
        // The last value logged at a step wins (as TensorBoard shows a repeated step).
        auto last = hi;
        while (std::next(last) != points.end() && std::next(last)->first == step)
            ++last;
        return last->second;
    }
    const auto lo = std::prev(hi);
    const double t = (step - lo->first) / (hi->first - lo->first);
    return lo->second + t * (hi->second - lo->second);
}

double lastFiniteOf(const std::vector<double> &v)
{
    for (auto it = v.rbegin(); it != v.rend(); ++it)
        if (std::isfinite(*it))
            return *it;
    return kNaN;
}

} // namespace

GroupCurve groupCurve(const std::vector<CurveSeries> &runs)
{
    std::vector<std::vector<std::pair<double, double>>> points;
    std::set<double> steps;
    for (const CurveSeries &s : runs) {
        points.push_back(finitePoints(s));
        for (const auto &p : points.back())
            steps.insert(p.first);
    }
    GroupCurve g;
    for (double step : steps) {
        double sum = 0, lo = kNaN, hi = kNaN;
        int n = 0;
        for (const auto &p : points) {
            const double v = valueAt(p, step);
            if (!std::isfinite(v))
                continue;
            sum += v;
            lo = n == 0 ? v : std::min(lo, v);
            hi = n == 0 ? v : std::max(hi, v);
            ++n;
        }
        if (n == 0)
            continue;
        g.step.push_back(step);
        g.mean.push_back(sum / n);
        g.min.push_back(lo);
        g.max.push_back(hi);
        g.count.push_back(n);
    }
    return g;
}

Spread spreadOf(const std::vector<double> &values)
{
    Spread s;
    double sum = 0;
    for (double v : values) {
        if (!std::isfinite(v))
            continue;
        s.min = s.n == 0 ? v : std::min(s.min, v);
        s.max = s.n == 0 ? v : std::max(s.max, v);
        sum += v;
        ++s.n;
    }
    if (s.n == 0) {
        s.mean = s.min = s.max = s.stddev = kNaN;
        return s;
    }
    s.mean = sum / s.n;
    if (s.n < 2) {
        s.stddev = kNaN;
        return s;
    }
    double sq = 0;
    for (double v : values)
        if (std::isfinite(v))
            sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / (s.n - 1));
    return s;
}

QString spreadText(const Spread &s)
{
    if (s.n == 0)
        return QStringLiteral("–");
    const auto num = [](double v) { return QString::number(v, 'g', 4); };
    if (s.n == 1)
        return QStringLiteral("%1 (n = 1)").arg(num(s.mean));
    return QStringLiteral("%1 ± %2 (%3–%4, n = %5)").arg(num(s.mean), num(s.stddev), num(s.min), num(s.max)).arg(s.n);
}

QString seedGroupName(const QString &runName)
{
    static const QRegularExpression pattern(QStringLiteral("^(.+)-seed-(\\d+)$"));
    const QRegularExpressionMatch m = pattern.match(runName);
    return m.hasMatch() ? m.captured(1) : QString();
}

namespace {

/// The settings of `run` that must be equal within a seed group (all but seed and the run's own
/// folders), as one text; "" when the run records no seed.
std::string settingsBesidesSeed(const RunHistory &run)
{
    if (!run.settings.count("seed"))
        return {};
    std::string key;
    for (const auto &[name, value] : run.settings)
        if (name != "seed" && name != "model_dir" && name != "metrics_file")
            key += name + '=' + value + '\n';
    return key;
}

/// A group of runs with the same settings: their common sweep group when they have one
/// ("sweep-1 learning_rate=0.001"), else their names ("run-1, run-2, run-3", more as "…").
QString settingsGroupName(const std::vector<RunHistory> &runs, const std::vector<int> &rows)
{
    const QString common = runs[size_t(rows.front())].seedGroup;
    bool same = !common.isEmpty();
    for (int row : rows)
        same = same && runs[size_t(row)].seedGroup == common;
    if (same)
        return common;
    QStringList names;
    for (size_t i = 0; i < rows.size() && i < 3; ++i)
        names << runs[size_t(rows[i])].name;
    return names.join(QStringLiteral(", ")) + (rows.size() > 3 ? QStringLiteral(", …") : QString());
}

} // namespace

std::vector<RunGroup> seedGroups(const std::vector<RunHistory> &runs)
{
    // First the runs whose recorded settings are the same but for seed (a sweep's or not);
    // then, among the rest, the group their sweep records or their folder name says.
    std::map<std::string, std::vector<int>> bySettings;
    for (int row = 0; row < int(runs.size()); ++row)
        if (const std::string key = settingsBesidesSeed(runs[size_t(row)]); !key.empty())
            bySettings[key].push_back(row);
    std::vector<int> groupOf(runs.size(), -1);
    std::vector<RunGroup> groups;
    for (const auto &[key, rows] : bySettings) {
        std::set<std::string> seeds;
        for (int row : rows)
            seeds.insert(runs[size_t(row)].settings.at("seed"));
        if (seeds.size() < 2)
            continue; // the same run twice is no spread over seeds
        for (int row : rows)
            groupOf[size_t(row)] = int(groups.size());
        groups.push_back({settingsGroupName(runs, rows), rows});
    }
    std::map<QString, size_t> index;
    std::vector<RunGroup> named;
    for (int row = 0; row < int(runs.size()); ++row) {
        const RunHistory &run = runs[size_t(row)];
        if (groupOf[size_t(row)] >= 0)
            continue;
        const QString name = run.seedGroup.isEmpty() ? seedGroupName(run.name) : run.seedGroup;
        if (name.isEmpty())
            continue;
        if (!index.count(name)) {
            index[name] = named.size();
            named.push_back({name, {}});
        }
        named[index[name]].rows.push_back(row);
    }
    for (RunGroup &g : named)
        if (g.rows.size() >= 2)
            groups.push_back(std::move(g));
    std::stable_sort(groups.begin(), groups.end(), [](const RunGroup &a, const RunGroup &b) { return a.rows.front() < b.rows.front(); });
    return groups;
}

FinalMetrics finalMetrics(const RunHistory &run)
{
    FinalMetrics f;
    f.trainLoss = run.trainingSummary && std::isfinite(run.trainingSummary->train_loss) ? run.trainingSummary->train_loss
                                                                                         : lastFiniteOf(run.trainLoss);
    f.evalLoss = lastFiniteOf(run.evalLoss);
    f.evalAccuracy = lastFiniteOf(run.evalAccuracy);
    return f;
}

RunHistory groupHistory(const RunGroup &group, const std::vector<RunHistory> &runs)
{
    std::vector<CurveSeries> train, evalLoss, evalAcc;
    for (int row : group.rows) {
        const RunHistory &r = runs[size_t(row)];
        train.push_back({r.trainStep, r.trainLoss});
        evalLoss.push_back({r.evalStep, r.evalLoss});
        evalAcc.push_back({r.evalStep, r.evalAccuracy});
    }
    RunHistory h;
    h.name = QStringLiteral("%1 (mean of %2)").arg(group.name).arg(group.rows.size());
    h.sourcePath = QStringLiteral("seed-group:") + group.name;
    const GroupCurve t = groupCurve(train);
    h.trainStep = t.step;
    h.trainLoss = t.mean;
    h.trainLossLow = t.min;
    h.trainLossHigh = t.max;
    h.trainWallTime.assign(t.step.size(), 0.0);
    h.learningRate.assign(t.step.size(), kNaN);
    // Eval loss and accuracy on one step list: the union of both curves' steps.
    const GroupCurve el = groupCurve(evalLoss), ea = groupCurve(evalAcc);
    std::set<double> steps(el.step.begin(), el.step.end());
    steps.insert(ea.step.begin(), ea.step.end());
    const auto at = [](const GroupCurve &g, double step) {
        const auto it = std::find(g.step.begin(), g.step.end(), step);
        return it == g.step.end() ? kNaN : g.mean[size_t(it - g.step.begin())];
    };
    for (double step : steps) {
        h.evalStep.push_back(step);
        h.evalWallTime.push_back(0.0);
        h.evalLoss.push_back(at(el, step));
        h.evalAccuracy.push_back(at(ea, step));
    }
    return h;
}

} // namespace wb
