// SPDX-License-Identifier: Apache-2.0
// `classify --input_file` with files that hold no texts: a folder, a binary file, an empty
// file. Each is named in a clear message before any model is loaded (here --model_dir does
// not exist, so a run that got past the input would fail on the model instead).
#include "clirun.h"
#include "core/prepare/textrows.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

class tst_CliClassifyInput : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }
    std::string noModel() const { return "--model_dir=" + path("no-such-run"); }

private Q_SLOTS:
    void folderIsAnError()
    {
        QVERIFY(m_dir.isValid());
        std::string out, err;
        const int code = wbtest::runCli({"classify", noModel(), "--input_file=" + m_dir.path().toStdString()}, out, err);
        QCOMPARE(code, 2);
        QVERIFY2(err.find("error: input_file: '" + m_dir.path().toStdString() + "' is a folder, not a file")
                     != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("no-such-run") == std::string::npos, err.c_str()); // stopped before the model
        QCOMPARE(out, std::string());
    }

    void binaryFileIsAnError()
    {
        {
            std::ofstream f(path("model.bin"), std::ios::binary);
            const char bytes[] = {'\x7f', 'E', 'L', 'F', '\x02', '\x01', '\x01', '\0', '\0', '\n', 'a', 'b', '\n'};
            f.write(bytes, sizeof bytes);
        }
        std::string out, err;
        const int code = wbtest::runCli({"classify", noModel(), "--input_file=" + path("model.bin")}, out, err);
        QCOMPARE(code, 2);
        QVERIFY2(err.find("is not a text file (a NUL byte at offset 7)") != std::string::npos, err.c_str());
        QCOMPARE(out, std::string());
    }

    void emptyFileIsNamed()
    {
        std::ofstream(path("empty.txt")).flush();
        std::string out, err;
        wbtest::runCli({"classify", noModel(), "--input_file=" + path("empty.txt")}, out, err);
        QVERIFY2(err.find("warning: input_file: '" + path("empty.txt") + "' holds no text to classify") != std::string::npos,
                 err.c_str());
    }

    void latin1TextIsStillRead()
    {
        // Bytes above 0x7f without NUL (a Latin-1 file) are text: no "not a text file".
        std::ofstream(path("latin1.txt"), std::ios::binary) << "caf\xe9 au lait\n";
        std::string out, err;
        wbtest::runCli({"classify", noModel(), "--input_file=" + path("latin1.txt")}, out, err);
        QVERIFY2(err.find("not a text file") == std::string::npos, err.c_str());
        QVERIFY2(err.find("holds no text") == std::string::npos, err.c_str());
    }

    void semicolonCsvIsSplit()
    {
        // A spreadsheet's CSV export in a decimal-comma locale: ';' between fields, found from
        // the header as prepare finds it; the text column is recognised (the run then stops
        // at the missing model, not at the columns).
        std::ofstream(path("export.csv"), std::ios::binary) << "id;text\r\n1;free cash now\r\n2;\"see you; at 3\"\r\n";
        std::string out, err;
        const int code = wbtest::runCli({"classify", noModel(), "--input_file=" + path("export.csv")}, out, err);
        QCOMPARE(code, 2);
        QVERIFY2(err.find("id;text") == std::string::npos, err.c_str());
        QVERIFY2(err.find("text column") == std::string::npos, err.c_str());
        QCOMPARE(wb::detectCsvDelimiter("id;text\r\n1;a,b\n"), ';');
        QCOMPARE(wb::detectCsvDelimiter("\xEF\xBB\xBFid;text\n"), ';');
        QCOMPARE(wb::detectCsvDelimiter("id,text;x\n"), ',');
        QCOMPARE(wb::detectCsvDelimiter(""), ',');
    }

    /// Issue 23, kind 4: classify's numeric options are range-checked before the input or the
    /// model is read, exit 2 (was: --max_seq_length=-1 silently used the meta data's,
    /// --batch_size=0 a range "0 to 1.8e308").
    void rangesCheckedFirst()
    {
        const std::vector<std::pair<std::string, std::string>> cases{
            {"--max_seq_length=-1", "error: max_seq_length: max_seq_length is -1; it must be between 0 and 100000\n"
                                    "  hint: the default is 0; 0 means the meta data's (or tokenizer_config.json's) "
                                    "max_seq_length\n"},
            {"--batch_size=0", "error: batch_size: batch_size is 0; it must be between 1 and 65536\n"},
            {"--batch_size=100000000000", "error: batch_size: batch_size is 100000000000; it must be between 1 and 65536\n"},
            {"--num_threads=-2", "error: num_threads: num_threads is -2; it must be between 0 and 4096\n"},
        };
        for (const auto &[flag, expected] : cases) {
            std::string out, err;
            const int code = wbtest::runCli({"classify", noModel(), "--text=hello", flag}, out, err);
            QCOMPARE(code, 2);
            QVERIFY2(err.find(expected) != std::string::npos, (flag + ": " + err).c_str());
            QVERIFY2(err.find("no-such-run") == std::string::npos, err.c_str()); // before the model
        }
    }

    /// Issue 23, kind 2: the reader is prepare's (core/prepare/textinput.h): a .jsonl's records
    /// are read by key before the model is loaded, a record without the text is named by line.
    void jsonLinesReadByKey()
    {
        std::ofstream(path("in.jsonl"), std::ios::binary) << "{\"text\": \"free cash\"}\n{\"label\": 1}\n";
        std::string out, err;
        QCOMPARE(wbtest::runCli({"classify", noModel(), "--input_file=" + path("in.jsonl")}, out, err), 2);
        QVERIFY2(err.find("error: " + path("in.jsonl") + ":2: the record has no 'text'\n") != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("no-such-run") == std::string::npos, err.c_str());
    }
};

QTEST_GUILESS_MAIN(tst_CliClassifyInput)
#include "tst_cliclassifyinput.moc"
