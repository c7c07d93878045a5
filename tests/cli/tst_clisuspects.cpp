// SPDX-License-Identifier: Apache-2.0
// Issue 46, the relabel loop on the command line: prepare a tiny CSV with two deliberately flipped
// labels, hand the run a training_dynamics.jsonl in which the model never believes them,
// `suspects --accept --corrections_file`, then `prepare --split_file --corrections_file`: the two
// rows are relabelled in split.jsonl and the report, every row keeps its side and record, and a
// bad corrections file is an error naming its line and what to fix.
#include "app/cli/commands.h"
#include "core/formats/trainingdynamics.h"
#include "core/prepare/corrections.h"
#include "core/prepare/preparereport.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace wb;
using namespace wb::cli;

namespace {

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

// `text` with every run of spaces as one space.
std::string squeezed(const std::string &text)
{
    return std::regex_replace(text, std::regex(" +"), " ");
}

// The line of `text` that holds `needle`, squeezed; "" when none does.
std::string lineWith(const std::string &text, const std::string &needle)
{
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.find(needle) != std::string::npos)
            return squeezed(line);
    return {};
}

// The flipped rows: a spam text labelled ham (line 4) and a ham text labelled spam (line 11).
constexpr int64_t kFlippedHam = 4, kFlippedSpam = 11;

} // namespace

class tst_CliSuspects : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_root;

    std::string path(const std::string &rel) const { return m_root + "/" + rel; }

    void write(const std::string &rel, const std::string &text)
    {
        QDir().mkpath(QFileInfo(QString::fromStdString(path(rel))).absolutePath());
        std::ofstream(path(rel), std::ios::binary) << text;
    }

    std::vector<std::string> prepareArgs(const std::string &outDir)
    {
        return {"prepare", "--input_data_dir=" + path("data.csv"), "--classification_task_name=csv",
                "--vocab_file=" + path("vocab.txt"), "--max_seq_length=16", "--eval_fraction=0.2",
                "--bag_of_words_baseline=false", "--output_dir=" + path(outDir)};
    }

    // A run of the data in `before`: run_config.json naming its meta data and training dynamics in
    // which the flipped rows are hard to learn and predicted as the other label.
    void writeRun(const std::vector<SplitRow> &split)
    {
        write("run/run_config.json", "{\"defining\": {}, \"informational\": {\"input_meta_data_path\": \""
                                         + path("before/input_meta_data.json") + "\", \"train_data_path\": \""
                                         + path("before/train.tf_record") + "\"}}\n");
        write("run/checkpoint", "model_checkpoint_path: \"ckpt-15\"\n");
        const std::map<std::string, int64_t> ids{{"ham", 0}, {"spam", 1}};
        TrainingDynamics d;
        for (const SplitRow &r : split) {
            if (r.split != "train")
                continue;
            const int64_t gold = ids.at(r.label), other = 1 - gold;
            const bool flipped = r.line == kFlippedHam || r.line == kFlippedSpam;
            const std::vector<double> p = r.line == kFlippedHam ? std::vector<double>{0.3, 0.1, 0.05}
                                          : flipped             ? std::vector<double>{0.4, 0.2, 0.1}
                                                                : std::vector<double>{0.6, 0.9, 0.97};
            for (size_t k = 0; k < 3; ++k)
                d.record(int64_t(5 * (k + 1)), r.index, gold, p[k], flipped ? other : gold);
        }
        writeTrainingDynamics(path("run/training_dynamics.jsonl"), d);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_root = m_dir.path().toStdString();
        write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nfriend\nwin\nmoney\n");
        std::string csv = "text,label\n";
        for (int64_t line = 2; line <= 21; ++line) {
            const bool spamText = line % 2 == 0;
            const bool spamLabel = line == kFlippedHam ? false : line == kFlippedSpam ? true : spamText;
            csv += std::string(spamText ? "win money " : "hello friend ") + std::to_string(line) + ","
                   + (spamLabel ? "spam" : "ham") + "\n";
        }
        write("data.csv", csv);
        std::ostringstream out, err;
        QVERIFY2(runCli(prepareArgs("before"), out, err) == kExitOk, err.str().c_str());
    }

    void acceptedSuspectsRelabelTheirRows();
    void badCorrectionsNameTheirLine();
    void runsWithoutWhatSuspectsNeedSaySo();
    void correctedEvalRowsAreWarnedAbout();
    void removedSuspectsAreLeftOut();
    void existingDecisionsAreKept();

private:
    void checkReportAfter();
};

void tst_CliSuspects::acceptedSuspectsRelabelTheirRows()
{
    const std::vector<SplitRow> before = readSplitRows(path("before/split.jsonl"));
    std::map<int64_t, SplitRow> byLine;
    for (const SplitRow &r : before)
        byLine[r.line] = r;
    QCOMPARE(byLine.at(kFlippedHam).split, std::string("train"));
    QCOMPARE(byLine.at(kFlippedSpam).split, std::string("train"));
    writeRun(before);

    std::ostringstream out, err;
    const int rc = runCli({"suspects", "--model_dir=" + path("run"), "--accept",
                           "--corrections_file=" + path("corrections.jsonl")},
                          out, err);
    QVERIFY2(rc == kExitOk, err.str().c_str());
    const std::string text = out.str();
    QVERIFY2(text.find("2 suspect(s) among 16 training examples") == 0, text.c_str());
    const std::string ham = std::to_string(byLine.at(kFlippedHam).index);
    const std::string spam = std::to_string(byLine.at(kFlippedSpam).index);
    // The texts are the records' wordpieces ("4" is not in the vocabulary).
    QCOMPARE(lineWith(text, "data.csv:4"),
             "1 " + ham + " data.csv:4 ham -> spam 0.150 0.108 0.000 3 of 3 0.050 win money [UNK]");
    QCOMPARE(lineWith(text, "data.csv:11"),
             "2 " + spam + " data.csv:11 spam -> ham 0.233 0.125 0.000 3 of 3 0.100 hello friend [UNK]");
    QVERIFY2(text.find("wrote 2 correction(s) (accepted) to " + path("corrections.jsonl")) != std::string::npos,
             text.c_str());
    QVERIFY(text.find("--split_file=" + path("before/split.jsonl")) != std::string::npos);

    const std::vector<Correction> c = readCorrections(path("corrections.jsonl"));
    QCOMPARE(c.size(), size_t(2));
    QCOMPARE(c[0].file, std::string("data.csv"));
    QCOMPARE(c[0].line, kFlippedHam);
    QCOMPARE(c[0].index, byLine.at(kFlippedHam).index);
    QCOMPARE(c[0].label, std::string("ham"));
    QCOMPARE(c[0].suggested_label, std::string("spam"));
    QCOMPARE(c[0].decision, CorrectionDecision::Accepted);
    QCOMPARE(c[0].corrected_label, std::string("spam"));
    QVERIFY2(std::regex_match(c[0].time, std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")), c[0].time.c_str());
    QCOMPARE(c[1].line, kFlippedSpam);
    QCOMPARE(c[1].corrected_label, std::string("ham"));

    std::vector<std::string> args = prepareArgs("after");
    args.push_back("--split_file=" + path("before/split.jsonl"));
    args.push_back("--corrections_file=" + path("corrections.jsonl"));
    std::ostringstream out2, err2;
    QVERIFY2(runCli(args, out2, err2) == kExitOk, err2.str().c_str());
    const std::string report = out2.str();
    QVERIFY2(report.find("  corrections: " + path("corrections.jsonl") + ": 2 row(s) relabelled\n")
                 != std::string::npos,
             report.c_str());
    QVERIFY(report.find("    data.csv:4: ham -> spam (accepted, line 1)\n") != std::string::npos);
    QVERIFY(report.find("    data.csv:11: spam -> ham (accepted, line 2)\n") != std::string::npos);

    // The same sides and records; only the two rows' labels differ, and they say what they were.
    const std::vector<SplitRow> after = readSplitRows(path("after/split.jsonl"));
    QCOMPARE(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) {
        QCOMPARE(after[i].line, before[i].line);
        QCOMPARE(after[i].split, before[i].split);
        QCOMPARE(after[i].index, before[i].index);
        const bool flipped = after[i].line == kFlippedHam || after[i].line == kFlippedSpam;
        QCOMPARE(after[i].label == before[i].label, !flipped);
    }
    const std::string splitText = readText(path("after/split.jsonl"));
    QVERIFY(splitText.find("{\"file\":\"data.csv\",\"line\":4,\"split\":\"train\",\"index\":" + ham
                           + ",\"label\":\"spam\",\"label_as_given\":\"ham\"}\n")
            != std::string::npos);

    checkReportAfter();
}

// prepare_report.json of the prepare with the corrections: the rows relabelled, the counts.
void tst_CliSuspects::checkReportAfter()
{
    const PrepareReport r = parsePrepareReport(readText(path("after/prepare_report.json")), "prepare_report.json");
    QCOMPARE(r.split_method, std::string("split_file"));
    QCOMPARE(r.corrections_file, path("corrections.jsonl"));
    QCOMPARE(r.corrected_rows.size(), size_t(2));
    QCOMPARE(r.corrected_rows[0].where, std::string("data.csv:4"));
    QCOMPARE(r.corrected_rows[0].label, std::string("ham"));
    QCOMPARE(r.corrected_rows[0].corrected_label, std::string("spam"));
    QCOMPARE(r.corrected_rows[0].decision, std::string("accepted"));
    QCOMPARE(r.corrected_rows[0].correction_line, int64_t(1));
    QCOMPARE(r.corrected_rows[1].where, std::string("data.csv:11"));
    QCOMPARE(r.corrections_not_applied, int64_t(0));
    const PrepareReport b = parsePrepareReport(readText(path("before/prepare_report.json")), "prepare_report.json");
    QCOMPARE(r.train_label_counts, b.train_label_counts); // one row each way
    QCOMPARE(r.eval_label_counts, b.eval_label_counts);
}

void tst_CliSuspects::badCorrectionsNameTheirLine()
{
    const std::string bad = path("bad.jsonl");
    write("bad.jsonl", "{\"file\":\"data.csv\",\"line\":99,\"label\":\"ham\",\"suggested_label\":\"spam\","
                       "\"decision\":\"accepted\"}\n"
                       "{\"file\":\"data.csv\",\"line\":5,\"label\":\"ham\",\"decision\":\"changed\","
                       "\"corrected_label\":\"eggs\"}\n"
                       "{\"file\":\"data.csv\",\"line\":6,\"label\":\"ham\",\"decision\":\"changed\","
                       "\"corrected_label\":\"spam\"}\n");
    std::vector<std::string> args = prepareArgs("bad");
    args.push_back("--split_file=" + path("before/split.jsonl"));
    args.push_back("--corrections_file=" + bad);
    std::ostringstream out, err;
    QCOMPARE(runCli(args, out, err), int(kExitInvalid));
    const std::string text = err.str();
    QVERIFY2(text.find("error: " + bad + ":1: the row data.csv:99 is not among the input's training and evaluation "
                       "rows; 2 more: " + bad + ":2: corrected_label: 'eggs' is not a label of the data (ham, spam); "
                       + bad + ":3: label: the row data.csv:6 has the label 'spam' in the input, but the correction "
                       "was made for the label 'ham'\n")
                 != std::string::npos,
             text.c_str());
    QVERIFY(text.find("as this input's split.jsonl does") != std::string::npos);
    QVERIFY(!QFileInfo::exists(QString::fromStdString(path("bad/split.jsonl"))));

    write("bad2.jsonl", "{\"file\":\"data.csv\",\"line\":\"four\",\"label\":\"ham\",\"decision\":\"accepted\"}\n");
    args.back() = "--corrections_file=" + path("bad2.jsonl");
    std::ostringstream out2, err2;
    QCOMPARE(runCli(args, out2, err2), int(kExitInvalid));
    QVERIFY2(err2.str().find("error: " + path("bad2.jsonl") + ":1: line: is \"four\", expected an integer ≥ 1")
                 != std::string::npos,
             err2.str().c_str());
}

void tst_CliSuspects::runsWithoutWhatSuspectsNeedSaySo()
{
    // Not trained yet: no checkpoint, no dynamics.
    write("fresh/run_config.json", "{\"defining\": {}, \"informational\": {\"input_meta_data_path\": \""
                                       + path("before/input_meta_data.json") + "\"}}\n");
    std::ostringstream out, err;
    QCOMPARE(runCli({"suspects", "--model_dir=" + path("fresh")}, out, err), int(kExitInvalid));
    QVERIFY2(err.str().find("error: " + path("fresh/training_dynamics.jsonl")
                            + ": does not exist: the run has no checkpoint yet")
                 != std::string::npos,
             err.str().c_str());

    // Data without split.jsonl (not prepared here): listed by record index, no corrections.
    write("foreign/input_meta_data.json", readText(path("before/input_meta_data.json")));
    write("foreign/labels.txt", readText(path("before/labels.txt")));
    std::ostringstream out2, err2;
    QCOMPARE(runCli({"suspects", "--model_dir=" + path("run"),
                     "--input_meta_data_path=" + path("foreign/input_meta_data.json"),
                     "--corrections_file=" + path("foreign/c.jsonl")},
                    out2, err2),
             int(kExitInvalid));
    QVERIFY2(err2.str().find("note: no split.jsonl beside " + path("foreign/input_meta_data.json")
                             + ": the data was not prepared by this program, so the suspects are listed by record "
                               "index only and corrections cannot be applied")
                 != std::string::npos,
             err2.str().c_str());
    QVERIFY(err2.str().find("error: corrections_file: no corrections were written") != std::string::npos);
    QVERIFY(lineWith(out2.str(), "ham -> spam").find("1 ") == 0);
    QVERIFY(lineWith(out2.str(), "ham -> spam").find(" - ham -> spam") != std::string::npos);
    QVERIFY(!QFileInfo::exists(QString::fromStdString(path("foreign/c.jsonl"))));
}

void tst_CliSuspects::correctedEvalRowsAreWarnedAbout()
{
    std::map<int64_t, SplitRow> byLine;
    for (const SplitRow &r : readSplitRows(path("before/split.jsonl")))
        byLine[r.line] = r;
    QCOMPARE(byLine.at(3).split, std::string("eval"));
    write("eval.jsonl", "{\"file\":\"data.csv\",\"line\":3,\"label\":\"ham\",\"decision\":\"changed\","
                        "\"corrected_label\":\"spam\"}\n"
                        "{\"file\":\"data.csv\",\"line\":5,\"label\":\"ham\",\"decision\":\"rejected\"}\n");
    std::vector<std::string> args = prepareArgs("evalfix");
    args.push_back("--split_file=" + path("before/split.jsonl"));
    args.push_back("--corrections_file=" + path("eval.jsonl"));
    std::ostringstream out, err;
    QVERIFY2(runCli(args, out, err) == kExitOk, err.str().c_str());
    QVERIFY2(out.str().find(": 1 row(s) relabelled; 1 line(s) change nothing (suggested, rejected or the same "
                            "label)\n    data.csv:3: ham -> spam (changed, line 1)\n")
                 != std::string::npos,
             out.str().c_str());
    QVERIFY2(err.str().find("warning: 1 relabelled row(s) are in the eval set (" + path("data.csv")
                            + ":3): the eval set's labels changed, so a run before the corrections and one after "
                              "are not scored on the same labels\n")
                 != std::string::npos,
             err.str().c_str());
}

// suspects --remove: the same suspects written as removed; prepare leaves those rows out (the
// other rows keep their sides and labels) and says so; --accept and --remove together are refused.
void tst_CliSuspects::removedSuspectsAreLeftOut()
{
    const std::vector<SplitRow> before = readSplitRows(path("before/split.jsonl"));
    writeRun(before);
    std::ostringstream out, err;
    const int rc = runCli({"suspects", "--model_dir=" + path("run"), "--remove",
                           "--corrections_file=" + path("removed.jsonl")},
                          out, err);
    QVERIFY2(rc == kExitOk, err.str().c_str());
    QVERIFY2(out.str().find("wrote 2 correction(s) (removed) to " + path("removed.jsonl")) != std::string::npos,
             out.str().c_str());
    const std::vector<Correction> c = readCorrections(path("removed.jsonl"));
    QCOMPARE(c.size(), size_t(2));
    QCOMPARE(c[0].line, kFlippedHam);
    QCOMPARE(c[0].decision, CorrectionDecision::Removed);
    QCOMPARE(c[0].corrected_label, std::string());
    QCOMPARE(c[1].line, kFlippedSpam);

    std::vector<std::string> args = prepareArgs("pruned");
    args.push_back("--split_file=" + path("before/split.jsonl"));
    args.push_back("--corrections_file=" + path("removed.jsonl"));
    std::ostringstream out2, err2;
    QVERIFY2(runCli(args, out2, err2) == kExitOk, err2.str().c_str());
    const std::string report = out2.str();
    QVERIFY2(report.find("  corrections: 2 row(s) removed (left out of the prepared data)\n"
                         "    data.csv:4: ham removed (line 1)\n    data.csv:11: spam removed (line 2)\n")
                 != std::string::npos,
             report.c_str());
    const std::vector<SplitRow> after = readSplitRows(path("pruned/split.jsonl"));
    QCOMPARE(after.size(), before.size());
    size_t trainBefore = 0, trainAfter = 0;
    for (const SplitRow &r : before)
        trainBefore += r.split == "train";
    for (const SplitRow &r : after) {
        trainAfter += r.split == "train";
        const bool removed = r.line == kFlippedHam || r.line == kFlippedSpam;
        QCOMPARE(r.split == "skipped", removed);
        if (!removed) // the others: the side and label they had
            QVERIFY(std::any_of(before.begin(), before.end(), [&r](const SplitRow &b) {
                return b.line == r.line && b.split == r.split && b.label == r.label;
            }));
    }
    QCOMPARE(trainAfter, trainBefore - 2);
    // The order without the two rows: eval records where they were, each training record moved
    // up by the removed rows before it.
    std::map<int64_t, SplitRow> was;
    for (const SplitRow &b : before)
        was[b.line] = b;
    const int64_t removedIndex[] = {was.at(kFlippedHam).index, was.at(kFlippedSpam).index};
    for (const SplitRow &r : after) {
        if (r.split == "eval")
            QCOMPARE(r.index, was.at(r.line).index);
        if (r.split != "train")
            continue;
        const int64_t shift = (removedIndex[0] < was.at(r.line).index) + (removedIndex[1] < was.at(r.line).index);
        QCOMPARE(r.index, was.at(r.line).index - shift);
    }
    const PrepareReport p = parsePrepareReport(readText(path("pruned/prepare_report.json")), "prepare_report.json");
    QCOMPARE(p.removed_rows.size(), size_t(2));
    QCOMPARE(p.removed_rows[1].where, std::string("data.csv:11"));
    QCOMPARE(p.removed_rows[1].label, std::string("spam"));
    QCOMPARE(p.corrected_rows.size(), size_t(0));

    std::ostringstream out3, err3;
    QCOMPARE(runCli({"suspects", "--model_dir=" + path("run"), "--remove", "--accept",
                     "--corrections_file=" + path("both.jsonl")},
                    out3, err3),
             int(kExitInvalid));
    QVERIFY2(err3.str().find("--accept excludes --remove") != std::string::npos, err3.str().c_str());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(path("both.jsonl"))));
    // --remove (or --accept) without a file to write to is refused, not silently ignored.
    std::ostringstream out4, err4;
    QCOMPARE(runCli({"suspects", "--model_dir=" + path("run"), "--remove"}, out4, err4), int(kExitInvalid));
    QVERIFY2(err4.str().find("--remove requires --corrections_file") != std::string::npos, err4.str().c_str());
}

// A corrections file that exists keeps its decisions: a row decided before keeps its decision,
// other rows' lines stay, and only undecided or new rows take the listing's decision.
void tst_CliSuspects::existingDecisionsAreKept()
{
    writeRun(readSplitRows(path("before/split.jsonl")));
    write("kept.jsonl", "{\"file\":\"data.csv\",\"line\":3,\"label\":\"ham\",\"decision\":\"rejected\"}\n"
                        "{\"file\":\"data.csv\",\"line\":" + std::to_string(kFlippedHam)
                            + ",\"label\":\"ham\",\"suggested_label\":\"spam\",\"decision\":\"rejected\"}\n"
                        "{\"file\":\"data.csv\",\"line\":" + std::to_string(kFlippedSpam)
                            + ",\"label\":\"spam\",\"suggested_label\":\"ham\",\"decision\":\"suggested\"}\n");
    std::ostringstream out, err;
    QVERIFY2(runCli({"suspects", "--model_dir=" + path("run"), "--remove", "--corrections_file=" + path("kept.jsonl")},
                    out, err) == kExitOk,
             err.str().c_str());
    QVERIFY2(out.str().find("wrote 1 correction(s) (removed) to " + path("kept.jsonl") + "\nkept 1 decision(s) already "
                            "made on listed rows and 1 line(s) of other rows from the file\n")
                 != std::string::npos,
             out.str().c_str());
    const std::vector<Correction> c = readCorrections(path("kept.jsonl"));
    QCOMPARE(c.size(), size_t(3));
    QCOMPARE(c[0].line, int64_t(3));
    QCOMPARE(c[0].decision, CorrectionDecision::Rejected);
    QCOMPARE(c[1].line, kFlippedHam);
    QCOMPARE(c[1].decision, CorrectionDecision::Rejected); // decided before: kept
    QCOMPARE(c[2].line, kFlippedSpam);
    QCOMPARE(c[2].decision, CorrectionDecision::Removed); // undecided: now removed
}

QTEST_APPLESS_MAIN(tst_CliSuspects)
#include "tst_clisuspects.moc"
