// SPDX-License-Identifier: Apache-2.0
// The embedding view (issue 25; goal: a redraw of 5,000 points in <= 16 ms, fluid at 10,000):
// PCA of N pooled vectors (hidden 128, two classes in two clouds), then the median of 20
// full replots of the view at 1000 x 700 pixels. Usage: bench_embeddingview [points...]
// (run with QT_QPA_PLATFORM=offscreen without a display)
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/embeddingview.h"

#include <QApplication>
#include <QElapsedTimer>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <random>

using namespace wb;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    std::vector<long> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(std::atol(argv[i]));
    if (sizes.empty())
        sizes = {5000, 10000};
    for (const long n : sizes) {
        EmbeddingSnapshot s;
        s.step = 1;
        s.hidden = 128;
        std::mt19937_64 rng(7);
        std::normal_distribution<float> noise(0.0f, 0.3f);
        for (long i = 0; i < n; ++i) {
            const int64_t label = i % 2;
            for (int c = 0; c < 128; ++c)
                s.pooled.push_back((c < 8 ? (label ? 1.0f : -1.0f) : 0.0f) + noise(rng));
            s.example_index.push_back(i);
            s.label_ids.push_back(label);
            s.predictions.push_back(i % 17 == 0 ? 1 - label : label);
        }
        QElapsedTimer t;
        t.start();
        const Projection2D p = pcaProject2D(s.pooled, s.size(), s.hidden);
        const double pcaMs = double(t.nsecsElapsed()) / 1e6;
        EmbeddingView v;
        v.resize(1000, 700);
        v.show();
        v.showPoints(s, p, std::vector<QString>(size_t(n), QStringLiteral("text")), {});
        QCoreApplication::processEvents();
        std::vector<double> ms;
        for (int k = 0; k < 20; ++k) {
            t.restart();
            v.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
            ms.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        if (const QString png = qEnvironmentVariable("WB_BENCH_PNG"); !png.isEmpty()) // a look at what was timed
            v.customPlot()->savePng(png.arg(n));
        std::printf("{\"bench\":\"embedding_view\",\"points\":%ld,\"pca_ms\":%.1f,\"replot_ms_median\":%.2f,"
                    "\"replot_ms_max\":%.2f,\"goal_ms\":16}\n",
                    n, pcaMs, ms[ms.size() / 2], ms.back());
    }
    return 0;
}
