// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli embeddings` (issue 25, the embedding view): the 2-D PCA points of a saved
// evaluation, exactly, and TensorBoard's projector files with texts from eval_examples.jsonl.
#include "app/cli/commands.h"
#include "core/formats/embeddings.h"
#include "core/formats/evalexamples.h"

#include <QtTest>

#include <array>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace wb;
using namespace wb::cli;

class tst_CliEmbeddings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pointsAndProjectorFiles()
    {
        QTemporaryDir dir;
        const std::string modelDir = dir.path().toStdString();
        // (±2, 0), (0, ±1): PCA axes e0 and e1, the points themselves.
        EmbeddingSnapshot s;
        s.step = 40;
        s.hidden = 2;
        s.pooled = {2, 0, -2, 0, 0, 1, 0, -1};
        s.example_index = {0, 1, 2, 3};
        s.label_ids = {1, 0, 1, 0};
        s.predictions = {1, 0, 0, 0};
        writeEmbeddings(embeddingsPath(modelDir, 40), s);
        s.step = 20;
        writeEmbeddings(embeddingsPath(modelDir, 20), s);
        std::vector<EvalExample> examples(4);
        const char *texts[] = {"win money", "hello bob", "free cruise", "lunch?"};
        for (int i = 0; i < 4; ++i) {
            examples[size_t(i)].index = i;
            examples[size_t(i)].true_label_id = s.label_ids[size_t(i)];
            examples[size_t(i)].true_label = s.label_ids[size_t(i)] ? "spam" : "ham";
            examples[size_t(i)].probabilities = {0.5, 0.5};
            examples[size_t(i)].text = texts[i];
        }
        writeEvalExamples(evalExamplesPath(modelDir), examples);

        std::ostringstream out, err;
        int rc = runCli({"embeddings", "--model_dir=" + modelDir, "--projector_dir=" + modelDir + "/projector"}, out, err);
        QVERIFY2(rc == kExitOk, err.str().c_str());
        // The ids exactly, the coordinates to rounding (the projection is computed in double).
        const std::vector<std::string> ids = {"0\t1\t1\t1", "1\t0\t0\t1", "2\t1\t0\t0", "3\t0\t0\t1"};
        const std::vector<std::array<double, 2>> xy = {{2, 0}, {-2, 0}, {0, 1}, {0, -1}};
        std::istringstream rows(out.str());
        std::string row;
        QVERIFY(std::getline(rows, row));
        QCOMPARE(row, std::string("index\tlabel_id\tprediction\tcorrect\tx\ty"));
        for (size_t i = 0; i < ids.size(); ++i) {
            QVERIFY(std::getline(rows, row));
            QCOMPARE(row.substr(0, ids[i].size() + 1), ids[i] + "\t");
            std::istringstream fields(row.substr(ids[i].size() + 1));
            double x = 0, y = 0;
            fields >> x >> y;
            QVERIFY2(std::abs(x - xy[i][0]) < 1e-9 && std::abs(y - xy[i][1]) < 1e-9, row.c_str());
        }
        QVERIFY(!std::getline(rows, row));
        QVERIFY2(err.str().find("step 40: 4 vectors of width 2") != std::string::npos, err.str().c_str());
        std::ifstream meta(modelDir + "/projector/metadata.tsv");
        const std::string metaText((std::istreambuf_iterator<char>(meta)), {});
        QCOMPARE(metaText, std::string("index\tlabel\tpredicted\tcorrect\ttext\n"
                                       "0\tspam\tspam\tyes\twin money\n"
                                       "1\tham\tham\tyes\thello bob\n"
                                       "2\tspam\tham\tno\tfree cruise\n"
                                       "3\tham\tham\tyes\tlunch?\n"));
        std::ifstream config(modelDir + "/projector/projector_config.pbtxt");
        const std::string configText((std::istreambuf_iterator<char>(config)), {});
        QVERIFY(configText.find("tensor_name: \"pooled_cls_step_40\"") != std::string::npos);

        // A step that was not saved names the saved ones; --output writes a file.
        std::ostringstream out2, err2;
        rc = runCli({"embeddings", "--model_dir=" + modelDir, "--step=30"}, out2, err2);
        QCOMPARE(rc, int(kExitInvalid));
        QVERIFY2(err2.str().find("Saved steps: 20, 40.") != std::string::npos, err2.str().c_str());
        std::ostringstream out3, err3;
        rc = runCli({"embeddings", "--model_dir=" + modelDir, "--step=20", "--output=" + modelDir + "/p.tsv"}, out3, err3);
        QVERIFY2(rc == kExitOk, err3.str().c_str());
        QVERIFY(out3.str().empty());
        QVERIFY(QFile::exists(QString::fromStdString(modelDir + "/p.tsv")));
        std::ostringstream out4, err4;
        rc = runCli({"embeddings", "--model_dir=" + modelDir + "/none"}, out4, err4);
        QCOMPARE(rc, int(kExitInvalid));
        QVERIFY2(err4.str().find("holds no embeddings") != std::string::npos, err4.str().c_str());
    }
};

QTEST_APPLESS_MAIN(tst_CliEmbeddings)
#include "tst_cliembeddings.moc"
