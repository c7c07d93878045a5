// SPDX-License-Identifier: Apache-2.0
// File → Export Model… (issue 26): the dialog exports a tiny run off the GUI thread, the folder
// holds the export's files (onnx/model.onnx when ONNX is on, none when off; the Web demo's page and
// onnxruntime-web files, from the npm cache, when asked),
// and the dialog's final text says which checkpoint went where and lists the files; a non-empty
// folder is refused unless "Replace" is checked. The window's File menu opens it on the form's
// model_dir. The dialog and `bert-workbench-cli export` of the same run write the same files
// (one path: planRun for an export, then the one export folder writer).
#include "ui/dialogs/exportdialog.h"
#include "cli/clirun.h"
#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/formats/onnxruntimeweb.h"
#include "core/launch/trainer.h"
#include "tinyrun.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> entries(const std::string &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

/// Every file under `dir`, relative to it, sorted.
std::vector<std::string> filesUnder(const std::string &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            names.push_back(fs::relative(e.path(), dir).string());
    std::sort(names.begin(), names.end());
    return names;
}

/// The names of "Exported <ckpt> to <folder>:"'s list ("  model.safetensors  (17.2 kB)" lines).
std::vector<std::string> listedFiles(const std::string &text)
{
    std::vector<std::string> names;
    std::istringstream in(text);
    bool listing = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("Exported ", 0) == 0) {
            listing = true;
            names.clear();
        } else if (listing && line.rfind("  ", 0) == 0) {
            names.push_back(line.substr(2, line.find("  (", 2) - 2));
        } else {
            listing = false;
        }
    }
    return names;
}

std::string bytesOf(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

class tst_ExportDialog : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_modelDir;

    std::string root() const { return m_tmp.path().toStdString(); }

    /// Runs the dialog's export and waits for its end; returns exportFinished's `ok`.
    static bool exportWith(ExportDialog &d)
    {
        QSignalSpy finished(&d, &ExportDialog::exportFinished);
        if (!d.findChild<QPushButton *>(QStringLiteral("runExport"))->isEnabled())
            return false;
        d.findChild<QPushButton *>(QStringLiteral("runExport"))->click();
        if (!finished.wait(120000))
            return false;
        return finished.front().at(0).toBool();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        wbtest::TinyRun p;
        p.train_size = 16;
        p.eval_size = 8;
        p.max_seq_length = 8;
        p.num_hidden_layers = 1;
        p.num_train_epochs = 1;
        TrainingOptions o = wbtest::writeTinyRun(root() + "/project", p);
        wbtest::writeTinyVocab(root() + "/project/vocab.txt");
        o.vocab_file = root() + "/project/vocab.txt";
        o.do_lower_case = "true";
        m_modelDir = o.model_dir;
        TrainingObserver quiet;
        StopToken stop;
        const RunFinished r = Trainer().run(o, quiet, stop);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    }

    void exportsTheRunAndSaysWhatItWrote()
    {
        ExportDialog d(QString::fromStdString(m_modelDir));
        d.show(); // laid out: its result scrolls
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("exportModelDir"))->text(), QString::fromStdString(m_modelDir));
        const auto *checkpoint = d.findChild<QComboBox *>(QStringLiteral("exportCheckpoint"));
        QCOMPARE(checkpoint->currentData().toString(), QString()); // the best when kept, else the latest
        QCOMPARE(checkpoint->itemData(1).toString(), QStringLiteral("latest"));
        QVERIFY(d.findChild<QCheckBox *>(QStringLiteral("exportOnnx"))->isChecked());
        const auto *dtype = d.findChild<QComboBox *>(QStringLiteral("exportOnnxDtype"));
        QCOMPARE(dtype->currentData().toString(), QStringLiteral("fp32")); // the default, as the CLI's
        QCOMPARE(dtype->itemData(1).toString(), QStringLiteral("int8"));
        const std::string target = root() + "/exports/with-onnx";
        d.setExportFolder(QString::fromStdString(target));
        QVERIFY2(exportWith(d), qPrintable(d.resultText()));
        QCOMPARE(entries(target),
                 (std::vector<std::string>{"README.md", "bert_config.json", "config.json", "input_meta_data.json",
                                           "labels.txt", "model.safetensors", "onnx", "special_tokens_map.json",
                                           "tokenizer.json", "tokenizer_config.json", "vocab.txt"}));
        QVERIFY(fs::file_size(target + "/onnx/model.onnx") > 10000);
        // The final text: the checkpoint (no best kept: the latest), the folder, one line per file.
        const QString text = d.resultText();
        // Its end is in view: the list's last lines (issue 44, item 11).
        const QScrollBar *scroll = d.findChild<QPlainTextEdit *>(QStringLiteral("exportResult"))->verticalScrollBar();
        QCoreApplication::processEvents();
        QVERIFY(scroll->maximum() > 0);
        QCOMPARE(scroll->value(), scroll->maximum());
        const QString latest = QString::fromStdString(m_modelDir + "/ckpt-2");
        QVERIFY2(text.contains(QStringLiteral("Exported %1 to %2:").arg(latest, QString::fromStdString(target))),
                 qPrintable(text));
        for (const char *f : {"model.safetensors", "config.json", "tokenizer.json", "onnx/model.onnx", "README.md"})
            QVERIFY2(text.contains(QStringLiteral("\n  %1  (").arg(QLatin1String(f))), qPrintable(text + QStringLiteral(" / ") + QLatin1String(f)));

        // Again into the same folder: refused (it is not empty) and nothing changes …
        QVERIFY(!exportWith(d));
        QVERIFY2(d.resultText().contains(
                     QStringLiteral("cannot export into %1: the folder is not empty").arg(QString::fromStdString(target))),
                 qPrintable(d.resultText()));
        // … unless Replace is checked; without ONNX there is no onnx/ nor demo/.
        d.findChild<QCheckBox *>(QStringLiteral("exportOverwrite"))->setChecked(true);
        d.findChild<QCheckBox *>(QStringLiteral("exportOnnx"))->setChecked(false);
        QVERIFY2(exportWith(d), qPrintable(d.resultText()));
        QVERIFY(!fs::exists(target + "/onnx"));
        QVERIFY(!fs::exists(target + "/demo"));
        QVERIFY(fs::exists(target + "/model.safetensors"));
        QVERIFY(!d.resultText().contains(QStringLiteral("onnx/model.onnx")));
    }

    /// The ONNX weights' number format is the CLI's --onnx_dtype: int8 writes the quantized graph
    /// and its report; with ONNX off there is no format to choose.
    void int8WeightsWhenChosen()
    {
        ExportDialog d(QString::fromStdString(m_modelDir));
        auto *dtype = d.findChild<QComboBox *>(QStringLiteral("exportOnnxDtype"));
        auto *onnx = d.findChild<QCheckBox *>(QStringLiteral("exportOnnx"));
        onnx->setChecked(false);
        QVERIFY(!dtype->isEnabled());
        onnx->setChecked(true);
        QVERIFY(dtype->isEnabled());
        dtype->setCurrentIndex(1);
        const std::string target = root() + "/exports/int8";
        d.setExportFolder(QString::fromStdString(target));
        QVERIFY2(exportWith(d), qPrintable(d.resultText()));
        std::ifstream in(target + "/onnx/quantization.json");
        const std::string report((std::istreambuf_iterator<char>(in)), {});
        QVERIFY2(report.find("\"int8\"") != std::string::npos, report.c_str());
    }

    void webDemoTakesOnnxRuntimeWebFromTheCache()
    {
        ExportDialog d(QString::fromStdString(m_modelDir));
        auto *onnx = d.findChild<QCheckBox *>(QStringLiteral("exportOnnx"));
        auto *demo = d.findChild<QCheckBox *>(QStringLiteral("exportDemo"));
        QVERIFY(demo);
        QVERIFY(demo->text().startsWith(QStringLiteral("Web demo")));
        QVERIFY(!demo->isChecked()); // it downloads onnxruntime-web once: asked for
        onnx->setChecked(false);     // the page runs onnx/model.onnx
        QVERIFY(!demo->isEnabled());
        onnx->setChecked(true);
        QVERIFY(demo->isEnabled());
        demo->setChecked(true);

        // Offline, with an empty cache: the error names the cached tarball it needs; nothing is written.
        const QByteArray oldCache = qgetenv("XDG_CACHE_HOME"), oldOffline = qgetenv("HF_HUB_OFFLINE");
        const std::string cache = root() + "/xdg-cache";
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(cache));
        qputenv("HF_HUB_OFFLINE", "1");
        const std::string target = root() + "/exports/with-demo";
        d.setExportFolder(QString::fromStdString(target));
        const std::string version = onnxRuntimeWebPin().version;
        const std::string folder = cache + "/bert-workbench/npm-packages/onnxruntime-web-" + version;
        const bool refused = !exportWith(d);
        const QString refusal = d.resultText();
        // The cache holding the release's files (as an earlier export left them): used offline.
        fs::create_directories(folder + "/dist");
        for (const auto &f : onnxRuntimeWebFiles())
            std::ofstream(folder + "/dist/" + f) << "cached " << f;
        const bool exported = exportWith(d);
        const QString text = d.resultText();
        qputenv("HF_HUB_OFFLINE", oldOffline);
        if (oldCache.isEmpty())
            qunsetenv("XDG_CACHE_HOME");
        else
            qputenv("XDG_CACHE_HOME", oldCache);
        QVERIFY(refused);
        QVERIFY2(refusal.contains(QString::fromStdString("error: " + folder + ".tgz: onnxruntime-web@" + version
                                                         + " is not in the cache and offline mode is on")),
                 qPrintable(refusal));
        QVERIFY2(exported, qPrintable(text));
        QVERIFY(fs::exists(target + "/demo/index.html"));
        for (const auto &f : onnxRuntimeWebFiles()) {
            std::ifstream in(target + "/demo/ort/" + f);
            std::string line;
            std::getline(in, line);
            QCOMPARE(line, "cached " + f);
            QVERIFY2(text.contains(QString::fromStdString("\n  demo/ort/" + f + "  (")), qPrintable(text));
        }
        QVERIFY2(text.contains(QString::fromStdString("note: the web demo runs on onnxruntime-web " + version + " from "
                                                      + folder + "/dist")),
                 qPrintable(text));
    }

    /// The window's export and the CLI's of the same run: the same options from the run's files,
    /// the same checkpoint, the same files listed and written, the same bytes.
    void windowAndCliWriteTheSameFiles()
    {
        ExportDialog d(QString::fromStdString(m_modelDir));
        const std::string windowTarget = root() + "/same/window/export", cliTarget = root() + "/same/cli/export";
        d.setExportFolder(QString::fromStdString(windowTarget));
        QVERIFY2(exportWith(d), qPrintable(d.resultText()));
        std::string out, err;
        QCOMPARE(wbtest::runCli({"export", "--model_dir=" + m_modelDir, "--model_export_path=" + cliTarget}, out, err), 0);
        const std::vector<std::string> expected{"model.safetensors",       "config.json",
                                                "bert_config.json",        "input_meta_data.json",
                                                "labels.txt",              "vocab.txt",
                                                "tokenizer.json",          "tokenizer_config.json",
                                                "special_tokens_map.json", "onnx/model.onnx",
                                                "README.md"};
        QCOMPARE(listedFiles(d.resultText().toStdString()), expected);
        QCOMPARE(listedFiles(out), expected);
        QCOMPARE(filesUnder(windowTarget), filesUnder(cliTarget));
        // The notes are the same too (the run's files fill the options, one_device), each in its
        // front-end's words: the window names the field, the command line the flag.
        const QString text = d.resultText();
        QVERIFY2(text.contains(QStringLiteral("note: “Distribution strategy” not given: one_device (export runs in "
                                              "this process)")),
                 qPrintable(text));
        QVERIFY2(err.find("note: --distribution_strategy not given: one_device (export runs in this process)")
                     != std::string::npos,
                 err.c_str());
        for (const char *f : {"model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json", "README.md"})
            QVERIFY2(bytesOf(windowTarget + "/" + f) == bytesOf(cliTarget + "/" + f), f);
    }

    void fileMenuOpensItOnTheFormsModelDir()
    {
        MainWindow w;
        QAction *action = nullptr;
        for (QAction *a : w.menuBar()->findChildren<QAction *>())
            if (a->objectName() == QStringLiteral("exportModelAction"))
                action = a;
        QVERIFY(action);
        QVERIFY(action->text().remove(QLatin1Char('&')).contains(QStringLiteral("Export Model")));
        ExportDialog *d = w.openExportDialog();
        QVERIFY(d);
        QVERIFY(d->isVisible());
        QCOMPARE(d->findChild<QLineEdit *>(QStringLiteral("exportModelDir"))->text(),
                 QString::fromStdString(w.options().model_dir));
    }
};

QTEST_MAIN(tst_ExportDialog)
#include "tst_exportdialog.moc"
