// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
// Training → Find Learning Rate… (issue 14, item 4) and the best-model / early-stopping fields
// of the form (item 5).
#include "ui/dialogs/lrfinddialog.h"
#include "ui/common/qtext.h"
#include "core/engine/preparedrun.h"

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/schedule.h"
#include "core/prepare/dataprep.h"
#include "core/engine/preflight.h"
#include "tinyrun.h"
#include "ui/form/configurationform.h"
#include "ui/form/fieldhelp.h"
#include "ui/window/mainwindow.h"
#include "ui/form/numberspinbox.h"
#include "ui/runs/progresspanel.h"
#include "ui/form/projectfile.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>
#include <fstream>

using namespace wb;

namespace {

constexpr int kWaitMs = 180000; // generous: the machine may be busy; no timing is asserted

QCPGraph *graph(const LrFindDialog &d, const char *name)
{
    return d.plot()->findChild<QCPGraph *>(QLatin1String(name));
}

QVector<double> keys(QCPGraph *g)
{
    QVector<double> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out << it->key;
    return out;
}

QVector<double> values(QCPGraph *g)
{
    QVector<double> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out << it->value;
    return out;
}

double markerX(const LrFindDialog &d, const char *name)
{
    auto *line = d.plot()->findChild<QCPItemStraightLine *>(QLatin1String(name));
    if (!line || !line->visible())
        return std::nan("");
    return line->point1->coords().x();
}

/// Runs the dialog's test to its end; false when it did not end in time.
bool runToEnd(LrFindDialog &d, bool viaBegin = false)
{
    QSignalSpy done(&d, &LrFindDialog::rangeTestFinished);
    if (viaBegin)
        d.begin();
    else if (!d.start())
        return false;
    return done.wait(kWaitMs);
}

} // namespace

class tst_LrFindDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rateText()
    {
        QCOMPARE(LrFindDialog::rateText(3.2e-4), QStringLiteral("3.2e-4"));
        QCOMPARE(LrFindDialog::rateText(0.000316227766), QStringLiteral("3.2e-4"));
        QCOMPARE(LrFindDialog::rateText(1e-6, 0), QStringLiteral("1e-6"));
        QCOMPARE(LrFindDialog::rateText(0.1, 0), QStringLiteral("1e-1"));
        QCOMPARE(LrFindDialog::rateText(1e-10, 0), QStringLiteral("1e-10"));
        QCOMPARE(LrFindDialog::rateText(1.0, 0), QStringLiteral("1"));
        QCOMPARE(LrFindDialog::roundedRate(0.000316227766), 3.2e-4);
    }

    void runsPlotsAndUsesTheSuggestion()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.lr_find_steps = 40;
        o.lr_find_start = 1e-5;
        o.lr_find_end = 1.0;
        o.learning_rate = 2e-5;
        ConfigurationForm form;
        form.setOptions(o);
        LrFindDialog d(&form);
        QSignalSpy steps(&d, &LrFindDialog::stepShown);
        // begin(): no lr_find.json yet, so it starts; the range comes from the options.
        QVERIFY(runToEnd(d, true));
        QVERIFY2(d.validationText().isEmpty(), qPrintable(d.validationText()));
        QVERIFY(d.result().has_value());
        const LrFindResult r = *d.result();
        QVERIFY(r.steps.size() >= 3);
        QVERIFY(r.steps.size() <= 40);
        QVERIFY(!steps.isEmpty()); // the curve grew step by step

        // The drawn smoothed loss is the result's, at the result's learning rates, rising.
        QCPGraph *smoothed = graph(d, "smoothedLoss");
        QCPGraph *raw = graph(d, "rawLoss");
        QVERIFY(smoothed && raw);
        QCOMPARE(values(smoothed), QVector<double>(r.smoothed.begin(), r.smoothed.end()));
        QCOMPARE(keys(smoothed), QVector<double>(r.learning_rates.begin(), r.learning_rates.end()));
        QCOMPARE(raw->data()->size(), int(r.losses.size()));
        const QVector<double> xs = keys(smoothed);
        for (int k = 1; k < xs.size(); ++k)
            QVERIFY2(xs[k] > xs[k - 1], qPrintable(QStringLiteral("x not rising at %1").arg(k)));
        QCOMPARE(xs.front(), 1e-5);
        QCOMPARE(d.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);

        // The markers sit at the result's suggestion and minimum / 10, inside the range.
        QCOMPARE(markerX(d, "suggestionMarker"), r.suggestion);
        QVERIFY(r.suggestion >= o.lr_find_start && r.suggestion <= o.lr_find_end);
        QCOMPARE(r.suggestion, r.learning_rates[size_t(r.suggestion_index)]);
        QCOMPARE(markerX(d, "minOver10Marker"), r.min_over_10);
        auto *label = d.plot()->findChild<QCPItemText *>(QStringLiteral("suggestionMarkerLabel"));
        QVERIFY(label);
        QCOMPARE(label->text(), QStringLiteral("suggested ") + LrFindDialog::rateText(r.suggestion));

        // The core saved it where the dialog says.
        const QString saved = QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"));
        QVERIFY(QFile::exists(saved));
        QCOMPARE(QString::fromStdString(r.path), saved);
        QVERIFY2(d.summaryText().contains(saved), qPrintable(d.summaryText()));
        QVERIFY(d.progressText().startsWith(QStringLiteral("finished")) || d.progressText().startsWith(QStringLiteral("stopped")));

        // "Use this" puts the suggestion, as shown (two significant digits), into the form.
        QSignalSpy edited(&form, &ConfigurationForm::edited);
        auto *use = d.findChild<QPushButton *>(QStringLiteral("useSuggestion"));
        QVERIFY(use && use->isEnabled());
        use->click();
        const double expected = QString::number(r.suggestion, 'e', 1).toDouble();
        QCOMPARE(form.options().learning_rate, expected);
        QVERIFY(std::abs(expected - r.suggestion) <= 0.05 * r.suggestion);
        QVERIFY(!edited.isEmpty());
        d.findChild<QPushButton *>(QStringLiteral("useMinOver10"))->click();
        QCOMPARE(form.options().learning_rate, QString::number(r.min_over_10, 'e', 1).toDouble());

        // Opening again shows the saved result without running.
        LrFindDialog again(&form);
        again.begin();
        QVERIFY(!again.isRunning());
        QVERIFY(again.result().has_value());
        QCOMPARE(again.result()->learning_rates, r.learning_rates);
        QCOMPARE(again.result()->suggestion, r.suggestion);
        QCOMPARE(markerX(again, "suggestionMarker"), r.suggestion);
    }

    void trainingMenuOpensIt()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.lr_find_steps = 40; // at least kLrFindMinSteps, or the curve says nothing
        o.lr_find_start = 1e-5;
        MainWindow w;
        w.setOptions(o);
        auto *action = w.findChild<QAction *>(QStringLiteral("findLearningRateAction"));
        QVERIFY(action);
        action->trigger();
        auto *d = w.findChild<LrFindDialog *>();
        QVERIFY(d && d->isVisible());
        QVERIFY(d->isRunning());
        QSignalSpy done(d, &LrFindDialog::rangeTestFinished);
        QVERIFY(done.wait(kWaitMs));
        QVERIFY2(d->result().has_value(), qPrintable(d->validationText()));
        QCOMPARE(int64_t(d->result()->steps.size()) <= 40, true);
        QCOMPARE(d->result()->verdict, std::string("ok"));
        QVERIFY(!w.isWindowModified());
        d->findChild<QPushButton *>(QStringLiteral("useSuggestion"))->click();
        QCOMPARE(w.options().learning_rate, LrFindDialog::roundedRate(d->result()->suggestion));
        QVERIFY(w.isWindowModified()); // the project has an unsaved change
        QVERIFY2(w.logText().contains(QStringLiteral("Learning rate set to ") + LrFindDialog::rateText(d->result()->suggestion)),
                 qPrintable(w.logText()));
        // Opening it again shows the saved curve instead of running.
        action->trigger();
        QCOMPARE(w.findChildren<LrFindDialog *>().size(), 1);
        QVERIFY(!d->isRunning());
        QVERIFY(d->summaryText().contains(QStringLiteral("saved result")));
    }

    void stopEndsEarly()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        // A gentle range that never diverges, with far more steps than the test waits for.
        o.lr_find_steps = 20000;
        o.lr_find_start = 1e-8;
        o.lr_find_end = 1e-7;
        ConfigurationForm form;
        form.setOptions(o);
        LrFindDialog d(&form);
        d.begin();
        QVERIFY(d.isRunning());
        QSignalSpy steps(&d, &LrFindDialog::stepShown);
        QSignalSpy done(&d, &LrFindDialog::rangeTestFinished);
        QVERIFY(steps.wait(kWaitMs));
        auto *stopButton = d.findChild<QPushButton *>(QStringLiteral("stopLrFind"));
        QVERIFY(stopButton->isEnabled());
        stopButton->click();
        QVERIFY(done.count() > 0 || done.wait(kWaitMs));
        QVERIFY(!stopButton->isEnabled());
        QVERIFY(d.result().has_value());
        QVERIFY(!d.result()->steps.empty());
        QVERIFY(int64_t(d.result()->steps.size()) < o.lr_find_steps);
        QVERIFY(!d.result()->diverged);
        QVERIFY2(d.progressText().startsWith(QStringLiteral("stopped after step")), qPrintable(d.progressText()));
        QVERIFY(QFile::exists(QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"))));
    }

    void savedFileIsShownAsWritten()
    {
        // A saved lr_find.json, read by the core's reader (the writer's twin): shown without
        // running, its curve and the suggestion of that curve.
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        ConfigurationForm form;
        form.setOptions(o);
        const QString saved = QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"));
        QVERIFY(QDir().mkpath(QFileInfo(saved).absolutePath()));
        LrFindResult written;
        for (int k = 0; k < 40; ++k) {
            written.steps.push_back(k + 1);
            written.learning_rates.push_back(lrFindLearningRate(k, 40, 1e-6, 1.0));
            // Falls fastest around step 20, then explodes; one loss was not finite.
            written.losses.push_back(k == 30 ? std::nan("") : 1.0 - 0.5 * std::tanh((k - 20) / 4.0) + (k > 30 ? k - 30 : 0));
        }
        written.diverged = true;
        analyzeLrFind(written);
        {
            std::ofstream out(saved.toStdString());
            out << lrFindJson(written);
        }
        LrFindDialog d(&form);
        d.begin();
        QVERIFY(!d.isRunning());
        QVERIFY(d.result().has_value());
        QCOMPARE(d.result()->learning_rates, written.learning_rates);
        QCOMPARE(d.result()->steps, written.steps);
        QVERIFY(std::isnan(d.result()->losses[30]));
        QCOMPARE(d.result()->diverged, true);
        QCOMPARE(d.result()->suggestion, written.suggestion);
        QCOMPARE(d.result()->min_over_10, written.min_over_10);
        QCOMPARE(markerX(d, "suggestionMarker"), written.suggestion);
        QCOMPARE(QString::fromStdString(d.result()->path), saved);
        QVERIFY2(d.summaryText().contains(QStringLiteral("saved result")), qPrintable(d.summaryText()));
        QVERIFY(d.validationText().isEmpty());
    }

    void brokenSavedFileSaysWhy()
    {
        // A saved lr_find.json that cannot be read: the dialog names the file and the key,
        // and runs nothing until Run replaces it.
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        ConfigurationForm form;
        form.setOptions(o);
        const QString saved = QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"));
        QVERIFY(QDir().mkpath(QFileInfo(saved).absolutePath()));
        {
            QFile f(saved);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"learning_rates": [1e-5, 1e-4, 1e-3], "losses": [0.7, 0.6]})");
        }
        LrFindDialog d(&form);
        QSignalSpy steps(&d, &LrFindDialog::stepShown);
        d.begin();
        QVERIFY(!d.isRunning());
        QVERIFY(!d.result().has_value());
        QCOMPARE(steps.count(), 0);
        QVERIFY2(d.validationText().startsWith(QStringLiteral("The saved result cannot be shown: ") + saved
                                               + QStringLiteral(": losses: has 2 entries, learning_rates 3")),
                 qPrintable(d.validationText()));
        QVERIFY2(d.validationText().contains(QStringLiteral("run the range test again")), qPrintable(d.validationText()));
        QVERIFY(d.findChild<QPushButton *>(QStringLiteral("runLrFind"))->isEnabled());
    }

    void closeStopsIt()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.lr_find_steps = 20000;
        o.lr_find_start = 1e-8;
        o.lr_find_end = 1e-7;
        ConfigurationForm form;
        form.setOptions(o);
        // The result of an earlier, complete test: a stopped one must not replace it.
        const QString saved = QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"));
        QVERIFY(QDir().mkpath(QFileInfo(saved).absolutePath()));
        const QByteArray earlier = R"({"steps":[1,2,3],"learning_rates":[1e-7,1e-4,1e-1],"losses":[0.7,0.5,0.9],)"
                                   R"("smoothed":[0.7,0.6,0.7],"suggestion":1e-4,"min_loss_lr":1e-4,"min_over_10":1e-5,)"
                                   R"("diverged":false})";
        {
            QFile f(saved);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(earlier);
        }
        LrFindDialog d(&form);
        d.show();
        QSignalSpy steps(&d, &LrFindDialog::stepShown);
        QSignalSpy done(&d, &LrFindDialog::rangeTestFinished);
        QVERIFY(d.start());
        QVERIFY(steps.wait(kWaitMs));
        d.reject(); // Close / Esc
        QVERIFY(done.count() > 0 || done.wait(kWaitMs));
        QVERIFY(!d.isVisible());
        QVERIFY(d.result().has_value());
        QVERIFY(int64_t(d.result()->steps.size()) < o.lr_find_steps);
        QVERIFY(d.result()->path.empty());
        QFile f(saved);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), earlier);
        QVERIFY2(d.summaryText().contains(QStringLiteral("Stopped early, so not saved")), qPrintable(d.summaryText()));
        QVERIFY2(!d.summaryText().contains(QStringLiteral("Saved as")), qPrintable(d.summaryText()));
    }

    /// The window's range test checks what `bert-workbench-cli lr_find` checks, no more: it
    /// needs no evaluation data and no learning rate (the value it exists to find).
    void needsNeitherEvalDataNorLearningRate()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.eval_data_path.clear();
        o.learning_rate = 0;
        o.lr_find_steps = 5;
        ConfigurationForm form;
        form.setOptions(o);
        LrFindDialog d(&form);
        QVERIFY(runToEnd(d));
        QVERIFY2(d.validationText().isEmpty(), qPrintable(d.validationText()));
        QVERIFY(d.result().has_value());
        QCOMPARE(int64_t(d.result()->steps.size()), int64_t(5));
        QVERIFY(QFile::exists(QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"))));
    }

    void invalidFormRunsNothing()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.bert_config_file.clear();
        ConfigurationForm form;
        form.setOptions(o);
        LrFindDialog d(&form);
        QSignalSpy steps(&d, &LrFindDialog::stepShown);
        QVERIFY(runToEnd(d));
        const QString text = d.validationText();
        // The form's words, as Train's pre-flight dialog: the field's label, no command-line flag.
        QVERIFY2(text.contains(QStringLiteral("BERT config")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("--bert_config_file")), qPrintable(text));
        // Word for word what the one pre-flight check says for a range test (as the CLI's lr_find).
        const FormValidationText expected =
            formValidationText(prepareRun(form.options(), RunPurpose::LrFind).validation.diagnostics);
        QVERIFY(!expected.errors.isEmpty());
        QVERIFY2(text.startsWith(expected.errors), qPrintable(text + QStringLiteral(" | ") + expected.errors));
        QVERIFY(!d.result().has_value());
        QCOMPARE(steps.count(), 0);
        QCOMPARE(graph(d, "smoothedLoss")->data()->size(), 0);
        QVERIFY(!QFile::exists(QDir(dir.path()).filePath(QStringLiteral("model/lr_find.json"))));
        QVERIFY(form.highlightedFields().contains(QStringLiteral("bert_config_file")));
        QVERIFY(!d.findChild<QPushButton *>(QStringLiteral("useSuggestion"))->isEnabled());
    }

    /// On real text (SpamAssassin mini, BERT-Tiny from scratch): the suggestion lies in the
    /// range. With WB_SCREENSHOT_DIR set, saves the dialog as lr-finder.png there.
    void realDataAndScreenshot()
    {
        const QString mini = QStringLiteral(WB_SHARED_DATA_DIR "/spamassassin-mini");
        const QString vocab = QStringLiteral(WB_SHARED_DATA_DIR "/vocab/bert-base-uncased-vocab.txt");
        if (!QDir(mini).exists() || !QFile::exists(vocab))
            QSKIP("shared data not available");
        QTemporaryDir dir;
        PrepareOptions p;
        p.input_data_dir = mini.toStdString();
        p.vocab_file = vocab.toStdString();
        p.max_seq_length = 64;
        p.output_dir = dir.filePath(QStringLiteral("data")).toStdString();
        const PrepareReport report = prepareData(p);
        const std::string config = dir.filePath(QStringLiteral("bert_config.json")).toStdString();
        std::ofstream(config) << bertPresets().front().config.toJson().dump(2);
        TrainingOptions o;
        o.distribution_strategy = "one_device";
        o.bert_config_file = config;
        o.input_meta_data_path = report.meta_path;
        o.train_data_path = report.train_path;
        o.eval_data_path = report.eval_path;
        o.model_dir = dir.filePath(QStringLiteral("model")).toStdString();
        o.train_batch_size = 16;
        o.lr_find_steps = 100;
        const QByteArray out = qgetenv("WB_SCREENSHOT_DIR");
        if (!out.isEmpty()) {
            // The screenshot's curve: more steps over six decades show the fall and the blow-up.
            o.lr_find_steps = 300;
            o.lr_find_start = 1e-6;
        }
        ConfigurationForm form;
        form.setOptions(o);
        LrFindDialog d(&form);
        d.resize(820, 660);
        d.show();
        QVERIFY(runToEnd(d, true));
        QVERIFY2(d.result().has_value(), qPrintable(d.validationText()));
        const LrFindResult &r = *d.result();
        auto *use = d.findChild<QPushButton *>(QStringLiteral("useSuggestion"));
        if (r.verdict == "ok") {
            QVERIFY(r.suggestion >= o.lr_find_start && r.suggestion <= o.lr_find_end);
            // Not the first, noisy steps (kLrFindSkipStart), and below the minimum.
            QVERIFY(r.suggestion_index >= std::min<int64_t>(kLrFindSkipStart, o.lr_find_steps / 10));
            QVERIFY(r.suggestion_index <= r.min_index);
            QVERIFY(use->isEnabled());
        } else {
            // BERT-Tiny from random weights on 179 mails: a nearly flat curve, said as such (issue 25).
            QCOMPARE(r.suggestion, 0.0);
            QVERIFY(!use->isEnabled());
            // The CLI's sentences (lrFindSummary) on the run's facts: random weights here.
            QVERIFY2(d.summaryText().contains(q(lrFindSummary(r, runFactsFor(o, Schedule{}))).toHtmlEscaped()),
                     qPrintable(d.summaryText()));
        }
        qInfo("real data: verdict %s, suggestion %g, steep %g, min %g", r.verdict.c_str(), r.suggestion, r.steep,
              r.min_loss_lr);
        if (!out.isEmpty()) {
            // The buttons' and the summary's new texts are laid out by posted events; deliver them first.
            QCoreApplication::sendPostedEvents();
            d.layout()->activate();
            d.plot()->replot();
            QVERIFY(d.grab().save(QDir(QString::fromLocal8Bit(out)).filePath(QStringLiteral("lr-finder.png"))));
        }
    }

    void bestModelFieldsRoundTrip()
    {
        ConfigurationForm form;
        auto *metric = form.findChild<QComboBox *>(QStringLiteral("best_checkpoint_metric"));
        auto *patience = form.findChild<NumberSpinBox *>(QStringLiteral("early_stopping_patience"));
        QVERIFY(metric && patience);
        QStringList items;
        for (int i = 0; i < metric->count(); ++i)
            items << metric->itemText(i);
        QCOMPARE(items, (QStringList{QStringLiteral("none"), QStringLiteral("eval_accuracy"), QStringLiteral("eval_loss"),
                                     QStringLiteral("eval_f1"), QStringLiteral("eval_mcc"), QStringLiteral("eval_macro_f1"),
                                     QStringLiteral("eval_micro_f1"), QStringLiteral("eval_samples_f1"),
                                     QStringLiteral("eval_hamming_loss")}));
        TrainingOptions o;
        form.setOptions(o);
        QCOMPARE(metric->currentText(), QStringLiteral("none"));
        QCOMPARE(patience->text(), QStringLiteral("never"));
        QCOMPARE(form.options().best_checkpoint_metric, std::string());

        metric->setCurrentIndex(metric->findText(QStringLiteral("eval_f1")));
        patience->setValue(3);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.bwproj"));
        ProjectFile::save(path, form.options());
        Diagnostics diag;
        ConfigurationForm reopened;
        reopened.setOptions(ProjectFile::load(path, diag));
        QCOMPARE(reopened.options().best_checkpoint_metric, std::string("eval_f1"));
        QCOMPARE(reopened.options().early_stopping_patience, int64_t(3));
        QCOMPARE(reopened.findChild<QComboBox *>(QStringLiteral("best_checkpoint_metric"))->currentText(),
                 QStringLiteral("eval_f1"));
    }

    /// An on/off option (--activation_checkpointing) is a check box bound both ways.
    void booleanOptionIsACheckBox()
    {
        ConfigurationForm form;
        QVERIFY(!form.findChild<QComboBox *>(QStringLiteral("activation_checkpointing")));
        auto *check = form.findChild<QCheckBox *>(QStringLiteral("activation_checkpointing"));
        QVERIFY(check);
        TrainingOptions o;
        form.setOptions(o);
        QVERIFY(!check->isChecked());
        QCOMPARE(form.options().activation_checkpointing, false);
        check->setChecked(true);
        QCOMPARE(form.options().activation_checkpointing, true);
        o.activation_checkpointing = true;
        ConfigurationForm other;
        other.setOptions(o);
        QVERIFY(other.findChild<QCheckBox *>(QStringLiteral("activation_checkpointing"))->isChecked());
    }

    void earlyStopIsShown()
    {
        // Issue 44 item 7: the status says the run's end as runEndPhrase does everywhere, the
        // detail which checkpoint the views use.
        RunFinished r;
        r.last_step = 40;
        r.stopped_early_at_step = 40;
        r.best_step = 20;
        r.best_checkpoint = "model/best/ckpt-20";
        const auto texts = [](const ProgressPanel &p) {
            QStringList out;
            for (QLabel *l : p.findChildren<QLabel *>())
                out << l->text();
            return out;
        };
        ProgressPanel panel;
        panel.finished(r);
        QCOMPARE(panel.statusText(), QStringLiteral("Stopped early at step 40, best at step 20"));
        QCOMPARE(panel.detailText(), QStringLiteral("best model kept at step 20: Evaluation, Try it and export use it"));
        r.stopped_early_at_step = 0;
        ProgressPanel kept; // a best model kept, the run to its end
        kept.finished(r);
        QCOMPARE(kept.statusText(), QStringLiteral("Completed at step 40, best at step 20"));
        r.best_checkpoint.clear();
        r.best_step = -1;
        ProgressPanel plain; // neither: the plain word
        plain.finished(r);
        QCOMPARE(plain.statusText(), QStringLiteral("Completed"));
        QVERIFY2(!texts(plain).join(u'|').contains(QStringLiteral("best")), qPrintable(texts(plain).join(u'|')));
        // Reopened: the same words from the run's files (recordedRunEnd).
        RunEnd recorded;
        recorded.kind = RunEnd::Kind::StoppedEarly;
        recorded.last_step = recorded.stopped_early_at_step = 40;
        recorded.total_steps = 96;
        recorded.best_step = 20;
        ProgressPanel reopened;
        reopened.showRecordedRun(recorded);
        QCOMPARE(reopened.statusText(), QStringLiteral("Stopped early at step 40, best at step 20"));
        QCOMPARE(reopened.progressText(), QStringLiteral("step 40 / 96"));
        reopened.setLearningWarning(QStringLiteral("It predicts one label."), recorded);
        QCOMPARE(reopened.statusText(), QStringLiteral("Stopped early at step 40, best at step 20 — did not learn"));
        RunEnd stopped;
        stopped.kind = RunEnd::Kind::Stopped;
        stopped.last_step = 8;
        stopped.total_steps = 16;
        reopened.showRecordedRun(stopped);
        QCOMPARE(reopened.statusText(), QStringLiteral("Stopped at step 8"));
    }
};

QTEST_MAIN(tst_LrFindDialog)
#include "tst_lrfinddialog.moc"
