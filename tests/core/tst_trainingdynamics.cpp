// SPDX-License-Identifier: Apache-2.0
// Training dynamics (issue 46, docs/file-formats.md "training_dynamics.jsonl"): the record-keeper
// and its file, torch-free (links only wb_rundir). What is written reads back exactly; the
// summaries are the formulas recomputed from the arrays; a resume keeps every row whole.
#include "core/formats/trainingdynamics.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace wb;

class TestTrainingDynamics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void summariesAreTheirFormulas()
    {
        TrainingDynamicsRow row;
        row.gold_probabilities = {0.25, 0.5, 0.75};
        row.correct = {false, true, true};
        QCOMPARE(row.confidence(), 0.5);
        QCOMPARE(row.variability(), std::sqrt((0.0625 + 0.0 + 0.0625) / 3.0));
        QCOMPARE(row.correctness(), 2.0 / 3.0);
        TrainingDynamicsRow none;
        QCOMPARE(none.confidence(), 0.0);
        QCOMPARE(none.variability(), 0.0);
        QCOMPARE(none.correctness(), 0.0);
    }

    void writtenFileReadsBackLineByLine()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("training_dynamics.jsonl")).toStdString();
        TrainingDynamics d;
        for (int64_t epoch = 0; epoch < 2; ++epoch)
            for (int64_t i : {2, 0, 1})
                d.record(epoch, i, i % 2, 0.1 * double(i + 1) + 0.5 * double(epoch), epoch == 1);
        writeTrainingDynamics(path, d);
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        const auto first = nlohmann::json::parse(line);
        QCOMPARE(first["index"].get<int64_t>(), int64_t(0));
        QCOMPARE(first["label_id"].get<int64_t>(), int64_t(0));
        QCOMPARE(first["gold_probabilities"].dump(), std::string("[0.1,0.6]"));
        QCOMPARE(first["correct"].dump(), std::string("[false,true]"));
        QCOMPARE(first["confidence"].get<double>(), 0.35);
        QCOMPARE(first["variability"].get<double>(), 0.25);
        QCOMPARE(first["correctness"].get<double>(), 0.5);
        const auto rows = readTrainingDynamics(path);
        QCOMPARE(rows.size(), size_t(3));
        for (size_t k = 0; k < 3; ++k) {
            QCOMPARE(rows[k].index, int64_t(k));
            QCOMPARE(rows[k].label_id, int64_t(k % 2));
            QCOMPARE(rows[k].gold_probabilities, d.rows().at(int64_t(k)).gold_probabilities);
            QCOMPARE(rows[k].correct, (std::vector<bool>{false, true}));
        }
        QVERIFY(readTrainingDynamics(dir.filePath(QStringLiteral("absent.jsonl")).toStdString()).empty());
    }

    void resumeKeepsEveryRowWhole()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("training_dynamics.jsonl")).toStdString();
        TrainingDynamics first;
        for (int64_t epoch = 0; epoch < 2; ++epoch)
            for (int64_t i = 0; i < 4; ++i)
                first.record(epoch, i, 1, 0.5, true);
        writeTrainingDynamics(path, first);
        // Resumed from the checkpoint of epoch 1: the second epoch is recorded again.
        TrainingDynamics resumed;
        resumed.restore(readTrainingDynamics(path));
        resumed.truncate(1);
        for (int64_t epoch = 1; epoch < 3; ++epoch)
            for (int64_t i = 0; i < 4; ++i)
                resumed.record(epoch, i, 1, 0.9, false);
        QCOMPARE(resumed.rows().size(), size_t(4));
        for (const auto &[i, row] : resumed.rows()) {
            QCOMPARE(row.gold_probabilities, (std::vector<double>{0.5, 0.9, 0.9}));
            QCOMPARE(row.correct, (std::vector<bool>{true, false, false}));
        }
    }

    void wrongOrderOrLabelIsAnErrorNamingTheRecord()
    {
        TrainingDynamics d;
        d.record(0, 7, 1, 0.5, true);
        try {
            d.record(2, 7, 1, 0.5, true);
            QFAIL("an epoch skipped must throw");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("training_dynamics: record 7"));
            QCOMPARE(std::string(e.what()), std::string("epoch 2 recorded after 1 epochs"));
        }
        try {
            d.record(1, 7, 0, 0.5, true);
            QFAIL("another label must throw");
        } catch (const Error &e) {
            QCOMPARE(std::string(e.what()), std::string("label 0 was recorded, but the record's label was 1 before"));
        }
    }

    void brokenLineIsAnErrorNamingFileLineAndKey()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("training_dynamics.jsonl")).toStdString();
        {
            std::ofstream out(path);
            out << R"({"index":0,"label_id":1,"gold_probabilities":[0.5],"correct":[true]})" << "\n"
                << R"({"index":1,"label_id":1,"gold_probabilities":[0.5,0.6],"correct":[true]})" << "\n";
        }
        try {
            readTrainingDynamics(path);
            QFAIL("arrays of different lengths must throw");
        } catch (const Error &e) {
            QCOMPARE(e.field(), path + ": line 2: correct");
            QCOMPARE(std::string(e.what()), std::string("has 1 entries but gold_probabilities has 2"));
        }
        {
            std::ofstream out(path);
            out << R"({"index":"0","label_id":1,"gold_probabilities":[],"correct":[]})" << "\n";
        }
        try {
            readTrainingDynamics(path);
            QFAIL("a string index must throw");
        } catch (const Error &e) {
            QCOMPARE(e.field(), path + ": line 1: index");
        }
    }
};

QTEST_GUILESS_MAIN(TestTrainingDynamics)
#include "tst_trainingdynamics.moc"
