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
        row.steps = {1, 2, 3};
        row.gold_probabilities = {0.25, 0.5, 0.75};
        row.predicted_label_ids = {0, 1, 1};
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
        for (int64_t pass = 0; pass < 2; ++pass)
            for (int64_t i : {2, 0, 1}) // label i % 2, predicted 1 in the second pass
                d.record(3 * pass + i + 1, i, i % 2, 0.1 * double(i + 1) + 0.5 * double(pass), pass);
        writeTrainingDynamics(path, d);
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        const auto first = nlohmann::json::parse(line);
        QCOMPARE(first["index"].get<int64_t>(), int64_t(0));
        QCOMPARE(first["label_id"].get<int64_t>(), int64_t(0));
        QCOMPARE(first["steps"].dump(), std::string("[1,4]"));
        QCOMPARE(first["gold_probabilities"].dump(), std::string("[0.1,0.6]"));
        QCOMPARE(first["predicted_label_ids"].dump(), std::string("[0,1]"));
        QCOMPARE(first["correct"].dump(), std::string("[true,false]"));
        QCOMPARE(first["confidence"].get<double>(), 0.35);
        QCOMPARE(first["variability"].get<double>(), 0.25);
        QCOMPARE(first["correctness"].get<double>(), 0.5);
        const auto rows = readTrainingDynamics(path);
        QCOMPARE(rows.size(), size_t(3));
        for (size_t k = 0; k < 3; ++k) {
            const TrainingDynamicsRow &held = d.rows().at(int64_t(k));
            QCOMPARE(rows[k].index, int64_t(k));
            QCOMPARE(rows[k].label_id, int64_t(k % 2));
            QCOMPARE(rows[k].steps, (std::vector<int64_t>{int64_t(k) + 1, int64_t(k) + 4}));
            QCOMPARE(rows[k].gold_probabilities, held.gold_probabilities);
            QCOMPARE(rows[k].predicted_label_ids, (std::vector<int64_t>{0, 1}));
            QCOMPARE(rows[k].correct, (std::vector<bool>{k % 2 == 0, k % 2 == 1}));
        }
        QVERIFY(readTrainingDynamics(dir.filePath(QStringLiteral("absent.jsonl")).toStdString()).empty());
    }

    void regionsFollowTheirBoundaries()
    {
        QCOMPARE(int(dataMapRegion(0.9, 0.05)), int(DataMapRegion::EasyToLearn));
        QCOMPARE(int(dataMapRegion(0.5, 0.199)), int(DataMapRegion::EasyToLearn));
        QCOMPARE(int(dataMapRegion(0.49, 0.1)), int(DataMapRegion::HardToLearn));
        QCOMPARE(int(dataMapRegion(0.05, 0.2)), int(DataMapRegion::Ambiguous));
        QCOMPARE(int(dataMapRegion(0.9, 0.3)), int(DataMapRegion::Ambiguous));
        QCOMPARE(std::string(dataMapRegionName(DataMapRegion::HardToLearn)), std::string("hard-to-learn"));
    }

    void upToIsTheRowAsItStoodAfterAStep()
    {
        TrainingDynamics d;
        d.record(2, 5, 1, 0.2, 0);
        d.record(2, 5, 1, 0.4, 1); // twice in one step: the end of a pass and the start of the next
        d.record(9, 5, 1, 0.9, 1);
        const TrainingDynamicsRow &row = d.rows().at(5);
        QCOMPARE(row.upTo(1).steps.size(), size_t(0));
        QCOMPARE(row.upTo(8).gold_probabilities, (std::vector<double>{0.2, 0.4}));
        QCOMPARE(row.upTo(8).correct, (std::vector<bool>{false, true}));
        QCOMPARE(row.upTo(9).steps, (std::vector<int64_t>{2, 2, 9}));
    }

    void resumeKeepsEveryRowWhole()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("training_dynamics.jsonl")).toStdString();
        TrainingDynamics first; // 4 examples, one a step, two passes; then killed after step 8
        for (int64_t step = 1; step <= 8; ++step)
            first.record(step, (step - 1) % 4, 1, 0.5, 1);
        writeTrainingDynamics(path, first);
        // Resumed from the checkpoint of step 4: steps 5.. are recorded again.
        TrainingDynamics resumed;
        resumed.restore(readTrainingDynamics(path));
        resumed.truncate(4);
        for (int64_t step = 5; step <= 12; ++step)
            resumed.record(step, (step - 1) % 4, 1, 0.9, 0);
        QCOMPARE(resumed.rows().size(), size_t(4));
        for (const auto &[i, row] : resumed.rows()) {
            QCOMPARE(row.steps, (std::vector<int64_t>{i + 1, i + 5, i + 9}));
            QCOMPARE(row.gold_probabilities, (std::vector<double>{0.5, 0.9, 0.9}));
            QCOMPARE(row.correct, (std::vector<bool>{true, false, false}));
        }
        resumed.truncate(0); // a new run in the folder keeps nothing
        QVERIFY(resumed.rows().empty());
    }

    void wrongOrderOrLabelIsAnErrorNamingTheRecord()
    {
        TrainingDynamics d;
        d.record(5, 7, 1, 0.5, 1);
        try {
            d.record(4, 7, 1, 0.5, 1);
            QFAIL("a step before the last must throw");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("training_dynamics: record 7"));
            QCOMPARE(std::string(e.what()), std::string("step 4 recorded after step 5"));
        }
        try {
            d.record(6, 7, 0, 0.5, 1);
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
            out << R"({"index":0,"label_id":1,"steps":[3],"gold_probabilities":[0.5],"predicted_label_ids":[1],"correct":[true]})"
                << "\n"
                << R"({"index":1,"label_id":1,"steps":[3,4],"gold_probabilities":[0.5,0.6],"predicted_label_ids":[1,1],"correct":[true]})"
                << "\n";
        }
        try {
            readTrainingDynamics(path);
            QFAIL("arrays of different lengths must throw");
        } catch (const Error &e) {
            QCOMPARE(e.field(), path + ": line 2: correct");
            QCOMPARE(std::string(e.what()), std::string("has 1 entries but steps has 2"));
        }
        {
            std::ofstream out(path);
            out << R"({"index":"0","label_id":1,"steps":[],"gold_probabilities":[],"predicted_label_ids":[],"correct":[]})" << "\n";
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
