// SPDX-License-Identifier: Apache-2.0
// Issue 47 (label to learn): the labels file (core/label/labelstore.h): exact records, every cut of
// a file read as exactly its complete records, a child killed while appending, undo and relabel as
// atomic rewrites, the reader's errors, and prepare reading the file as it is.
#include "core/label/labelstore.h"
#include "core/prepare/dataprep.h"
#include "core/prepare/textinput.h"
#include "core/util/error.h"

#include <QtTest>

#include <QElapsedTimer>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

using namespace wb;

namespace {

PoolLabel make(const std::string &text, const std::string &label, const std::string &file, int64_t line,
               const std::string &suggested, const std::string &time)
{
    PoolLabel l;
    l.text = text;
    l.label = label;
    l.file = file;
    l.line = line;
    l.suggested_label = suggested;
    l.time = time;
    return l;
}

// The i-th label of the longer tests: texts with commas, quotes, line breaks, CRLF and UTF-8.
PoolLabel nth(int i)
{
    static const char *const kinds[] = {"plain words", "a, comma", "she said \"hi\"", "two\nlines", "crlf\r\nline",
                                        " leading space", "Grüße, 東京"};
    const std::string text = std::string(kinds[i % 7]) + " #" + std::to_string(i);
    const int ms = i % 1000;
    return make(text, i % 3 == 0 ? "spam" : "ham", "pool.txt", i + 1, i % 2 ? "spam" : "",
                "2026-12-06T00:10:" + std::string(i % 60 < 10 ? "0" : "") + std::to_string(i % 60) + "."
                    + std::string(ms < 10 ? "00" : ms < 100 ? "0" : "") + std::to_string(ms) + "Z");
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string errorOf(const std::string &bytes)
{
    try {
        parseLabelsCsv(bytes, "l.csv");
    } catch (const Error &e) {
        return e.field() + " | " + e.what();
    }
    return "no error";
}

bool same(const PoolLabel &a, const PoolLabel &b)
{
    return a.text == b.text && a.label == b.label && a.file == b.file && a.line == b.line
           && a.suggested_label == b.suggested_label && a.time == b.time;
}

} // namespace

class tst_LabelStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recordsAreExact()
    {
        const std::vector<PoolLabel> labels = {
            make("Win a prize, now!", "spam", "mails.txt", 12, "spam", "2026-12-06T00:10:03.250Z"),
            make("She said \"hi\"\nthen left", "ham", "ham/0042.txt", 0, "", "2026-12-06T00:10:04Z"),
            make(" padded", "ham", "", 0, "spam", "2026-12-06T00:10:05.000Z")};
        const std::string text = labelsCsv(labels);
        QCOMPARE(text, std::string("text,label,file,line,suggested_label,time\n"
                                   "\"Win a prize, now!\",spam,mails.txt,12,spam,2026-12-06T00:10:03.250Z\n"
                                   "\"She said \"\"hi\"\"\nthen left\",ham,ham/0042.txt,,,2026-12-06T00:10:04Z\n"
                                   "\" padded\",ham,,,spam,2026-12-06T00:10:05.000Z\n"));
        const LabelsRead back = parseLabelsCsv(text, "l.csv");
        QCOMPARE(back.labels.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i)
            QVERIFY(same(back.labels[i], labels[i]));
        QCOMPARE(back.labels[1].source_line, int64_t(3));
        QCOMPARE(back.labels[2].source_line, int64_t(5)); // the quoted line break counts
        QCOMPARE(back.complete_bytes, uint64_t(text.size()));
        QVERIFY(back.cut_tail.empty());
        QVERIFY(!back.missing_line_end);
        const std::string now = labelTimeNow();
        QVERIFY2(std::regex_match(now, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")), now.c_str());
    }

    /// Every prefix of a file (a write cut at any byte) reads as exactly the records that end in it:
    /// the cut record is dropped and named, never read as a label.
    void everyCutReadsTheCompleteRecords()
    {
        std::vector<PoolLabel> labels;
        for (int i = 0; i < 14; ++i)
            labels.push_back(nth(i));
        const std::string file = labelsCsv(labels);
        std::vector<size_t> ends = {std::strlen(labelsCsvHeader())}; // ends[k]: after record k's "\n"
        for (const PoolLabel &l : labels)
            ends.push_back(ends.back() + labelCsvRecord(l).size());
        QCOMPARE(ends.back(), file.size());
        for (size_t cut = 0; cut <= file.size(); ++cut) {
            const LabelsRead r = parseLabelsCsv(std::string_view(file).substr(0, cut), "l.csv");
            size_t whole = 0; // records whose bytes, less the line end, are all there
            for (size_t k = 1; k < ends.size(); ++k)
                whole += ends[k] - 1 <= cut ? 1 : 0;
            QCOMPARE(r.labels.size(), whole);
            for (size_t k = 0; k < whole; ++k)
                QVERIFY2(same(r.labels[k], labels[k]), std::to_string(cut).c_str());
            const bool atEnd = std::find(ends.begin(), ends.end(), cut) != ends.end() || cut == 0;
            const bool noLineEnd = std::find(ends.begin(), ends.end(), cut + 1) != ends.end();
            QVERIFY2(r.cut_tail.empty() == (atEnd || noLineEnd), std::to_string(cut).c_str());
            QCOMPARE(r.missing_line_end, noLineEnd);
            QCOMPARE(r.complete_bytes, uint64_t(atEnd || noLineEnd ? cut : (cut >= ends[0] ? ends[whole] : 0)));
        }
        const LabelsRead cut = parseLabelsCsv(std::string_view(file).substr(0, ends[3] + 5), "l.csv");
        QCOMPARE(cut.cut_tail, std::string("l.csv:5: the last record was cut off while it was being saved (5 bytes, "
                                           "no line end): it is left out; the label being saved when the program "
                                           "stopped was not saved"));
    }

    /// A child writes half a record and exits (fork + _exit): the reader drops that half, open()
    /// truncates it away, and the next label follows the complete ones.
    void childExitingMidAppendLosesOnlyThatLabel()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/labels.csv";
        const std::string half = labelCsvRecord(nth(5)).substr(0, 17);
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                LabelStore store = LabelStore::open(path);
                for (int i = 0; i < 5; ++i)
                    store.append(nth(i));
                std::ofstream(path, std::ios::binary | std::ios::app) << half;
            } catch (...) {
                ::_exit(1);
            }
            ::_exit(0);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QCOMPARE(WEXITSTATUS(status), 0);
        const std::vector<PoolLabel> five(labels(5));
        QCOMPARE(readFile(path), labelsCsv(five) + half);
        const LabelsRead r = readLabelsCsv(path);
        QCOMPARE(r.labels.size(), size_t(5));
        QVERIFY(r.cut_tail.find(":9: the last record was cut off") != std::string::npos); // nth(3) has two lines
        LabelStore store = LabelStore::open(path);
        QCOMPARE(store.cutTail(), r.cut_tail);
        QCOMPARE(readFile(path), labelsCsv(five));
        store.append(nth(5));
        QCOMPARE(readFile(path), labelsCsv(labels(6)));
    }

    /// A child appending labels as fast as it can is killed (SIGKILL) at some moment: every label
    /// read back is complete and in order, and the file opens, repaired, for the next label.
    void childKilledWhileAppendingLosesNoCompleteLabel()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/labels.csv";
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                LabelStore store = LabelStore::open(path);
                for (int i = 0;; ++i)
                    store.append(nth(i));
            } catch (...) {
                ::_exit(1);
            }
        }
        QElapsedTimer timer;
        timer.start();
        size_t seen = 0;
        while (seen < 40 && timer.elapsed() < 30000) {
            seen = readLabelsCsv(path).labels.size();
            QThread::msleep(1);
        }
        ::kill(pid, SIGKILL);
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status));
        const LabelsRead r = readLabelsCsv(path);
        QVERIFY2(r.labels.size() >= 40, std::to_string(r.labels.size()).c_str());
        for (size_t i = 0; i < r.labels.size(); ++i)
            QVERIFY(same(r.labels[i], nth(int(i))));
        LabelStore store = LabelStore::open(path);
        QCOMPARE(store.labels().size(), r.labels.size());
        const int next = int(r.labels.size());
        store.append(nth(next));
        QCOMPARE(readFile(path), labelsCsv(labels(next + 1)));
    }

    void undoAndRelabelRewriteAtomically()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/session/labels.csv"; // the folder is made
        LabelStore store = LabelStore::open(path);
        for (int i = 0; i < 3; ++i)
            store.append(nth(i));
        const PoolLabel undone = store.undoLast();
        QVERIFY(same(undone, nth(2)));
        QCOMPARE(readFile(path), labelsCsv(labels(2)));
        store.relabel(0, "ham");
        std::vector<PoolLabel> expected = labels(2);
        expected[0].label = "ham";
        expected[0].time = store.labels()[0].time;
        QCOMPARE(readFile(path), labelsCsv(expected));
        store.append(nth(2)); // appends after a rewrite go to the new file
        expected.push_back(nth(2));
        QCOMPARE(readFile(path), labelsCsv(expected));
        QCOMPARE(store.find("pool.txt", 3), int64_t(2));
        QCOMPARE(store.find("pool.txt", 9), int64_t(-1));
        PoolLabel again = nth(2);
        again.label = "ham";
        QVERIFY_THROWS_EXCEPTION(Error, store.append(again));
        PoolLabel bad = nth(7);
        bad.label = "a|b";
        QVERIFY_THROWS_EXCEPTION(Error, store.append(bad));
        QCOMPARE(readFile(path), labelsCsv(expected)); // nothing written by the refused appends
        LabelStore other = LabelStore::open(path);
        other.append(nth(8));
        try {
            store.append(nth(9));
            QFAIL("a file changed by another store was appended to");
        } catch (const Error &e) {
            QCOMPARE(e.field() + " | " + e.what(),
                     path + " | the labels file was changed by another program since it was opened");
        }
        for (int i = 0; i < 4; ++i)
            other.undoLast();
        QCOMPARE(readFile(path), std::string(labelsCsvHeader()));
        QVERIFY_THROWS_EXCEPTION(Error, other.undoLast());
    }

    void malformedFilesAreErrorsNamingTheLine()
    {
        const std::string h = labelsCsvHeader();
        const std::string ok = "a,spam,f.txt,1,,2026-12-06T00:10:03Z\n";
        QCOMPARE(errorOf("text,label\nx,y\n"),
                 std::string("l.csv:1 | this is not a labels file: its first line is not the header "
                             "'text,label,file,line,suggested_label,time'"));
        QCOMPARE(errorOf("hello"), std::string("l.csv:1 | this is not a labels file: its first line is not the "
                                               "header 'text,label,file,line,suggested_label,time'"));
        QCOMPARE(errorOf(h + ok + "a,b,f.txt,2,2026-12-06T00:10:03Z\n" + ok),
                 std::string("l.csv:3 | the record has 5 fields, the labels file has 6 (text, label, file, line, "
                             "suggested_label, time)"));
        QCOMPARE(errorOf(h + ok + "b,,f.txt,2,,2026-12-06T00:10:03Z\n" + ok), std::string("l.csv:3 | the label is empty"));
        QCOMPARE(errorOf(h + "b, spam,f.txt,2,,2026-12-06T00:10:03Z\n" + ok),
                 std::string("l.csv:2 | the label ' spam' has surrounding white space, a line break, '|', ',', ';' or "
                             "a NUL byte, or is not UTF-8"));
        QCOMPARE(errorOf(h + "b,\"x,y\",f.txt,2,,2026-12-06T00:10:03Z\n"),
                 std::string("l.csv:2 | the label 'x,y' has surrounding white space, a line break, '|', ',', ';' or "
                             "a NUL byte, or is not UTF-8"));
        QCOMPARE(errorOf(h + "b,spam,f.txt,x,,2026-12-06T00:10:03Z\n" + ok),
                 std::string("l.csv:2 | the line 'x' is not an integer >= 1"));
        QCOMPARE(errorOf(h + "b,spam,,4,,2026-12-06T00:10:03Z\n" + ok),
                 std::string("l.csv:2 | the line 4 is given without a file (or is negative)"));
        QCOMPARE(errorOf(h + "b,spam,f.txt,2,,yesterday\n" + ok),
                 std::string("l.csv:2 | the time 'yesterday' is not UTC ISO 8601 (YYYY-MM-DDTHH:MM:SS[.fff]Z)"));
        QCOMPARE(errorOf(h + ok + "\"b\"x,spam,f.txt,2,,2026-12-06T00:10:03Z\n" + ok),
                 std::string("l.csv:3 | text follows the closing quote of a quoted field"));
        QCOMPARE(errorOf(h + std::string("b,spam,\0,2,,2026-12-06T00:10:03Z\n", 33)),
                 std::string("l.csv:2 | the file name holds a line break or a NUL byte, or is not UTF-8"));
        QCOMPARE(errorOf(h + ok + "\n" + ok),
                 std::string("l.csv:4 | f.txt:1 already has a label (line 2)"));
        // A whole last record without its line end (an editor's save) is kept.
        const LabelsRead r = parseLabelsCsv(h + ok.substr(0, ok.size() - 1), "l.csv");
        QCOMPARE(r.labels.size(), size_t(1));
        QVERIFY(r.missing_line_end && r.cut_tail.empty());
        QCOMPARE(parseLabelsCsv("text,label,fi", "l.csv").cut_tail,
                 std::string("l.csv:1: the header was cut off while the file was being created: the file has no labels"));
        QCOMPARE(parseLabelsCsv("", "l.csv").labels.size(), size_t(0));
    }

    /// The file as saved is a CSV prepare reads as it is: the columns text and label recognised,
    /// the same texts and labels, every label a training example.
    void prepareReadsTheFile()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        LabelStore store = LabelStore::open(root + "/labels.csv");
        for (int i = 0; i < 21; ++i)
            store.append(nth(i));
        TextInputSpec spec;
        spec.format = TextFileFormat::Csv;
        spec.need_label = true;
        const TextInput in = readTextInput(root + "/labels.csv", spec);
        QCOMPARE(in.columns.text_a, std::string("text"));
        QCOMPARE(in.columns.label, std::string("label"));
        QVERIFY(in.columns.text_b.empty() && in.warnings.empty());
        QCOMPARE(in.records.size(), size_t(21));
        for (int i = 0; i < 21; ++i) {
            QCOMPARE(in.records[size_t(i)].text_a, nth(i).text);
            QCOMPARE(in.records[size_t(i)].label, nth(i).label);
            QVERIFY(in.records[size_t(i)].problem.empty());
        }
        writeFile(root + "/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nplain\nwords\n");
        PrepareOptions o;
        o.input_data_dir = root + "/labels.csv";
        o.classification_task_name = "csv";
        o.vocab_file = root + "/vocab.txt";
        o.max_seq_length = 16;
        o.eval_fraction = 0;
        o.bag_of_words_baseline = false;
        o.output_dir = root + "/prepared";
        const PrepareReport report = prepareData(o);
        QCOMPARE(report.text_a_column, std::string("text"));
        QCOMPARE(report.label_column, std::string("label"));
        QCOMPARE(report.labels, (std::vector<std::string>{"ham", "spam"}));
        QCOMPARE(report.train_examples, int64_t(21));
        QCOMPARE(report.train_label_counts.at("spam"), int64_t(7));
        QCOMPARE(report.train_label_counts.at("ham"), int64_t(14));
    }

private:
    static std::vector<PoolLabel> labels(int n)
    {
        std::vector<PoolLabel> out;
        for (int i = 0; i < n; ++i)
            out.push_back(nth(i));
        return out;
    }
};

QTEST_APPLESS_MAIN(tst_LabelStore)
#include "tst_labelstore.moc"
