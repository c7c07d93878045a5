// SPDX-License-Identifier: Apache-2.0
// The embedding view's data (issue 25): PCA of a known point set (axes and coordinates up to
// the documented sign convention), the embeddings file round trip, TensorBoard projector files.
#include "core/formats/embeddings.h"
#include "core/util/error.h"

#include <QtTest>

#include <cmath>
#include <fstream>

using namespace wb;

namespace {

void near(double got, double want, const char *what)
{
    QVERIFY2(std::abs(got - want) < 1e-9, qPrintable(QStringLiteral("%1: %2 vs %3").arg(QLatin1String(what))
                                                         .arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
}

} // namespace

class tst_Embeddings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// Points mean + a·u + b·v with u = (1, 1, 0)/√2, v = (0, 0, 1), mean (1, 2, 3) and (a, b)
    /// ∈ {(3, 0), (−3, 0), (0, 1), (0, −1)}: the first axis is u (variance 18/3 = 6), the second
    /// v (2/3); the points project to (a, b). Sign convention: the largest coordinate of each
    /// axis is positive (u's two equal ones: the first).
    void pcaOfAKnownPointSet()
    {
        const double r = 1.0 / std::sqrt(2.0);
        const std::vector<std::array<double, 2>> ab = {{3, 0}, {-3, 0}, {0, 1}, {0, -1}};
        std::vector<float> x;
        for (const auto &[a, b] : ab)
            for (const double v : {1 + a * r, 2 + a * r, 3 + b})
                x.push_back(float(v));
        const Projection2D p = pcaProject2D(x, 4, 3);
        // float inputs: the expected values hold to float precision
        auto close = [](double got, double want) { return std::abs(got - want) < 1e-6; };
        QVERIFY(close(p.mean[0], 1) && close(p.mean[1], 2) && close(p.mean[2], 3));
        QVERIFY(close(p.axes[0][0], r) && close(p.axes[0][1], r) && close(p.axes[0][2], 0));
        QVERIFY(close(p.axes[1][0], 0) && close(p.axes[1][1], 0) && close(p.axes[1][2], 1));
        QVERIFY(close(p.variance[0], 6.0));
        QVERIFY(close(p.variance[1], 2.0 / 3.0));
        for (size_t i = 0; i < ab.size(); ++i) {
            QVERIFY2(close(p.points[i][0], ab[i][0]) && close(p.points[i][1], ab[i][1]),
                     qPrintable(QStringLiteral("point %1: (%2, %3)").arg(i).arg(p.points[i][0]).arg(p.points[i][1])));
        }
        // Negated input axes give the same axes (the sign is fixed by the convention), mirrored points.
        std::vector<float> mirrored;
        for (const auto &[a, b] : ab)
            for (const double v : {1 - a * r, 2 - a * r, 3 - b})
                mirrored.push_back(float(v));
        const Projection2D m = pcaProject2D(mirrored, 4, 3);
        QVERIFY(close(m.axes[0][0], r) && close(m.axes[1][2], 1));
        QVERIFY(close(m.points[0][0], -3) && close(m.points[2][1], -1));
        // Deterministic: bit for bit.
        const Projection2D again = pcaProject2D(x, 4, 3);
        QCOMPARE(again.points, p.points);
        QCOMPARE(again.axes[0], p.axes[0]);
    }

    /// A point set with exact double values: 2-D input is its own projection (rotated onto
    /// the principal axes): (±2, 0) and (0, ±1) → axes e0, e1, variances 8/3 and 2/3.
    void pcaExactValues()
    {
        const std::vector<float> x = {2, 0, -2, 0, 0, 1, 0, -1};
        const Projection2D p = pcaProject2D(x, 4, 2);
        near(p.axes[0][0], 1, "axis 0 x");
        near(p.axes[0][1], 0, "axis 0 y");
        near(p.axes[1][0], 0, "axis 1 x");
        near(p.axes[1][1], 1, "axis 1 y");
        near(p.variance[0], 8.0 / 3.0, "variance 0");
        near(p.variance[1], 2.0 / 3.0, "variance 1");
        near(p.points[0][0], 2, "p0");
        near(p.points[1][0], -2, "p1");
        near(p.points[2][1], 1, "p2");
        near(p.points[3][1], -1, "p3");
        // All points equal: zero variance, every point at the origin, still unit axes.
        const Projection2D flat = pcaProject2D({1, 1, 1, 1, 1, 1}, 3, 2);
        near(flat.variance[0], 0, "flat variance");
        near(flat.points[2][0], 0, "flat point");
        near(std::hypot(flat.axes[0][0], flat.axes[0][1]), 1, "flat axis norm");
        QVERIFY_THROWS_EXCEPTION(Error, pcaProject2D({1, 2, 3}, 2, 2));
    }

    void fileRoundTrip()
    {
        QTemporaryDir dir;
        const std::string modelDir = dir.path().toStdString();
        QCOMPARE(embeddingsPath(modelDir, 100), modelDir + "/embeddings/step-000100.safetensors");
        QCOMPARE(embeddingsPath(modelDir, 12345678), modelDir + "/embeddings/step-12345678.safetensors");
        QVERIFY(embeddingSteps(modelDir).empty());
        EmbeddingSnapshot s;
        s.step = 100;
        s.hidden = 3;
        s.pooled = {0.5f, -1.25f, 3.0f, 1e-8f, -0.0f, 7.125f};
        s.example_index = {4, 9};
        s.label_ids = {1, 0};
        s.predictions = {1, 1};
        writeEmbeddings(embeddingsPath(modelDir, 100), s);
        s.step = 20;
        writeEmbeddings(embeddingsPath(modelDir, 20), s);
        QCOMPARE(embeddingSteps(modelDir), (std::vector<int64_t>{20, 100}));
        const EmbeddingSnapshot back = readEmbeddings(embeddingsPath(modelDir, 100));
        QCOMPARE(back.step, int64_t(100));
        QCOMPARE(back.hidden, int64_t(3));
        QCOMPARE(back.pooled, s.pooled);
        QVERIFY(std::signbit(back.pooled[4]));
        QCOMPARE(back.example_index, s.example_index);
        QCOMPARE(back.label_ids, s.label_ids);
        QCOMPARE(back.predictions, s.predictions);

        EmbeddingSnapshot bad = s;
        bad.predictions.pop_back();
        QVERIFY_THROWS_EXCEPTION(Error, writeEmbeddings(embeddingsPath(modelDir, 30), bad));
        QVERIFY(!QFile::exists(QString::fromStdString(embeddingsPath(modelDir, 30))));
        // Not an embeddings file: named.
        std::ofstream(embeddingsPath(modelDir, 40), std::ios::binary) << "not safetensors";
        try {
            readEmbeddings(embeddingsPath(modelDir, 40));
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(e.field().find("step-000040.safetensors") != std::string::npos, e.field().c_str());
        }
    }

    /// TensorBoard's projector files of a tiny set, exactly.
    void projectorFilesText()
    {
        EmbeddingSnapshot s;
        s.step = 7;
        s.hidden = 2;
        s.pooled = {0.5f, -1.25f, 0.1f, 3.0f};
        s.example_index = {0, 5};
        s.label_ids = {0, 1};
        s.predictions = {0, 0};
        const ProjectorFiles f = projectorFiles(s, {"ham", "spam"}, {"hello\tworld", "buy\nnow"});
        QCOMPARE(QString::fromStdString(f.config), QStringLiteral("embeddings {\n"
                                                                  "  tensor_name: \"pooled_cls_step_7\"\n"
                                                                  "  tensor_shape: 2\n"
                                                                  "  tensor_shape: 2\n"
                                                                  "  tensor_path: \"tensors.tsv\"\n"
                                                                  "  metadata_path: \"metadata.tsv\"\n"
                                                                  "}\n"));
        QCOMPARE(f.tensors, std::string("0.5\t-1.25\n0.1\t3\n"));
        QCOMPARE(f.metadata, std::string("index\tlabel\tpredicted\tcorrect\ttext\n"
                                         "0\tham\tham\tyes\thello world\n"
                                         "5\tspam\tham\tno\tbuy now\n"));
        QTemporaryDir dir;
        writeProjectorExport(dir.path().toStdString(), s, {"ham", "spam"}, {});
        QFile meta(dir.filePath(QStringLiteral("metadata.tsv")));
        QVERIFY(meta.open(QIODevice::ReadOnly));
        QCOMPARE(meta.readAll(), QByteArray("index\tlabel\tpredicted\tcorrect\ttext\n0\tham\tham\tyes\t\n5\tspam\tham\tno\t\n"));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("projector_config.pbtxt"))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("tensors.tsv"))));
    }
};

QTEST_APPLESS_MAIN(tst_Embeddings)
#include "tst_embeddings.moc"
