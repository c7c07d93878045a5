// SPDX-License-Identifier: Apache-2.0
// Issue 23 on a tiny run whose data came without a recorded casing (as create_finetuning_data.py
// writes it) and whose vocabulary is cased:
//  - kind 3: the casing is inferred from the vocab (with a warning), recorded in run_config.json
//    and the checkpoint, exported in tokenizer_config.json, and classify reads text with it;
//    a resume with another casing or vocabulary is refused naming both sides;
//  - kind 2: classify --input_file reads .jsonl/.json records by their keys, as prepare does.
#include "cli/clirun.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/infer/textclassifier.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

// 100 pieces (the tiny model's vocab_size), some of them with capital letters: a cased vocab.
std::vector<std::string> casedVocab()
{
    std::vector<std::string> t{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "Free", "free", "Cash", "cash", "now", "see", "you"};
    while (t.size() < 100)
        t.push_back("w" + std::to_string(t.size()));
    return t;
}

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            out.push_back(line);
    return out;
}

void writeVocab(const std::string &path, const std::vector<std::string> &tokens)
{
    std::ofstream v(path);
    for (const auto &t : tokens)
        v << t << "\n";
}

} // namespace

class tst_CliTextCasing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void runRecordsInferredCasing();
    void classifyReadsTextAsTrained();
    void exportRecordsCasing();
    void resumeComparesTokenizer();
    void classifyReadsJsonRecordsByKey();

private:
    std::vector<std::string> runArgs(const char *command) const;
    std::vector<std::string> classifyArgs() const;

    QTemporaryDir m_dir;
    std::string m_root, m_vocab;
    TrainingOptions m_opts;
};

void tst_CliTextCasing::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_root = m_dir.path().toStdString() + "/run";
    wbtest::TinyRun p;
    p.num_train_epochs = 1;
    m_opts = wbtest::writeTinyRun(m_root, p); // its input_meta_data.json has no do_lower_case
    m_vocab = m_root + "/vocab.txt";
    writeVocab(m_vocab, casedVocab());
    std::ofstream(m_root + "/labels.txt") << "ham\nspam\n";
    m_opts.vocab_file = m_vocab;
    wbtest::RecordingObserver obs;
    StopToken stop;
    Trainer trainer;
    const RunFinished r = trainer.run(m_opts, obs, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
}

std::vector<std::string> tst_CliTextCasing::runArgs(const char *command) const
{
    return {command,
            "--distribution_strategy=one_device",
            "--bert_config_file=" + m_opts.bert_config_file,
            "--input_meta_data_path=" + m_opts.input_meta_data_path,
            "--train_data_path=" + m_opts.train_data_path,
            "--eval_data_path=" + m_opts.eval_data_path,
            "--model_dir=" + m_opts.model_dir,
            "--train_batch_size=8",
            "--eval_batch_size=8",
            "--learning_rate=0.001",
            "--num_train_epochs=1",
            "--log_steps=0",
            "--vocab_file=" + m_vocab};
}

std::vector<std::string> tst_CliTextCasing::classifyArgs() const
{
    return {"classify", "--model_dir=" + m_opts.model_dir, "--vocab_file=" + m_vocab, "--output_format=jsonl"};
}

/// The casing was not recorded with the data: inferred from the cased vocab, and recorded in
/// run_config.json and the checkpoint (create_finetuning_data.py's meta data stays readable).
void tst_CliTextCasing::runRecordsInferredCasing()
{
    const auto cfg = nlohmann::json::parse(readText(m_opts.model_dir + "/run_config.json"));
    QCOMPARE(cfg["tokenizer"]["do_lower_case"], nlohmann::json(false));
    QCOMPARE(cfg["tokenizer"]["do_lower_case_source"].get<std::string>(), m_vocab + " (inferred)");
    QCOMPARE(cfg["tokenizer"]["vocab_file"].get<std::string>(), m_vocab);
    QCOMPARE(cfg["tokenizer"]["vocab_sha256"].get<std::string>().size(), size_t(64));
    const CheckpointHeader h = readCheckpointHeader(latestCheckpoint(m_opts.model_dir));
    QVERIFY(h.do_lower_case.has_value());
    QCOMPARE(*h.do_lower_case, false);

    // validate says what it inferred.
    std::string out, err;
    QCOMPARE(wbtest::runCli(runArgs("validate"), out, err), 0);
    QVERIFY2((out + err).find("no casing is recorded with the data or the model; cased (do_lower_case=false): 2 "
                              "piece(s) of " + m_vocab + " hold capital letters")
                 != std::string::npos,
             (out + err).c_str());
}

/// classify reads text as the model was trained (cased): "Free" stays "Free". Before, it
/// lower-cased (the default true) and its probabilities differed from predict's.
void tst_CliTextCasing::classifyReadsTextAsTrained()
{
    ClassifierSource src;
    src.model_dir = m_opts.model_dir;
    src.bert_config_file = m_opts.bert_config_file;
    src.input_meta_data_path = m_opts.input_meta_data_path;
    src.vocab_file = m_vocab;
    const TextClassifier c(src);
    QCOMPARE(c.doLowerCase(), false);
    QCOMPARE(c.casingSource(), latestCheckpoint(m_opts.model_dir));
    QCOMPARE(c.tokenize("Free Cash now").tokens, (std::vector<std::string>{"[CLS]", "Free", "Cash", "now", "[SEP]"}));

    // The CLI gives the cased model's probabilities, not the lower-cased reading's.
    src.do_lower_case = false;
    const Classification cased = TextClassifier(src).classify("Free Cash now");
    src.do_lower_case = true;
    const Classification lower = TextClassifier(src).classify("Free Cash now");
    QVERIFY(cased.probabilities != lower.probabilities); // "free cash" are other ids
    std::string out, err;
    auto args = classifyArgs();
    args.push_back("--text=Free Cash now");
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto j = nlohmann::json::parse(lines(out).at(0));
    QCOMPARE(j["probabilities"]["ham"].get<double>(), cased.probabilities[0]);
    QCOMPARE(j["probabilities"]["spam"].get<double>(), cased.probabilities[1]);
}

/// The export records the casing the model was trained with (was: do_lower_case true), and
/// classify of the export folder reads it.
void tst_CliTextCasing::exportRecordsCasing()
{
    const std::string dir = m_root + "/export";
    auto args = runArgs("export");
    args.push_back("--model_export_path=" + dir);
    std::string out, err;
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto tok = nlohmann::json::parse(readText(dir + "/tokenizer_config.json"));
    QCOMPARE(tok["do_lower_case"], nlohmann::json(false));
    ClassifierSource src;
    src.model_export_path = dir;
    const TextClassifier c(src);
    QCOMPARE(c.doLowerCase(), false);
    QCOMPARE(c.casingSource(), dir + "/tokenizer_config.json");
    QCOMPARE(c.tokenize("Free").tokens, (std::vector<std::string>{"[CLS]", "Free", "[SEP]"}));
}

/// Resuming with data of another casing or vocabulary is a pre-flight error naming both sides.
void tst_CliTextCasing::resumeComparesTokenizer()
{
    std::string out, err;
    auto args = runArgs("validate");
    args.push_back("--do_lower_case=true");
    QCOMPARE(wbtest::runCli(args, out, err), 2);
    QVERIFY2(err.find("do_lower_case: false (the run: cased, from " + m_vocab + " (inferred)) → true (now: "
                      "lower-cased, from --do_lower_case)")
                 != std::string::npos,
             err.c_str());

    // Another vocab.txt of the same size (uncased): both the vocab and the casing differ.
    std::vector<std::string> uncased = casedVocab();
    for (auto &t : uncased)
        if (t[0] != '[')
            for (char &ch : t)
                ch = char(std::tolower(static_cast<unsigned char>(ch)));
    uncased[4] = "w4";
    uncased[6] = "w6";
    const std::string other = m_root + "/uncased-vocab.txt";
    writeVocab(other, uncased);
    args = runArgs("validate");
    args.back() = "--vocab_file=" + other;
    QCOMPARE(wbtest::runCli(args, out, err), 2);
    QVERIFY2(err.find("vocab_sha256: ") != std::string::npos, err.c_str());
    QVERIFY2(err.find("(the run: " + m_vocab + ") → ") != std::string::npos, err.c_str());
    QVERIFY2(err.find("(now: " + other + ")") != std::string::npos, err.c_str());
    QVERIFY2(err.find("do_lower_case: false (the run: cased") != std::string::npos, err.c_str());
}

/// classify --input_file=x.jsonl / x.json: the texts under their keys (the pair layout too),
/// never the JSON syntax; the same probabilities as --text.
void tst_CliTextCasing::classifyReadsJsonRecordsByKey()
{
    const std::string jsonl = m_root + "/in.jsonl";
    std::ofstream(jsonl) << "{\"id\": 1, \"text\": \"Free Cash now\", \"label\": \"spam\"}\n\n"
                            "{\"id\": 2, \"text\": \"see you\"}\n";
    std::string out, err;
    auto args = classifyArgs();
    args.push_back("--input_file=" + jsonl);
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto rows = lines(out);
    QCOMPARE(rows.size(), size_t(2));
    const auto first = nlohmann::json::parse(rows[0]);
    QCOMPARE(first["text"].get<std::string>(), std::string("Free Cash now"));
    QCOMPARE(nlohmann::json::parse(rows[1])["text"].get<std::string>(), std::string("see you"));
    std::string outText;
    args = classifyArgs();
    args.push_back("--text=Free Cash now");
    QCOMPARE(wbtest::runCli(args, outText, err), 0);
    QCOMPARE(lines(outText).at(0), rows[0]);

    // A JSON array of pairs: both texts, as prepare reads them.
    const std::string json = m_root + "/pairs.json";
    std::ofstream(json) << "[\n  {\"sentence1\": \"Free\", \"sentence2\": \"Cash\"},\n  {\"sentence1\": \"see\", "
                           "\"sentence2\": \"you\"}\n]\n";
    args = classifyArgs();
    args.push_back("--input_file=" + json);
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto pair = nlohmann::json::parse(lines(out).at(1));
    QCOMPARE(pair["text"].get<std::string>(), std::string("see"));
    QCOMPARE(pair["text_b"].get<std::string>(), std::string("you"));

    // Keys it cannot map: an error listing them; a record without the text: its line.
    std::ofstream(m_root + "/body.jsonl") << "{\"body\": \"x\", \"stars\": 5}\n";
    args = classifyArgs();
    args.push_back("--input_file=" + m_root + "/body.jsonl");
    QCOMPARE(wbtest::runCli(args, out, err), 2);
    QVERIFY2(err.find("no text column was recognised in the keys (keys: 'body', 'stars')") != std::string::npos,
             err.c_str());
    args.push_back("--text_a_column=body");
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    QCOMPARE(nlohmann::json::parse(lines(out).at(0))["text"].get<std::string>(), std::string("x"));

    std::ofstream(m_root + "/gap.jsonl") << "{\"text\": \"see\"}\n{\"label\": 1}\n";
    args = classifyArgs();
    args.push_back("--input_file=" + m_root + "/gap.jsonl");
    QCOMPARE(wbtest::runCli(args, out, err), 2);
    QVERIFY2(err.find(m_root + "/gap.jsonl:2: the record has no 'text'") != std::string::npos, err.c_str());
}

QTEST_GUILESS_MAIN(tst_CliTextCasing)
#include "tst_clitextcasing.moc"
