// SPDX-License-Identifier: Apache-2.0
// Issue 44 item 8: the window speaks in its field labels. After the actions a class does first
// (the example opened as File → Open Example and --example open it, on a machine whose Hub
// cannot be reached; Train with a field left empty; the Sweep dialog's Start with no option;
// Start from a model in a Hugging Face cache made here), no widget shown, in any tab but the
// Log, says a command-line flag (--name), a cache folder (models--org--name) or a snapshot's
// 40-hex commit.
#include "core/hub/pretrainedmodel.h"
#include "core/prepare/exampledata.h"
#include "support/hubtestserver.h"
#include "support/windowfixtures.h"
#include "tinyrun.h"
#include "ui/dialogs/exampleloader.h"
#include "ui/form/configurationform.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"
#include "ui/window/sweepdialog.h"

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextEdit>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace wb;

namespace {

const std::string kTiny = kExamplePretrainedModel; // BERT-Tiny's id, served by the stand-in below

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string fixture(const std::string &name) { return std::string(WB_TEST_DATA_DIR) + "/pretrained/tiny-bert-zip/" + name; }

/// What the window must never show: a flag, a cache folder, a snapshot's commit.
const QRegularExpression &cliWords()
{
    static const QRegularExpression re(QStringLiteral("--[a-z_]+|models--|\\b[0-9a-f]{40}\\b"));
    return re;
}

/// Whether `w` lies in the Log tab (its lines are the run's record, flags and paths included).
bool inLog(const QWidget *w)
{
    for (; w; w = w->parentWidget())
        if (w->objectName() == QLatin1String("logTab"))
            return true;
    return false;
}

/// The texts a visible widget shows (labels, buttons, placeholders, status messages, text
/// boxes, combo boxes, tab titles, table cells, message boxes).
QStringList textsOf(QWidget *w)
{
    QStringList out;
    if (auto *l = qobject_cast<QLabel *>(w))
        out << l->text();
    else if (auto *b = qobject_cast<QAbstractButton *>(w))
        out << b->text();
    else if (auto *e = qobject_cast<QLineEdit *>(w))
        out << e->placeholderText();
    else if (auto *s = qobject_cast<QStatusBar *>(w))
        out << s->currentMessage();
    else if (auto *t = qobject_cast<QTextEdit *>(w))
        out << t->toPlainText();
    else if (auto *p = qobject_cast<QPlainTextEdit *>(w))
        out << p->toPlainText();
    else if (auto *c = qobject_cast<QComboBox *>(w))
        out << c->currentText();
    else if (auto *g = qobject_cast<QGroupBox *>(w))
        out << g->title();
    else if (auto *tabs = qobject_cast<QTabBar *>(w))
        for (int i = 0; i < tabs->count(); ++i)
            out << tabs->tabText(i);
    if (auto *box = qobject_cast<QMessageBox *>(w))
        out << box->text() << box->informativeText();
    if (auto *view = qobject_cast<QAbstractItemView *>(w); view && view->model()
                                                           && !qobject_cast<QComboBox *>(w->parentWidget())) {
        const QAbstractItemModel *m = view->model();
        for (int r = 0; r < m->rowCount(); ++r)
            for (int c = 0; c < m->columnCount(); ++c)
                out << m->data(m->index(r, c)).toString();
        for (int c = 0; c < m->columnCount(); ++c)
            out << m->headerData(c, Qt::Horizontal).toString();
    }
    return out;
}

/// Every text shown now by a visible widget outside the Log, each as "<object or class>: text".
QStringList shownTexts()
{
    QStringList out;
    for (QWidget *w : QApplication::allWidgets()) {
        if (!w->isVisible() || inLog(w))
            continue;
        const QString who = w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
        for (const QString &t : textsOf(w))
            if (!t.isEmpty())
                out << who + QStringLiteral(": ") + t;
    }
    return out;
}

/// The texts shown in each tab of `w` in turn (the form and the status bar with each) that
/// say a CLI word; `seen` counts the texts looked at.
QStringList cliWordsShown(MainWindow &w, int *seen)
{
    QStringList bad;
    auto *tabs = w.findChild<QTabWidget *>();
    const int current = tabs->currentIndex();
    for (int i = 0; i < tabs->count(); ++i) {
        if (!tabs->isTabVisible(i) || tabs->widget(i)->objectName() == QLatin1String("logTab"))
            continue;
        tabs->setCurrentIndex(i);
        QCoreApplication::processEvents();
        for (const QString &t : shownTexts()) {
            ++*seen;
            if (cliWords().match(t).hasMatch() && !bad.contains(t))
                bad << t;
        }
    }
    tabs->setCurrentIndex(current);
    return bad;
}

} // namespace

class tst_WindowWords : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const char *name) const { return m_dir.filePath(QLatin1String(name)); }

    /// Fails with the texts that say CLI words, after `step`.
    void checkNoCliWords(MainWindow &w, const char *step)
    {
        int seen = 0;
        const QStringList bad = cliWordsShown(w, &seen);
        qInfo("%s: %d texts looked at", step, seen);
        QVERIFY(seen > 50);
        QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("%1:\n  %2").arg(QLatin1String(step), bad.join(QStringLiteral("\n  ")))));
    }

private Q_SLOTS:
    void initTestCase()
    {
        wbtest::useTestSettings();
        QVERIFY(m_dir.isValid());
        qputenv("HF_HOME", path("hf_home").toUtf8());
        qunsetenv("HF_HUB_CACHE");
        qunsetenv("HUGGINGFACE_HUB_CACHE");
        qunsetenv("HF_TOKEN");
        qputenv("HF_ENDPOINT", QByteArrayLiteral("http://127.0.0.1:9")); // nothing listens: no network
        qputenv("HF_HUB_OFFLINE", QByteArrayLiteral("1"));
    }

    void cleanupTestCase()
    {
        qunsetenv("HF_HOME");
        qunsetenv("HF_ENDPOINT");
        qunsetenv("HF_HUB_OFFLINE");
    }

    void noFlagOrCachePathOnScreen();

private:
    /// BERT-Tiny in the Hugging Face cache, downloaded from a local stand-in for the Hub.
    void fillHuggingFaceCacheWithTiny()
    {
        wbtest::HubTestServer hub;
        wbtest::HubTestRepo repo;
        repo.commit = std::string(40, 'c');
        repo.files["config.json"].content = readAll(fixture("config.json"));
        std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
        for (int i = 5; i < 40; ++i)
            vocab += "w" + std::to_string(i) + "\n";
        repo.files["vocab.txt"].content = vocab;
        repo.files["pytorch_model.bin"].content = readAll(fixture("pytorch_model.bin"));
        repo.files["pytorch_model.bin"].lfs = true;
        hub.addRepo(kTiny, repo);
        HubSettings settings = HubSettings::fromEnvironment();
        settings.offline = false;
        settings.endpoint = hub.endpoint();
        const PretrainedModel m = resolvePretrainedModel(kTiny, settings, {}, StopToken{});
        QVERIFY2(QString::fromStdString(m.folder).contains(QStringLiteral("models--google--")), m.folder.c_str());
    }
};

void tst_WindowWords::noFlagOrCachePathOnScreen()
{
    MainWindow w;
    w.resize(1024, 700);
    w.show();

    // 1. The example, as --example opens it on a machine without the pretrained BERT-Tiny: the
    // loader's last step (ExampleLoader::chooseStart) finds no model, then prepared() opens it.
    const TrainingOptions tiny = wbtest::writeTinyRun(m_dir.path().toStdString() + "/example-data");
    ExampleDataPaths paths;
    paths.cache_dir = m_dir.path().toStdString();
    paths.project_dir = path("example-spam").toStdString();
    QVERIFY(QDir().mkpath(path("example-spam")));
    paths.bert_config_file = tiny.bert_config_file;
    paths.train_data_path = tiny.train_data_path;
    paths.eval_data_path = tiny.eval_data_path;
    paths.meta_data_path = tiny.input_meta_data_path;
    ExampleLoader::chooseStart(paths, StopToken{});
    QVERIFY2(paths.pretrained_model.empty(), paths.start_note.c_str());
    QVERIFY2(paths.start_note.find("(looked for it in the Hugging Face cache, ") != std::string::npos,
             paths.start_note.c_str()); // the core's words for the window: the cache, not its folder of the model
    QSignalSpy ready(&w, &MainWindow::exampleReady);
    Q_EMIT w.findChild<ExampleLoader *>()->prepared(paths);
    QTRY_COMPARE(ready.count(), 1);
    QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("Example loaded.")));
    checkNoCliWords(w, "the example opened offline");

    // 2. Train with Training data left empty: the check lists it by its label.
    auto *form = w.findChild<ConfigurationForm *>();
    form->findChild<QLineEdit *>(QStringLiteral("train_data_path"))->clear();
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    QVERIFY(!w.train() || checked.wait(60000));
    auto *invalid = w.findChild<QMessageBox *>(QStringLiteral("validationDialog"));
    QVERIFY(invalid);
    QTRY_VERIFY(invalid->isVisible());
    QVERIFY2(invalid->text().contains(QStringLiteral("Training data: no training data was given")), qPrintable(invalid->text()));
    checkNoCliWords(w, "Train with an empty field");
    invalid->button(QMessageBox::Ok)->click();
    QTRY_VERIFY(!invalid->isVisible());
    form->findChild<QLineEdit *>(QStringLiteral("train_data_path"))->setText(QString::fromStdString(tiny.train_data_path));

    // 3. The Sweep dialog's Start with no option to vary.
    SweepDialog *sweep = w.openSweepDialog();
    QVERIFY(sweep);
    QTRY_VERIFY(sweep->isVisible());
    sweep->findChild<QPushButton *>(QStringLiteral("startSweep"))->click();
    auto *plan = sweep->findChild<QLabel *>(QStringLiteral("sweepPlanText"));
    QVERIFY2(plan->text().startsWith(QStringLiteral("\u201cSweep \u2192 values of an option\u201d: a sweep needs at least "
                                                    "one option to vary")),
             qPrintable(plan->text()));
    QVERIFY(sweep->isVisible()); // nothing started
    checkNoCliWords(w, "the Sweep dialog without an option");
    sweep->reject();

    // 4. Start from BERT-Tiny, now in a Hugging Face cache filled here from a local stand-in
    // for the Hub; the window reads it offline.
    fillHuggingFaceCacheWithTiny();
    if (QTest::currentTestFailed())
        return;
    QSignalSpy filled(form, &ConfigurationForm::startModelFilled);
    auto *picker = form->findChild<QComboBox *>(QStringLiteral("pretrained_model"));
    picker->setFocus(Qt::OtherFocusReason);
    picker->lineEdit()->selectAll();
    QTest::keyClicks(picker->lineEdit(), QString::fromStdString(kTiny));
    QTest::keyClick(picker->lineEdit(), Qt::Key_Return);
    QVERIFY(filled.count() == 1 || filled.wait(30000));
    QVERIFY2(form->findChild<QLineEdit *>(QStringLiteral("bert_config_file"))->text().contains(QStringLiteral("models--")),
             "the field holds the file's path; the words around it do not");
    checkNoCliWords(w, "Start from a cached model");
}

QTEST_MAIN(tst_WindowWords)
#include "tst_windowwords.moc"
