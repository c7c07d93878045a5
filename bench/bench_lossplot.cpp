// SPDX-License-Identifier: Apache-2.0
// Times LossPlot with 10^6 points (append, replot, re-smooth) and the worst event-loop stall
// of the GUI thread while a tiny real training run streams metrics into the plot.
// Usage: bench_lossplot [points] (run with QT_QPA_PLATFORM=offscreen without a display)
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/trainingcontroller.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>

#include <qcustomplot.h>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace wb;

namespace {

double msSince(const QElapsedTimer &t) { return double(t.nsecsElapsed()) / 1e6; }

TrainingOptions tinyRun(const QTemporaryDir &dir)
{
    const std::string root = dir.path().toStdString();
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.bert_config_file = root + "/bert_config.json";
    o.input_meta_data_path = root + "/input_meta_data.json";
    o.train_data_path = root + "/train.tf_record";
    o.eval_data_path = root + "/eval.tf_record";
    o.model_dir = root + "/model";
    o.train_batch_size = 16;
    o.eval_batch_size = 16;
    o.learning_rate = 1e-3;
    o.num_train_epochs = 3;
    o.log_steps = 0;
    std::ofstream(o.bert_config_file) << R"({"vocab_size": 200, "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 128, "max_position_embeddings": 64, "type_vocab_size": 2})";
    std::ofstream(o.input_meta_data_path) << R"({"task_type": "bert_classification", "num_labels": 2,
        "train_data_size": 512, "eval_data_size": 64, "max_seq_length": 32})";
    for (const auto &[path, n] : {std::pair{o.train_data_path, 512}, std::pair{o.eval_data_path, 64}}) {
        TFRecordWriter w(path);
        for (int i = 0; i < n; ++i) {
            ClassifierRecord r;
            r.input_ids.assign(32, 0);
            r.input_mask.assign(32, 0);
            r.segment_ids.assign(32, 0);
            r.label_id = i % 2;
            for (int k = 0; k < 20; ++k) {
                r.input_ids[size_t(k)] = 2 + (i % 2) * 100 + (i * 13 + k) % 90;
                r.input_mask[size_t(k)] = 1;
            }
            w.write(encodeClassifierRecord(r));
        }
        w.commit();
    }
    return o;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000000;

    LossPlot plot;
    plot.resize(1200, 700);
    plot.show();
    QElapsedTimer t;
    t.start();
    for (int i = 1; i <= n; ++i) {
        StepMetrics m;
        m.step = i;
        m.loss = 1.0 / std::sqrt(double(i)) + 0.1 * std::sin(i * 0.37);
        m.learning_rate = 1e-4 * (1.0 - double(i) / n);
        m.wall_time = 1.7e9 + i * 0.01;
        plot.addStep(m);
    }
    const double appendMs = msSince(t);
    t.restart();
    plot.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    const double replotMs = msSince(t);
    t.restart();
    plot.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    const double replot2Ms = msSince(t);
    t.restart();
    plot.setSmoothing(0.9);
    const double setSmoothingMs = msSince(t);
    plot.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    const double resmoothMs = msSince(t);
    std::printf("setSmoothing alone: %.1f ms\n", setSmoothingMs);
    std::printf("== LossPlot with %d points ==\n", n);
    std::printf("append %d steps: %.1f ms (%.2f us/point)\n", n, appendMs, appendMs * 1000.0 / n);
    std::printf("first replot: %.1f ms, next replot: %.1f ms, change smoothing + replot: %.1f ms\n", replotMs,
                replot2Ms, resmoothMs);

    // Worst GUI stall while a real tiny training run streams into a fresh plot.
    QTemporaryDir dir;
    const TrainingOptions spec = tinyRun(dir);
    LossPlot live;
    live.resize(1200, 700);
    live.show();
    TrainingController controller;
    QObject::connect(&controller, &TrainingController::stepCompleted, &live, &LossPlot::addStep);
    QObject::connect(&controller, &TrainingController::evaluationCompleted, &live, &LossPlot::addEvaluation);
    // The first paint of a freshly shown window (fonts, layout) is not a training stall.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    QElapsedTimer clock;
    qint64 last = 0, worst = 0;
    int beats = 0;
    QTimer heartbeat;
    heartbeat.setInterval(5);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        worst = std::max(worst, now - last);
        last = now;
        ++beats;
    });
    RunFinished result;
    QObject::connect(&controller, &TrainingController::finished, [&](const RunFinished &r) {
        result = r;
        QApplication::quit();
    });
    clock.start();
    heartbeat.start();
    controller.start(prepareRun(spec, RunPurpose::Train)); // the real Trainer, checked first
    QApplication::exec();
    std::printf("== GUI responsiveness during a training run (BERT L=2 H=64, 96 steps) ==\n");
    std::printf("run %s after %.1f s, %d steps plotted, %d replots; worst event-loop gap %lld ms (goal <= 100 ms)\n",
                runStatusName(result.status), double(clock.elapsed()) / 1000.0, live.pointCount(LossPlot::Series::TrainLoss),
                live.replotCount(), worst);
    if (result.status == RunStatus::Failed)
        std::printf("run failed: %s\n", result.message.c_str());
    return 0;
}
