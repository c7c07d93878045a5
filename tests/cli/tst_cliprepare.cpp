// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace wb::cli;

class tst_CliPrepare : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    void write(const QString &rel, const std::string &text)
    {
        const QString p = m_dir.path() + QLatin1Char('/') + rel;
        QDir().mkpath(QFileInfo(p).absolutePath());
        std::ofstream(p.toStdString(), std::ios::binary) << text;
    }

private Q_SLOTS:
    void preparesFolders()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        for (int i = 0; i < 5; ++i) {
            write(QStringLiteral("in/ham/%1.txt").arg(i), "hello");
            write(QStringLiteral("in/spam/%1.txt").arg(i), "spam spam");
        }
        const std::string dir = m_dir.path().toStdString();
        std::ostringstream out, err;
        const int rc = runCli({"prepare", "--input_data_dir=" + dir + "/in", "--vocab_file", dir + "/vocab.txt",
                               "--max_seq_length=16", "--output_dir=" + dir + "/out", "--eval_fraction=0.2"},
                              out, err);
        QVERIFY2(rc == kExitOk, err.str().c_str());
        QVERIFY(out.str().find("(8 examples)") != std::string::npos);
        QVERIFY(out.str().find("0=ham, 1=spam") != std::string::npos);
        std::ifstream meta(dir + "/out/input_meta_data.json");
        const std::string text((std::istreambuf_iterator<char>(meta)), {});
        QVERIFY(text.find("\"eval_data_size\": 2") != std::string::npos);
    }

    void reportsBadInput()
    {
        std::ostringstream out, err;
        const int rc = runCli({"prepare", "--input_data_dir=/nonexistent", "--vocab_file=/nonexistent/vocab.txt",
                               "--output_dir=/tmp/x"},
                              out, err);
        QCOMPARE(rc, int(kExitInvalid));
        QVERIFY2(err.str().find("error: input_data_dir: '/nonexistent' does not exist") != std::string::npos,
                 err.str().c_str());
    }
};

QTEST_APPLESS_MAIN(tst_CliPrepare)
#include "tst_cliprepare.moc"
