// SPDX-License-Identifier: Apache-2.0
#include "core/config/inputmetadata.h"

#include <QtTest>

using namespace wb;

class tst_InputMetaData : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void mrpc()
    {
        Diagnostics d;
        const auto m = InputMetaData::fromJson(nlohmann::json::parse(R"({"processor_type": "MRPC",
            "train_data_size": 3668, "max_seq_length": 128, "task_type": "bert_classification",
            "num_labels": 2, "eval_data_size": 408})"),
                                               "meta.json", d);
        QVERIFY2(d.empty(), d.format().c_str());
        QCOMPARE(m.num_labels, int64_t(2));
        QCOMPARE(*m.train_data_size, int64_t(3668));
        QCOMPARE(*m.eval_data_size, int64_t(408));
        QVERIFY(!m.isRegression());
        // Written back in create_finetuning_data.py's key order.
        QCOMPARE(QString::fromStdString(m.toJson().dump()),
                 QStringLiteral(R"({"processor_type":"MRPC","train_data_size":3668,"max_seq_length":128,)"
                                R"("task_type":"bert_classification","num_labels":2,"eval_data_size":408})"));
    }

    /// Issue 23, kind 3: prepare's do_lower_case key is read (no "unknown key" warning) and
    /// written back; meta data without it (create_finetuning_data.py's) leaves it unset.
    void doLowerCaseKey()
    {
        Diagnostics d;
        const auto m = InputMetaData::fromJson(nlohmann::json::parse(R"({"processor_type": "CSV",
            "train_data_size": 3, "max_seq_length": 16, "task_type": "bert_classification",
            "num_labels": 2, "do_lower_case": false})"),
                                               "meta.json", d);
        QVERIFY2(d.empty(), d.format().c_str());
        QVERIFY(m.do_lower_case.has_value());
        QCOMPARE(*m.do_lower_case, false);
        QCOMPARE(QString::fromStdString(m.toJson().dump()),
                 QStringLiteral(R"({"processor_type":"CSV","train_data_size":3,"max_seq_length":16,)"
                                R"("task_type":"bert_classification","num_labels":2,"do_lower_case":false})"));
        const auto old = InputMetaData::fromJson(nlohmann::json::parse(R"({"max_seq_length": 16, "num_labels": 2,
            "task_type": "bert_classification"})"),
                                                 "meta.json", d);
        QVERIFY(!old.do_lower_case.has_value());
        QVERIFY(!old.toJson().contains("do_lower_case"));
        InputMetaData::fromJson(nlohmann::json::parse(R"({"max_seq_length": 16, "num_labels": 2,
            "task_type": "bert_classification", "do_lower_case": "yes"})"),
                                "meta.json", d);
        QVERIFY2(d.hasErrors(), d.format().c_str());
    }

    void stsbRegression()
    {
        Diagnostics d;
        const auto m = InputMetaData::fromJson(nlohmann::json::parse(R"({"processor_type": "STS-B",
            "train_data_size": 5749, "max_seq_length": 128, "task_type": "bert_regression",
            "label_type": "float", "eval_data_size": 1500})"),
                                               "meta.json", d);
        QVERIFY2(d.empty(), d.format().c_str());
        QVERIFY(m.isRegression());
        QCOMPARE(QString::fromStdString(m.label_type), QStringLiteral("float"));
    }

    void testSizes()
    {
        Diagnostics d;
        const auto m = InputMetaData::fromJson(nlohmann::json::parse(R"({"max_seq_length": 64, "task_type":
            "bert_classification", "num_labels": 3, "test_data_size": 10, "test_de_data_size": 5})"),
                                               "meta.json", d);
        QVERIFY2(d.empty(), d.format().c_str());
        QCOMPARE(m.test_data_sizes.size(), size_t(2));
        QCOMPARE(m.test_data_sizes.at("test_de_data_size"), int64_t(5));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("classification without num_labels")
            << R"({"max_seq_length": 128, "task_type": "bert_classification"})"
            << "meta.json: num_labels: task_type is bert_classification but num_labels is missing";
        QTest::newRow("classification with 1 label")
            << R"({"max_seq_length": 128, "task_type": "bert_classification", "num_labels": 1})"
            << "meta.json: num_labels: num_labels is 1, which means regression";
        QTest::newRow("missing max_seq_length") << R"({"task_type": "bert_classification", "num_labels": 2})"
                                                << "meta.json: max_seq_length: the required key";
        QTest::newRow("bad label_type") << R"({"max_seq_length": 8, "task_type": "bert_regression", "label_type": "double"})"
                                        << "label_type: label_type must be \"int\" or \"float\"";
        QTest::newRow("string size") << R"({"max_seq_length": "128", "num_labels": 2})" << "max_seq_length: expected an integer";
        QTest::newRow("squad") << R"({"max_seq_length": 384, "task_type": "bert_squad"})" << "task_type: task_type 'bert_squad'";
        QTest::newRow("zero labels") << R"({"max_seq_length": 8, "num_labels": 0})" << "num_labels must be ≥ 1";
        QTest::newRow("negative train size") << R"({"max_seq_length": 8, "num_labels": 2, "train_data_size": -5})"
                                             << "train_data_size must be ≥ 0";
        QTest::newRow("zero seq") << R"({"max_seq_length": 0, "num_labels": 2})" << "max_seq_length must be > 0";
        QTest::newRow("regression with labels")
            << R"({"max_seq_length": 8, "task_type": "bert_regression", "num_labels": 3})" << "task_type is bert_regression but num_labels is 3";
    }

    void errors()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        Diagnostics d;
        InputMetaData::fromJson(nlohmann::json::parse(json.toStdString()), "meta.json", d);
        QVERIFY(d.hasErrors());
        QString all;
        for (const auto &i : d.items())
            if (i.severity == Severity::Error)
                all += QString::fromStdString(i.field + ": " + i.message) + QLatin1Char('\n');
        QVERIFY2(all.contains(expected), qPrintable(all));
    }

    void noTaskNoLabelsIsRegressionWithWarning()
    {
        Diagnostics d;
        const auto m = InputMetaData::fromJson(nlohmann::json::parse(R"({"max_seq_length": 8})"), "meta.json", d);
        QVERIFY(!d.hasErrors());
        QVERIFY(m.isRegression());
        QCOMPARE(d.items().size(), size_t(1));
        QCOMPARE(d.items()[0].severity, Severity::Warning);
    }
};

QTEST_APPLESS_MAIN(tst_InputMetaData)
#include "tst_inputmetadata.moc"
