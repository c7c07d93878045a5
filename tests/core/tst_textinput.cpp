// SPDX-License-Identifier: Apache-2.0
// readTextInput / parseTextInput (core/prepare/textinput.h), the one column reader of prepare
// and classify: the same layouts in CSV, TSV, JSON Lines and JSON arrays give the same
// columns and records; what cannot be mapped is an error listing the columns found.
#include "core/prepare/dataprep.h"
#include "core/prepare/textinput.h"
#include "core/tokenize/tokenizercasing.h"
#include "core/tokenize/vocab.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"

#include <QtTest>

#include <fstream>

using namespace wb;

namespace {

TextInputSpec specOf(TextFileFormat format, bool needLabel = false)
{
    TextInputSpec s;
    s.format = format;
    s.need_label = needLabel;
    return s;
}

std::vector<std::string> textsOf(const TextInput &in)
{
    std::vector<std::string> out;
    for (const auto &r : in.records)
        out.push_back(r.text_a + "|" + r.text_b + "|" + r.label + "@" + std::to_string(r.line));
    return out;
}

Error errorOf(std::string_view bytes, const std::string &path, const TextInputSpec &spec)
{
    try {
        parseTextInput(bytes, path, spec);
    } catch (const Error &e) {
        return e;
    }
    return Error("test", "no error");
}

void writeText(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

int64_t recordCount(const std::string &path)
{
    TFRecordReader r(path);
    std::string p;
    int64_t n = 0;
    while (r.read(p))
        ++n;
    return n;
}

} // namespace

class tst_TextInput : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formatFromName()
    {
        QCOMPARE(textFileFormatFromName("a/b.CSV"), TextFileFormat::Csv);
        QCOMPARE(textFileFormatFromName("b.tsv"), TextFileFormat::Tsv);
        QCOMPARE(textFileFormatFromName("b.jsonl"), TextFileFormat::JsonLines);
        QCOMPARE(textFileFormatFromName("b.ndjson"), TextFileFormat::JsonLines);
        QCOMPARE(textFileFormatFromName("b.json"), TextFileFormat::Json);
        QCOMPARE(textFileFormatFromName("b.txt"), TextFileFormat::Lines);
        QCOMPARE(textFileFormatFromName("README"), TextFileFormat::Lines);
    }

    /// The same pair layout in four formats: the same columns and the same records.
    void samePairLayoutInEveryFormat()
    {
        const std::vector<std::string> want{"A man sleeps.|A person rests.|entailment@2",
                                            "A dog barks.|Cats fly.|contradiction@3"};
        const TextInput csv = parseTextInput("premise,hypothesis,label\nA man sleeps.,A person rests.,entailment\n"
                                             "A dog barks.,Cats fly.,contradiction\n",
                                             "p.csv", specOf(TextFileFormat::Csv));
        const TextInput tsv = parseTextInput("premise\thypothesis\tlabel\nA man sleeps.\tA person rests.\tentailment\n"
                                             "A dog barks.\tCats fly.\tcontradiction\n",
                                             "p.tsv", specOf(TextFileFormat::Tsv));
        const TextInput jsonl = parseTextInput(
            "\n{\"premise\": \"A man sleeps.\", \"hypothesis\": \"A person rests.\", \"label\": \"entailment\"}\n"
            "{\"premise\": \"A dog barks.\", \"hypothesis\": \"Cats fly.\", \"label\": \"contradiction\"}\n",
            "p.jsonl", specOf(TextFileFormat::JsonLines));
        const TextInput json = parseTextInput(
            "[\n{\"premise\": \"A man sleeps.\", \"hypothesis\": \"A person rests.\", \"label\": \"entailment\"},\n"
            " {\"premise\": \"A dog barks.\",\n  \"hypothesis\": \"Cats fly.\", \"label\": \"contradiction\"}\n]\n",
            "p.json", specOf(TextFileFormat::Json));
        for (const TextInput *in : {&csv, &tsv, &jsonl, &json}) {
            QCOMPARE(in->columns.text_a, std::string("premise"));
            QCOMPARE(in->columns.text_b, std::string("hypothesis"));
            QCOMPARE(in->columns.label, std::string("label"));
            QVERIFY(in->columns.text_recognised);
            QVERIFY(in->columns.label_recognised);
            QCOMPARE(textsOf(*in), want);
        }
        QCOMPARE(json.columns_found, (std::vector<std::string>{"premise", "hypothesis", "label"}));
    }

    /// JSON values: numbers and booleans as their JSON text, keys in any order per record,
    /// a missing text key and a nested value are bad records with their line.
    void jsonRecordsByKey()
    {
        const TextInput in = parseTextInput("{\"label\": 1, \"text\": \"free cash\", \"id\": 7}\n"
                                            "{\"text\": \"see you\", \"label\": 0.0}\n"
                                            "{\"label\": 1}\n"
                                            "{\"text\": [\"a\"], \"label\": 1}\n"
                                            "[1, 2]\n"
                                            "{\"text\": \"unclosed\"\n"
                                            "{\"text\": \"   \"}\n",
                                            "s.jsonl", specOf(TextFileFormat::JsonLines));
        QCOMPARE(in.columns_found, (std::vector<std::string>{"label", "text", "id"}));
        QCOMPARE(in.records.size(), size_t(7));
        QCOMPARE(in.records[0].text_a, std::string("free cash"));
        QCOMPARE(in.records[0].label, std::string("1"));
        QCOMPARE(in.records[1].label, std::string("0.0"));
        QCOMPARE(in.records[2].problem, std::string("the record has no 'text'"));
        QCOMPARE(in.records[2].line, int64_t(3));
        QCOMPARE(in.records[3].problem, std::string("the value of 'text' is an array, not a text"));
        QCOMPARE(in.records[4].problem, std::string("the line holds an array, not a JSON object"));
        QCOMPARE(in.records[5].problem, std::string("the line is not valid JSON"));
        QCOMPARE(in.records[5].line, int64_t(6));
        QVERIFY(in.records[6].blank);
        QVERIFY(!in.records[6].has_label);
    }

    /// Hugging Face datasets' to_json() writes JSON Lines into a .json file: read as such.
    void jsonFileHoldingJsonLines()
    {
        const TextInput in = parseTextInput("{\"text\": \"a\", \"label\": 0}\n{\"text\": \"b\", \"label\": 1}\n", "d.json",
                                            specOf(TextFileFormat::Json));
        QCOMPARE(in.format, TextFileFormat::JsonLines);
        QCOMPARE(textsOf(in), (std::vector<std::string>{"a||0@1", "b||1@2"}));
        QCOMPARE(in.warnings.size(), size_t(1));
        QVERIFY2(in.warnings[0].find("d.json: holds one JSON object per line") == 0, in.warnings[0].c_str());
    }

    /// A file whose columns cannot be mapped: an error listing the keys (columns) found.
    void unmappableInputListsColumns()
    {
        Error e = errorOf("{\"body\": \"x\", \"stars\": 5}\n", "r.jsonl", specOf(TextFileFormat::JsonLines));
        QCOMPARE(e.field(), std::string("r.jsonl"));
        QCOMPARE(std::string(e.what()), std::string("no text column was recognised in the keys (keys: 'body', 'stars')"));
        QVERIFY2(e.hint().find("Set text_a_column to NAME") == 0, e.hint().c_str()); // no front-end's words

        e = errorOf("[{\"text\": \"x\"}]", "r.json", specOf(TextFileFormat::Json, /*needLabel=*/true));
        QCOMPARE(std::string(e.what()), std::string("no label column was recognised in the keys (keys: 'text')"));

        e = errorOf("{\"data\": [{\"text\": \"x\"}]}", "r.json", specOf(TextFileFormat::Json));
        QCOMPARE(std::string(e.what()), std::string("the file holds an object, not a JSON array of records"));

        e = errorOf("[{\"text\": \"x\"},\n {\"text\": }]", "r.json", specOf(TextFileFormat::Json));
        QCOMPARE(e.field(), std::string("r.json:2"));
        QCOMPARE(std::string(e.what()), std::string("not valid JSON"));

        TextInputSpec named = specOf(TextFileFormat::Csv);
        named.text_a_column = "body";
        e = errorOf("id,text\n1,a\n", "r.csv", named);
        QCOMPARE(e.field(), std::string("r.csv:1"));
        QCOMPARE(std::string(e.what()), std::string("the header has no column 'body' (columns: 'id', 'text')"));

        // classify picks the format by name: its hint says so.
        TextInputSpec byName = specOf(TextFileFormat::Csv);
        byName.format_from_name = true;
        e = errorOf("id\ttext\n1\ta\n", "r.csv", byName);
        QCOMPARE(e.hint(), std::string("The file looks tab-separated: name it .tsv."));
    }

    /// Lines: one text per line; blank lines are blank records; nothing is split.
    void plainLines()
    {
        const TextInput in = parseTextInput("free cash, now\n\n\"quoted\"\tand tab\r\n", "t.txt", specOf(TextFileFormat::Lines));
        QCOMPARE(textsOf(in), (std::vector<std::string>{"free cash, now||@1", "\"quoted\"\tand tab||@3"}));
        QVERIFY(in.columns_found.empty());
    }

    /// simpletransformers' text_a/text_b frames are a recognised pair.
    void textATextBPair()
    {
        const TextInput in = parseTextInput("text_a,text_b,labels\nx,y,1\n", "s.csv", specOf(TextFileFormat::Csv, true));
        QCOMPARE(in.columns.text_a, std::string("text_a"));
        QCOMPARE(in.columns.text_b, std::string("text_b"));
        QCOMPARE(in.columns.label, std::string("labels"));
    }

    /// Issue 23, kind 3: the casing is taken from the first place that records it, else
    /// inferred from the vocab's pieces: the real bert-base-uncased vocab (which holds "ℝ", an
    /// upper-case letter outside ASCII) is uncased; a vocab with "Free" is cased.
    void casingFromRecordsOrVocab()
    {
        const TokenizerCasing recorded =
            resolveCasing({{"--do_lower_case", std::nullopt}, {"input_meta_data.json", false}, {"report", true}}, "");
        QCOMPARE(recorded.do_lower_case, std::optional<bool>(false));
        QCOMPARE(recorded.source, std::string("input_meta_data.json"));
        QVERIFY(!recorded.inferred);
        QVERIFY(recorded.warning.empty());

        QCOMPARE(upperCasePieces(Vocab::fromTokens({"[PAD]", "[UNK]", "[unused0]", "<S>", "free", "##ing"})), int64_t(0));
        QCOMPARE(upperCasePieces(Vocab::fromTokens({"[PAD]", "Free", "##Ing", "NASA", "free"})), int64_t(3));

        QTemporaryDir dir;
        const std::string cased = dir.path().toStdString() + "/cased.txt";
        writeText(cased, "[PAD]\n[UNK]\n[CLS]\n[SEP]\nFree\nfree\n");
        const TokenizerCasing inferred = resolveCasing({{"input_meta_data.json", std::nullopt}}, cased);
        QCOMPARE(inferred.do_lower_case, std::optional<bool>(false));
        QVERIFY(inferred.inferred);
        QCOMPARE(inferred.source, cased + " (inferred)");
        QVERIFY2(inferred.warning.find("cased (do_lower_case=false): 1 piece(s) of " + cased) != std::string::npos,
                 inferred.warning.c_str());

        const TokenizerCasing unknown = resolveCasing({}, dir.path().toStdString() + "/missing.txt");
        QVERIFY(!unknown.do_lower_case);
        QVERIFY(!unknown.warning.empty());

        const std::string real = "/work/shared/data/vocab/bert-base-uncased-vocab.txt";
        if (!QFile::exists(QString::fromStdString(real)))
            QSKIP("the bert-base-uncased vocab is not here");
        QCOMPARE(upperCasePieces(Vocab::load(real)), int64_t(0));
        QCOMPARE(resolveCasing({}, real).do_lower_case, std::optional<bool>(true));
    }

    /// prepare reads JSON Lines and JSON (a file, or a folder with train/dev files) with the
    /// same rules as CSV: the same examples, bad records named with file:line.
    void prepareReadsJsonLinesAndJson()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        writeText(root + "/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nfree\ncash\nsee\nyou\n");
        PrepareOptions o;
        o.vocab_file = root + "/vocab.txt";
        o.max_seq_length = 8;
        o.eval_fraction = 0.0;
        o.classification_task_name = "jsonl";
        o.input_data_dir = root + "/train.jsonl";
        o.output_dir = root + "/out";
        writeText(o.input_data_dir, "{\"text\": \"free cash\", \"label\": \"spam\"}\n{\"text\": \"see you\", \"label\": \"ham\"}\n"
                                    "{\"text\": \"you\", \"label\": \"ham\"}\n");
        PrepareReport r = prepareData(o);
        QCOMPARE(r.processor_type, std::string("JSONL"));
        QCOMPARE(r.train_examples, int64_t(3));
        QCOMPARE(r.labels, (std::vector<std::string>{"ham", "spam"}));
        QCOMPARE(r.text_a_column, std::string("text"));
        QCOMPARE(recordCount(r.train_path), int64_t(3));

        // A folder with train.json and dev.json (arrays): the dev file is the eval set.
        QDir().mkpath(QString::fromStdString(root + "/folder"));
        writeText(root + "/folder/train.json", "[{\"sentence\": \"free cash\", \"label\": 1},\n {\"sentence\": \"see you\", \"label\": 0}]");
        writeText(root + "/folder/dev.json", "[{\"sentence\": \"cash\", \"label\": 1}]");
        o.classification_task_name = "json";
        o.input_data_dir = root + "/folder";
        o.output_dir = root + "/out2";
        r = prepareData(o);
        QCOMPARE(r.processor_type, std::string("JSON"));
        QCOMPARE(r.train_examples, int64_t(2));
        QCOMPARE(r.eval_examples, int64_t(1));
        QCOMPARE(r.labels, (std::vector<std::string>{"0", "1"}));

        // A record without its text is a bad row named by file:line.
        writeText(root + "/bad.jsonl", "{\"text\": \"free\", \"label\": \"spam\"}\n{\"label\": \"ham\"}\n"
                                       "{\"text\": \"you\", \"label\": \"ham\"}\n");
        o.classification_task_name = "jsonl";
        o.input_data_dir = root + "/bad.jsonl";
        o.output_dir = root + "/out3";
        try {
            prepareData(o);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), root + "/bad.jsonl:2");
            QCOMPARE(std::string(e.what()), std::string("the record has no 'text'"));
            QCOMPARE(e.hint(), std::string("Give every record the same keys, or set skip_bad_rows on to skip such rows."));
        }
        o.skip_bad_rows = true;
        r = prepareData(o);
        QCOMPARE(r.skipped_rows, int64_t(1));
        QCOMPARE(r.skipped[0].where, root + "/bad.jsonl:2");
    }
};

QTEST_GUILESS_MAIN(tst_TextInput)
#include "tst_textinput.moc"
