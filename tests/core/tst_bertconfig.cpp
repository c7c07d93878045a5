// SPDX-License-Identifier: Apache-2.0
#include "core/config/bertconfig.h"
#include "core/config/jsonfile.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

class tst_BertConfig : public QObject
{
    Q_OBJECT

private:
    static std::string firstError(const Diagnostics &d)
    {
        for (const auto &i : d.items())
            if (i.severity == Severity::Error)
                return i.field + ": " + i.message;
        return {};
    }

private Q_SLOTS:
    void defaultsAndOriginalKeys()
    {
        Diagnostics d;
        const auto c = BertConfig::fromJson(nlohmann::json::parse(R"({"vocab_size": 30522, "hidden_size": 768,
            "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512,
            "type_vocab_size": 2, "initializer_range": 0.02})"),
                                            "bert_config.json", d);
        QVERIFY2(d.empty(), d.format().c_str());
        QCOMPARE(c.vocab_size, int64_t(30522));
        QCOMPARE(c.type_vocab_size, int64_t(2));
        // BERT-Base classifier with 2 labels: 109,483,778 parameters (Hugging Face's count).
        QCOMPARE(c.parameterCount(2).total(), int64_t(109483778));
    }

    void missingKeysTakeTf2Defaults()
    {
        Diagnostics d;
        const auto c = BertConfig::fromJson(nlohmann::json::parse(R"({"vocab_size": 100})"), "c.json", d);
        QVERIFY(!d.hasErrors());
        QCOMPARE(c.hidden_size, int64_t(768));
        QCOMPARE(c.type_vocab_size, int64_t(16));
        // One warning per defaulted size key, then type_vocab_size's.
        QCOMPARE(d.items().size(), size_t(6));
        QCOMPARE(QString::fromStdString(d.items()[0].field), QStringLiteral("c.json: type_vocab_size"));
        QCOMPARE(QString::fromStdString(d.items()[1].message), QStringLiteral("hidden_size is missing; using BERT-Base's 768"));
    }

    void tinyParameterCountAndFlops()
    {
        const BertConfig tiny = bertPresets().front().config;
        QCOMPARE(tiny.hidden_size, int64_t(128));
        const ParameterCount p = tiny.parameterCount(2);
        QCOMPARE(p.embeddings, int64_t(3972864));
        QCOMPARE(p.encoder, int64_t(396544));
        QCOMPARE(p.pooler, int64_t(16512));
        QCOMPARE(p.classifier, int64_t(258));
        QCOMPARE(p.total(), int64_t(4386178));
        // 0.355 GFLOP per example at 128 tokens (forward, BERT-Mini; docs/benchmarks.md).
        QVERIFY(qAbs(tiny.trainingFlopsPerExample(128, 2) / 1e9 - 0.355) < 0.001);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected"); // substring of the first error
        QTest::newRow("missing vocab") << R"({"hidden_size": 128})" << "c.json: vocab_size: the required key";
        QTest::newRow("string size") << R"({"vocab_size": "30522"})" << "c.json: vocab_size: expected an integer";
        QTest::newRow("zero hidden") << R"({"vocab_size": 10, "hidden_size": 0})" << "hidden_size: hidden_size must be > 0";
        QTest::newRow("negative layers") << R"({"vocab_size": 10, "num_hidden_layers": -1})" << "num_hidden_layers must be > 0";
        QTest::newRow("dropout 1") << R"({"vocab_size": 10, "hidden_dropout_prob": 1.5})" << "hidden_dropout_prob must be in [0, 1), got 1.5";
        QTest::newRow("dropout negative") << R"({"vocab_size": 10, "attention_probs_dropout_prob": -0.1})"
                                          << "attention_probs_dropout_prob must be in [0, 1)";
        QTest::newRow("heads") << R"({"vocab_size": 10, "hidden_size": 100, "num_attention_heads": 12})"
                               << "The hidden size (100) is not a multiple of the number of attention heads (12)";
        QTest::newRow("activation") << R"({"vocab_size": 10, "hidden_act": "sigmoid"})" << "Unsupported activation: sigmoid";
        QTest::newRow("act type") << R"({"vocab_size": 10, "hidden_act": 3})" << "hidden_act: expected a string";
        QTest::newRow("bool size") << R"({"vocab_size": true})" << "vocab_size: expected an integer";
        QTest::newRow("null size") << R"({"vocab_size": 10, "hidden_size": null})" << "c.json: hidden_size: the value is null";
        QTest::newRow("fractional") << R"({"vocab_size": 10.5})" << "vocab_size: expected an integer";
        QTest::newRow("embedding_size") << R"({"vocab_size": 10, "embedding_size": 0})" << "embedding_size must be > 0";
    }

    void errors()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        Diagnostics d;
        BertConfig::fromJson(nlohmann::json::parse(json.toStdString()), "c.json", d);
        QVERIFY(d.hasErrors());
        const QString got = QString::fromStdString(firstError(d));
        QVERIFY2(got.contains(expected), qPrintable(got));
    }

    void unknownKeysAreWarningsAndKept()
    {
        Diagnostics d;
        const auto c = BertConfig::fromJson(nlohmann::json::parse(R"({"vocab_size": 10, "type_vocab_size": 2,
            "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 8,
            "max_position_embeddings": 16, "hiden_size": 64, "model_type": "bert"})"),
                                            "c.json", d);
        QVERIFY(!d.hasErrors());
        QCOMPARE(d.items().size(), size_t(1));
        QCOMPARE(d.items()[0].severity, Severity::Warning);
        QVERIFY(QString::fromStdString(d.items()[0].message).contains(QStringLiteral("hiden_size")));
        QCOMPARE(c.extra["hiden_size"].get<int>(), 64);
        QCOMPARE(c.toJson()["hiden_size"].get<int>(), 64);
    }

    void huggingFaceConfigJson()
    {
        // A config.json as transformers' BertForSequenceClassification.save_pretrained writes it.
        Diagnostics d;
        const auto c = BertConfig::fromJson(nlohmann::json::parse(R"({
            "_name_or_path": "bert-base-uncased", "architectures": ["BertForSequenceClassification"],
            "attention_probs_dropout_prob": 0.1, "classifier_dropout": null, "gradient_checkpointing": false,
            "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 128,
            "id2label": {"0": "NEGATIVE", "1": "POSITIVE"}, "initializer_range": 0.02, "intermediate_size": 512,
            "label2id": {"NEGATIVE": 0, "POSITIVE": 1}, "layer_norm_eps": 1e-07, "max_position_embeddings": 512,
            "model_type": "bert", "num_attention_heads": 2, "num_hidden_layers": 2, "pad_token_id": 0,
            "position_embedding_type": "absolute", "problem_type": "single_label_classification",
            "torch_dtype": "float32", "transformers_version": "4.36.2", "type_vocab_size": 2, "use_cache": true,
            "vocab_size": 30522})"),
                                            "config.json", d);
        QVERIFY2(d.items().empty(), d.items().empty() ? "" : d.items()[0].message.c_str());
        QCOMPARE(c.layer_norm_eps, 1e-07);
        QCOMPARE(c.hidden_size, int64_t(128));
        QCOMPARE(c.labelNames(), (std::vector<std::string>{"NEGATIVE", "POSITIVE"}));
        QCOMPARE(c.toJson()["layer_norm_eps"].get<double>(), 1e-07);
        BertConfig plain;
        QVERIFY(plain.labelNames().empty());
        QVERIFY(!plain.toJson().contains("layer_norm_eps")); // BERT's 1e-12 stays implicit
    }

    void huggingFaceKeysThatMatter_data()
    {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<bool>("isError");
        QTest::addColumn<QString>("field");
        QTest::newRow("relative positions") << R"("position_embedding_type": "relative_key")" << true
                                            << "position_embedding_type";
        QTest::newRow("id2label gap") << R"("id2label": {"0": "a", "2": "c"})" << true << "id2label";
        QTest::newRow("id2label not string") << R"("id2label": {"0": 1})" << true << "id2label";
        QTest::newRow("eps zero") << R"("layer_norm_eps": 0)" << true << "layer_norm_eps";
        QTest::newRow("roberta") << R"("model_type": "roberta")" << false << "model_type";
        QTest::newRow("classifier dropout") << R"("classifier_dropout": 0.3)" << false << "classifier_dropout";
    }

    void huggingFaceKeysThatMatter()
    {
        QFETCH(QString, extra);
        QFETCH(bool, isError);
        QFETCH(QString, field);
        Diagnostics d;
        const std::string text = R"({"vocab_size": 10, "type_vocab_size": 2, "hidden_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 1, "intermediate_size": 8, "max_position_embeddings": 16, )"
                                 + extra.toStdString() + "}";
        const auto c = BertConfig::fromJson(nlohmann::json::parse(text), "config.json", d);
        QCOMPARE(d.items().size(), size_t(1));
        QCOMPARE(d.items()[0].severity, isError ? Severity::Error : Severity::Warning);
        QCOMPARE(QString::fromStdString(d.items()[0].field), QStringLiteral("config.json: ") + field);
        if (field == QStringLiteral("id2label"))
            QVERIFY(c.labelNames().empty());
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QByteArray("") << "the file is empty";
        QTest::newRow("blank") << QByteArray("  \n") << "the file is empty";
        QTest::newRow("syntax") << QByteArray("{\n  \"vocab_size\": 10\n  \"hidden_size\": 8\n}") << "invalid JSON at line 3, column ";
        QTest::newRow("array") << QByteArray("[1, 2]") << "the top level is a JSON array";
    }

    void badFiles()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bert_config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        Diagnostics d;
        QVERIFY(!BertConfig::load(path.toStdString(), d));
        QVERIFY(d.hasErrors());
        QCOMPARE(QString::fromStdString(d.items()[0].field), path);
        QVERIFY2(QString::fromStdString(d.items()[0].message).contains(expected), d.format().c_str());
    }

    void bomIsSkippedWithWarning()
    {
        Diagnostics d;
        auto j = parseJsonObject("\xEF\xBB\xBF{\"vocab_size\": 5}", "c.json", d);
        QVERIFY(j);
        QCOMPARE(d.items().size(), size_t(1));
        QCOMPARE(d.items()[0].severity, Severity::Warning);
    }

    void missingFileAndDirectory()
    {
        QTemporaryDir dir;
        Diagnostics d;
        QVERIFY(!BertConfig::load(dir.filePath(QStringLiteral("nope.json")).toStdString(), d));
        QCOMPARE(QString::fromStdString(d.items()[0].message), QStringLiteral("file not found"));
        Diagnostics d2;
        QVERIFY(!BertConfig::load(dir.path().toStdString(), d2));
        QCOMPARE(QString::fromStdString(d2.items()[0].message), QStringLiteral("is a directory, not a file"));
    }

    void presets()
    {
        const auto &p = bertPresets();
        QCOMPARE(p.size(), size_t(6));
        for (const auto &preset : p) {
            Diagnostics d;
            BertConfig::fromJson(preset.config.toJson(), preset.id, d);
            QVERIFY2(!d.hasErrors(), d.format().c_str());
        }
        QCOMPARE(p[1].config.num_hidden_layers, int64_t(4));
        QCOMPARE(p[1].config.hidden_size, int64_t(256));
        QCOMPARE(p[1].config.parameterCount(2).total(), int64_t(11171074)); // BERT-Mini with a 2-class head: 11.17 M
    }

    void atomicWrite()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("sub/out.json")).toStdString();
        writeFileAtomic(path, "{\"a\": 1}\n");
        writeFileAtomic(path, "{\"a\": 2}\n");
        Diagnostics d;
        auto j = readJsonObjectFile(path, d);
        QVERIFY(j);
        QCOMPARE((*j)["a"].get<int>(), 2);
        QCOMPARE(QDir(dir.filePath(QStringLiteral("sub"))).entryList(QDir::Files).size(), 1);
    }
};

QTEST_APPLESS_MAIN(tst_BertConfig)
#include "tst_bertconfig.moc"
