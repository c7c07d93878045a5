// SPDX-License-Identifier: Apache-2.0
// The Label tab (issue 47, docs/label-to-learn.md "In the window"): a pool of 60 short texts of
// two obvious kinds (spam words, ham words) and a BERT of one layer, 32 wide, from random weights.
// labelTwentyByKeyboard: 20 texts labelled with the number keys, k = 10: labels.csv holds them with
// the right labels, the suggestion shown saved beside each label given after the first model, the
// queue and suggestions change when a cycle ends, curve.jsonl gets a point per model (train on the
// 8 / 16 labels not held out, measured on the 2 / 4 held out), the event loop keeps ticking while
// the models train; Backspace and Ctrl+Z take the last labels out of the file and show their texts
// again; a label changed on the Labelled page is saved. killedChildKeepsEveryLabel: a child process
// labelling by keyboard while its model trains is killed with SIGKILL; reopening the session shows
// every label it had saved.
#include "ui/label/labeltab.h"

#include "core/label/labelsession.h"
#include "core/label/labelstore.h"
#include "support/spamwordsrun.h"
#include "ui/form/configurationform.h"
#include "ui/form/formtask.h"
#include "ui/label/labelcurveplot.h"
#include "ui/label/labelsessiondialog.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStandardPaths>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <algorithm>
#include <set>

using namespace wb;

namespace {

/// The vocabulary's ham words (ids 4…49) and spam words (ids 51…99).
std::vector<std::string> words(bool spam)
{
    const std::vector<std::string> v = wbtest::spamWordsVocab();
    return spam ? std::vector<std::string>(v.begin() + 51, v.end()) : std::vector<std::string>(v.begin() + 4, v.begin() + 50);
}

bool isSpam(const QString &text)
{
    static const std::vector<std::string> spam = words(true);
    const std::string first = text.section(QLatin1Char(' '), 0, 0).toStdString();
    return std::find(spam.begin(), spam.end(), first) != spam.end();
}

/// `root`/pool.txt (60 texts of three words: even lines spam, odd lines ham), vocab.txt, a tiny
/// bert_config.json; the session's settings (labels ham, spam; retrain every `k`).
LabelSessionSettings writeFixture(const std::string &root, int64_t k)
{
    {
        std::ofstream pool(root + "/pool.txt");
        for (size_t i = 0; i < 60; ++i) {
            const std::vector<std::string> w = words(i % 2 == 0);
            const size_t j = i / 2;
            pool << w[j % w.size()] << ' ' << w[(j + 7) % w.size()] << ' ' << w[(j + 19) % w.size()] << '\n';
        }
        std::ofstream vocab(root + "/vocab.txt");
        for (const std::string &t : wbtest::spamWordsVocab())
            vocab << t << '\n';
        std::ofstream(root + "/bert_config.json")
            << "{\"vocab_size\": 100, \"hidden_size\": 32, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
               "\"intermediate_size\": 64, \"hidden_act\": \"gelu\", \"hidden_dropout_prob\": 0.0, "
               "\"attention_probs_dropout_prob\": 0.0, \"max_position_embeddings\": 64, \"type_vocab_size\": 2, "
               "\"initializer_range\": 0.02}";
    }
    LabelSessionSettings s;
    s.pool_path = root + "/pool.txt";
    s.label_names = {"ham", "spam"};
    s.bert_config_file = root + "/bert_config.json";
    s.vocab_file = root + "/vocab.txt";
    s.max_seq_length = 16;
    s.batch_size = k;
    return s;
}

/// What the tab showed when a label was given by key.
struct Given
{
    QString text, suggested;
    bool heldOut = false;
};

/// The right label (index) of the text shown: the label named by its file's folder ("spam/0001…"
/// in a folder of e-mails), else spam when it starts with a spam word.
int rightLabel(const LabelTab &tab)
{
    const PoolText &t = tab.pool()[size_t(tab.currentText())];
    const std::vector<std::string> &names = tab.settings().label_names;
    for (size_t i = 0; i < names.size(); ++i)
        if (t.file.rfind(names[i] + "/", 0) == 0)
            return int(i);
    return isSpam(tab.shownText()) ? 1 : 0;
}

/// Presses the number key of the right label for the text shown.
Given labelByKey(LabelTab &tab)
{
    Given g{tab.shownText(), tab.suggestedLabel(), tab.currentIsHeldOut()};
    QTest::keyClick(&tab, Qt::Key(Qt::Key_1 + rightLabel(tab)));
    return g;
}

/// The longest time between two ticks of a 10 ms timer while the tab's cycles run.
struct TickWatch
{
    QTimer timer;
    QElapsedTimer clock;
    qint64 last = -1, maxGap = 0;
    int ticksInCycles = 0;
    std::set<QString> statuses; ///< the status lines seen while a cycle ran
    explicit TickWatch(const LabelTab &tab)
    {
        clock.start();
        timer.setInterval(10);
        QObject::connect(&timer, &QTimer::timeout, &timer, [this, &tab] {
            const qint64 now = clock.elapsed();
            if (tab.cycleRunning()) {
                ++ticksInCycles;
                statuses.insert(tab.statusText());
                if (last >= 0)
                    maxGap = std::max(maxGap, now - last);
                last = now;
            } else {
                last = -1;
            }
        });
        timer.start();
    }
};

/// Child mode (killedChildKeepsEveryLabel): opens the session in `dir`, labels texts by key and
/// prints "labelled <n> <cycle running>" after each (flushed); never ends on its own (nor when
/// every text is labelled). WB_CHILD_PAUSE_MS: the pause between labels (300 ms). The session of
/// docs/screenshots/label-1024x700.png was labelled by it (every 700 ms).
int runChild(const QString &dir)
{
    LabelTab tab;
    tab.show();
    tab.openSession(dir);
    if (!QTest::qWaitFor([&tab] { return tab.isLoaded(); }, 20000))
        return 2;
    for (int n = 1;; ++n) {
        const size_t before = tab.labels().size();
        if (tab.currentText() >= 0)
            labelByKey(tab);
        if (tab.labels().size() == before && tab.currentText() >= 0)
            tab.skipShown(); // a text the labels file cannot hold (the status line says why)
        std::printf("labelled %d %d %s\n", int(tab.labels().size()), tab.cycleRunning() ? 1 : 0, qPrintable(tab.statusText()));
        std::fflush(stdout);
        QTest::qWait(n < 5 ? 20 : qEnvironmentVariableIntValue("WB_CHILD_PAUSE_MS") > 0 ? qEnvironmentVariableIntValue("WB_CHILD_PAUSE_MS") : 300);
    }
}

/// labels.csv after labelTwentyByKeyboard: 20 rows, the right labels, and what the tab suggested
/// when each was given.
void checkSavedLabels(const QString &dir, const std::vector<Given> &given)
{
    const LabelsRead read = readLabelsCsv(labelSessionLabelsPath(dir.toStdString()));
    QCOMPARE(int(read.labels.size()), 20);
    int heldOut10 = 0, heldOut20 = 0;
    for (size_t i = 0; i < 20; ++i) {
        QCOMPARE(QString::fromStdString(read.labels[i].text), given[i].text);
        QCOMPARE(QString::fromStdString(read.labels[i].label), isSpam(given[i].text) ? QStringLiteral("spam") : QStringLiteral("ham"));
        QCOMPARE(QString::fromStdString(read.labels[i].suggested_label), given[i].suggested);
        if (i < 10)
            QCOMPARE(read.labels[i].suggested_label, std::string()); // no model yet
        if (i >= 13) // after the first model: a suggestion, except on held-out texts
            QCOMPARE(read.labels[i].suggested_label.empty(), given[i].heldOut);
        heldOut10 += i < 10 && given[i].heldOut;
        heldOut20 += given[i].heldOut;
    }
    QCOMPARE(heldOut10, 2); // every 5th text shown
    QCOMPARE(heldOut20, 4);

}

/// curve.jsonl after labelTwentyByKeyboard: one point per model, measured on the held-out labels.
void checkCurve(const LabelTab &tab, const QString &dir)
{
    const std::vector<CurvePoint> curve = readCurve(labelSessionCurvePath(dir.toStdString()));
    QCOMPARE(int(curve.size()), 2);
    QCOMPARE(curve[0].labels, int64_t(10));
    QCOMPARE(curve[0].train_labels, int64_t(8));
    QCOMPARE(curve[0].eval_examples, int64_t(2));
    QCOMPARE(curve[1].labels, int64_t(20));
    QCOMPARE(curve[1].train_labels, int64_t(16));
    QCOMPARE(curve[1].eval_examples, int64_t(4));
    QCOMPARE(curve[1].eval_source, std::string("held_out"));
    QCOMPARE(curve[1].strategy, std::string("uncertain_diverse"));
    QVERIFY(curve[1].accuracy >= 0 && curve[1].accuracy <= 1);
    QCOMPARE(tab.curvePlot()->modelPoints(), 2);
    QVERIFY2(tab.curveNote().startsWith(QStringLiteral("Accuracy of each model on the labelled texts kept aside when "
                                                       "it was trained (4 for the last one)")),
             qPrintable(tab.curveNote()));

}

/// Undo (Backspace, then Ctrl+Z: each takes the last label out of the file and shows its text),
/// a label changed on the Labelled page, and Make a project… (labels.csv prepared, the form filled).
void undoRelabelAndProject(LabelTab &tab, const QString &dir, const std::string &root, const std::vector<Given> &given)
{
    QTest::keyClick(&tab, Qt::Key_Backspace);
    QCOMPARE(tab.shownText(), given[19].text);
    QCOMPARE(int(readLabelsCsv(labelSessionLabelsPath(dir.toStdString())).labels.size()), 19);
    QTest::keyClick(&tab, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(tab.shownText(), given[18].text);
    const LabelsRead undone = readLabelsCsv(labelSessionLabelsPath(dir.toStdString()));
    QCOMPARE(int(undone.labels.size()), 18);
    QCOMPARE(QString::fromStdString(undone.labels.back().text), given[17].text);
    QCOMPARE(tab.labelledTable()->rowCount(), 18);

    // The Labelled page: a label changed there is saved.
    const std::string other = undone.labels[0].label == "spam" ? "ham" : "spam";
    tab.labelledTable()->item(0, 1)->setText(QString::fromStdString(other));
    QCOMPARE(readLabelsCsv(labelSessionLabelsPath(dir.toStdString())).labels[0].label, other);


    // Make a project…: labels.csv prepared, then the form trains on it.
    QSignalSpy prepared(&tab, &LabelTab::projectPrepared);
    tab.makeProject();
    QTRY_COMPARE_WITH_TIMEOUT(prepared.size(), 1, 30000);
    const auto report = prepared[0][0].value<PrepareReport>();
    QCOMPARE(report.train_examples + report.eval_examples, int64_t(18));
    QCOMPARE(QFileInfo(QString::fromStdString(report.meta_path)).absolutePath(), dir + QStringLiteral("/project-18-labels"));
    ConfigurationForm form;
    tab.applyProjectToForm(&form);
    const TrainingOptions o = form.options();
    QCOMPARE(form.task(), FormTask::Classify);
    QCOMPARE(o.train_data_path, report.train_path);
    QCOMPARE(o.input_meta_data_path, report.meta_path);
    QCOMPARE(o.bert_config_file, root + "/bert_config.json");
    QCOMPARE(o.vocab_file, root + "/vocab.txt");
    QCOMPARE(QString::fromStdString(o.model_dir), dir + QStringLiteral("/project-18-labels/run"));
}

} // namespace

class tst_LabelTab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void labelTwentyByKeyboard();
    void killedChildKeepsEveryLabel();
    void curvePlotLinesAndNotes();
    void sessionDialogChecksItsFields();
};

void tst_LabelTab::labelTwentyByKeyboard()
{
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    const QString dir = tmp.filePath(QStringLiteral("session"));
    LabelTab tab;
    tab.resize(1024, 700);
    tab.show();
    QVERIFY(tab.createSession(dir, writeFixture(root, 10)));
    QTRY_VERIFY_WITH_TIMEOUT(tab.isLoaded(), 20000);
    QCOMPARE(int(tab.pool().size()), 60);
    QCOMPARE(tab.suggestionText(), QString());
    QVERIFY(tab.curveNote().startsWith(QStringLiteral("No point yet")));
    TickWatch ticks(tab);
    QSignalSpy started(&tab, &LabelTab::cycleStarted), finished(&tab, &LabelTab::cycleFinished);

    std::vector<Given> given;
    for (int i = 0; i < 10; ++i)
        given.push_back(labelByKey(tab));
    QCOMPARE(started.size(), 1);
    QCOMPARE(started[0][0].toLongLong(), 10LL);
    QVERIFY(tab.cycleRunning());
    // Labels given while the model trains are kept (and do not start a second cycle).
    for (int i = 0; i < 3; ++i)
        given.push_back(labelByKey(tab));
    QCOMPARE(started.size(), 1);
    QCOMPARE(int(tab.labels().size()), 13);
    const std::vector<int64_t> queueBefore = tab.queue();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    QCOMPARE(finished[0][1].toBool(), true);
    QVERIFY2(tab.statusText().startsWith(QStringLiteral("Retrained on 8 labels in ")), qPrintable(tab.statusText()));
    QVERIFY2(ticks.statuses.count(QStringLiteral("Training on 8 labels… then scoring 60 texts")) == 1,
             qPrintable(QStringList(ticks.statuses.begin(), ticks.statuses.end()).join(QLatin1Char('|'))));
    QVERIFY2(tab.queue() != queueBefore, "the queue is planned again from the model's scores");
    QVERIFY(!tab.currentIsHeldOut() ? tab.suggestionText().startsWith(QStringLiteral("Model suggests: ")) : true);

    while (tab.labels().size() < 20)
        given.push_back(labelByKey(tab));
    QCOMPARE(started.size(), 2);
    QCOMPARE(started[1][0].toLongLong(), 20LL);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
    QCOMPARE(finished[1][1].toBool(), true);
    QVERIFY2(ticks.ticksInCycles > 10, "the event loop ran while the models trained");
    QVERIFY2(ticks.maxGap < 300, qPrintable(QStringLiteral("longest pause of the event loop: %1 ms").arg(ticks.maxGap)));

    checkSavedLabels(dir, given);
    if (QTest::currentTestFailed())
        return;
    checkCurve(tab, dir);
    if (!QTest::currentTestFailed())
        undoRelabelAndProject(tab, dir, root, given);
}

void tst_LabelTab::killedChildKeepsEveryLabel()
{
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    const QString dir = tmp.filePath(QStringLiteral("session"));
    writeLabelSession(labelSessionPath(dir.toStdString()), writeFixture(root, 5));
    QProcess child;
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--child"), dir});
    QVERIFY(child.waitForStarted());
    // Killed while its first model trains, with labels given meanwhile.
    QByteArray out;
    int last = 0;
    bool duringCycle = false;
    QElapsedTimer clock;
    clock.start();
    while (!(last >= 7 && duringCycle) && clock.elapsed() < 30000 && child.state() == QProcess::Running) {
        child.waitForReadyRead(100);
        out += child.readAllStandardOutput();
        for (const QByteArray &line : out.split('\n'))
            if (line.startsWith("labelled ")) {
                last = line.split(' ').value(1).toInt();
                duringCycle = last > 5 && line.split(' ').value(2) == "1";
            }
    }
    QVERIFY2(last >= 7 && duringCycle, out.constData());
    ::kill(pid_t(child.processId()), SIGKILL);
    QVERIFY(child.waitForFinished(5000));
    out += child.readAllStandardOutput();
    for (const QByteArray &line : out.split('\n'))
        if (line.startsWith("labelled "))
            last = line.split(' ').value(1).toInt();

    LabelTab tab;
    tab.openSession(dir);
    QTRY_VERIFY_WITH_TIMEOUT(tab.isLoaded(), 20000);
    QCOMPARE(int(tab.labels().size()), last);
    QCOMPARE(tab.labelledTable()->rowCount(), last);
    QVERIFY(tab.findChild<QLabel *>(QStringLiteral("labelSessionLine"))->text().contains(QStringLiteral(" — %1 labelled of 60 texts").arg(last)));
    for (const PoolLabel &l : tab.labels())
        QCOMPARE(l.label, std::string(isSpam(QString::fromStdString(l.text)) ? "spam" : "ham"));
    QVERIFY(!tab.shownText().isEmpty());
}

void tst_LabelTab::curvePlotLinesAndNotes()
{
    const auto point = [](int64_t labels, double accuracy, const std::string &strategy) {
        CurvePoint p;
        p.labels = labels;
        p.accuracy = accuracy;
        p.bag_of_words_accuracy = accuracy - 0.1;
        p.eval_examples = labels / 5;
        p.strategy = strategy;
        return p;
    };
    LabelCurvePlot plot;
    plot.setCurve({}, "uncertain_diverse", 1);
    QCOMPARE(plot.note(), QStringLiteral("No point yet: the curve is measured on texts kept aside, and needs at least 2 of "
                                         "them labelled (1 so far; one text in 5 shown is one)."));
    QCOMPARE(plot.modelPoints(), 0);
    // The session's order solid, the other order's points (the simulated annotator's) dashed.
    plot.setCurve({point(10, 0.6, "uncertain_diverse"), point(20, 0.7, "uncertain_diverse"), point(10, 0.55, "random")},
                  "uncertain_diverse", 4);
    QCOMPARE(plot.modelPoints(), 2);
    QCOMPARE(plot.baselinePoints(), 2);
    QCOMPARE(plot.ghostPoints(), 1);
    QCOMPARE(plot.note(), QStringLiteral("Accuracy of each model on the labelled texts kept aside when it was trained "
                                         "(4 for the last one); the grey line is the bag-of-words baseline on the "
                                         "same texts."));
    // More labels stopped helping: the coach's line.
    plot.setCurve({point(40, 0.81, ""), point(50, 0.82, ""), point(60, 0.815, "")}, "random", 12);
    QCOMPARE(plot.ghostPoints(), 0);
    QVERIFY2(plot.note().startsWith(QStringLiteral("The last 20 labels did not raise accuracy: between 81 % and 82 % "
                                                   "from 40 to 60 labels (3 models).")),
             qPrintable(plot.note()));
}

void tst_LabelTab::sessionDialogChecksItsFields()
{
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    LabelSessionSettings defaults = writeFixture(root, 10);
    defaults.label_names.clear();
    LabelSessionDialog dialog(defaults);
    QCOMPARE(dialog.problem(), QStringLiteral("Session folder: choose a folder for the session's files."));
    dialog.setFolder(tmp.filePath(QStringLiteral("session")));
    QCOMPARE(dialog.problem(), QStringLiteral("Texts to label: choose a text file (one text a line), a folder (one text a file) or a "
                                              "CSV/JSONL file."));
    dialog.setPool(tmp.filePath(QStringLiteral("nowhere.txt")));
    QCOMPARE(dialog.problem(), QStringLiteral("Texts to label: “%1” does not exist; choose a text file, a folder or a CSV/JSONL file.")
                                   .arg(tmp.filePath(QStringLiteral("nowhere.txt"))));
    dialog.setPool(tmp.filePath(QStringLiteral("pool.txt")));
    QCOMPARE(dialog.problem(), QStringLiteral("Labels: add at least two labels (Add label), e.g. spam and ham."));
    dialog.setLabels({QStringLiteral("ham"), QStringLiteral("spam,eggs")});
    QCOMPARE(dialog.problem(), QStringLiteral("Labels: the label “spam,eggs” holds “,”, which prepare reads as separating "
                                              "labels: choose a name without ',', ';' or '|'."));
    dialog.setLabels({QStringLiteral("ham"), QStringLiteral(" spam")});
    QCOMPARE(dialog.problem(), QStringLiteral("Labels: the label “ spam” starts or ends with white space."));
    dialog.setLabels({QStringLiteral("ham"), QStringLiteral("ham")});
    QCOMPARE(dialog.problem(), QStringLiteral("Labels: “ham” is there twice; rename one."));
    dialog.setLabels({QStringLiteral("ham"), QStringLiteral("spam"), QString()});
    QCOMPARE(dialog.problem(), QString());
    const LabelSessionSettings s = dialog.settings();
    QCOMPARE(s.label_names, (std::vector<std::string>{"ham", "spam"}));
    QCOMPARE(s.pool_path, root + "/pool.txt");
    QCOMPARE(s.bert_config_file, root + "/bert_config.json");
    QCOMPARE(s.vocab_file, root + "/vocab.txt");
    QCOMPARE(s.init_checkpoint, std::string());
    QCOMPARE(s.batch_size, int64_t(10));
    QCOMPARE(s.strategy, std::string("uncertain_diverse"));
}

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc == 3 && QByteArray(argv[1]) == "--child")
        return runChild(QString::fromLocal8Bit(argv[2]));
    tst_LabelTab test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_labeltab.moc"
