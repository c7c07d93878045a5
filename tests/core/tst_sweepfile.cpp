// SPDX-License-Identifier: Apache-2.0
// sweep.json read back by `sweep` when it resumes: the values the writer and the run flags can
// hold (found by fuzz/fuzz_sweepfile.cpp). A file's parameters follow the rules of --param, a
// run's values name sweepable options with values they can take, and every sample_seed the
// writer writes (an unsigned 64-bit number) reads back.
#include "core/formats/sweep.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace wb;

namespace {

template <typename F>
std::string errorOf(F f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.field() + ": " + e.what();
    }
    return {};
}

/// Writes `json` as `dir`/sweep.json and returns the error reading it gives ("" when none).
std::string readError(const QTemporaryDir &dir, const std::string &json)
{
    std::ofstream(dir.path().toStdString() + "/sweep.json", std::ios::binary) << json;
    return errorOf([&] { readSweepFile(dir.path().toStdString()); });
}

} // namespace

class tst_SweepFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void integerOptionsStayExact()
    {
        // int64_t cannot hold 1e300: the flag text would be undefined behaviour.
        QCOMPARE(errorOf([] { parseSweepParameter("seed=1e300"); }),
                 std::string("--param: \"seed=1e300\": seed takes whole numbers below 2^53, not 1e300"));
        QCOMPARE(errorOf([] { parseSweepParameter("train_batch_size=1:1e300"); }),
                 std::string("--param: \"train_batch_size=1:1e300\": train_batch_size takes whole numbers below 2^53"));
        QCOMPARE(sweepParameterText(parseSweepParameter("seed=9007199254740991")), std::string("seed=9007199254740991"));
        QCOMPARE(sweepParameterText(parseSweepParameter("learning_rate=1e300")), std::string("learning_rate=1e+300"));
    }

    void parametersFollowTheRulesOfParam()
    {
        QTemporaryDir dir;
        const std::string file = dir.path().toStdString() + "/sweep.json";
        const std::string head = R"({"format": "bert-workbench sweep 1", "parameters": [)";
        QCOMPARE(readError(dir, head + R"({"name": "seed", "values": [1.5]}]})"),
                 file + ": parameters[0]: values: \"seed=1.5\": seed takes whole numbers, not 1.5");
        QCOMPARE(readError(dir, head + R"({"name": "learning_rate", "values": [null]}]})"),
                 file + ": parameters[0]: values: \"learning_rate=nan\": \"nan\" is not a number");
        QCOMPARE(readError(dir, head + R"({"name": "dropout", "values": [0.1]}]})"),
                 file + ": parameters[0]: values: \"dropout=0.1\": \"dropout\" cannot be swept");
        QCOMPARE(readError(dir, head + R"({"name": "learning_rate", "low": 1e-3, "high": 1e-5}]})"),
                 file + ": parameters[0]: low: \"learning_rate=0.001:1e-05\": the range's low end must be below its high end");
        QCOMPARE(readError(dir, head + R"({"name": "seed", "values": [1, 2]}]})"), std::string());
    }

    void runValuesAreSweptOptions()
    {
        QTemporaryDir dir;
        const std::string file = dir.path().toStdString() + "/sweep.json";
        const std::string head = R"({"format": "bert-workbench sweep 1", "runs": [{"name": "run-001", "values": )";
        QCOMPARE(readError(dir, head + R"({"seed": 1e300}}]})"),
                 file + ": runs[0]: values: seed: expected a whole number below 2^53");
        QCOMPARE(readError(dir, head + R"({"seed": 2.5}}]})"), file + ": runs[0]: values: seed: expected a whole number below 2^53");
        QCOMPARE(readError(dir, head + R"({"learning_rate": null}}]})"), file + ": runs[0]: values: learning_rate: expected a finite number");
        QCOMPARE(readError(dir, head + R"({"dropout": 0.1}}]})"),
                 file + ": runs[0]: values: dropout: not an option a sweep varies (learning_rate, train_batch_size, "
                        "num_train_epochs, warmup_fraction, weight_decay_rate, seed)");
        QCOMPARE(readError(dir, head + R"({"seed": 3, "learning_rate": 5e-5}}]})"), std::string());
    }

    void everySampleSeedReadsBack()
    {
        QTemporaryDir dir;
        SweepFile f;
        f.spec.method = "random";
        f.spec.num_runs = 1;
        f.spec.sample_seed = 18446744073709551615ull; // --sample_seed reads an unsigned 64-bit number
        f.spec.parameters = {parseSweepParameter("seed=1,2")};
        writeSweepFile(dir.path().toStdString(), f);
        const auto back = readSweepFile(dir.path().toStdString());
        QVERIFY(back);
        QCOMPARE(back->spec.sample_seed, 18446744073709551615ull);
        const std::string file = dir.path().toStdString() + "/sweep.json";
        QCOMPARE(readError(dir, R"({"format": "bert-workbench sweep 1", "method": "random", "sample_seed": -1})"),
                 file + ": sample_seed: expected a whole number from 0 to 18446744073709551615");
        QCOMPARE(readError(dir, R"({"format": "bert-workbench sweep 1", "method": "random", "sample_seed": 7})"), std::string());
    }
};

QTEST_GUILESS_MAIN(tst_SweepFile)
#include "tst_sweepfile.moc"
