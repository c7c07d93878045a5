// SPDX-License-Identifier: Apache-2.0
// The torch-free peak-memory estimate and host information (issue 17).
#include "core/config/hostinfo.h"
#include "core/config/memoryestimate.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace wb;

namespace {

BertConfig bert(int64_t layers, int64_t hidden, int64_t heads)
{
    BertConfig c;
    c.vocab_size = 30522;
    c.type_vocab_size = 2;
    c.max_position_embeddings = 512;
    c.num_hidden_layers = layers;
    c.hidden_size = hidden;
    c.num_attention_heads = heads;
    c.intermediate_size = 4 * hidden;
    return c;
}

} // namespace

class tst_MemoryEstimate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parameterStateIsExact()
    {
        const BertConfig base = bert(12, 768, 12);
        const MemoryEstimate m = estimateTrainingMemory(base, 2, 128, 32, 1, "fp32");
        const int64_t p = base.parameterCount(2).total();
        QCOMPARE(p, int64_t(109483778)); // BERT-Base + a 2-label head
        QCOMPARE(m.parameters, 4 * p);
        QCOMPARE(m.gradients, 4 * p);
        QCOMPARE(m.optimizer, 8 * p);
        QCOMPARE(m.total(), m.parameters + m.gradients + m.optimizer + m.activations + m.runtime);
        // Same weights and optimizer state in bf16: the number format changes activations only.
        const MemoryEstimate b = estimateTrainingMemory(base, 2, 128, 32, 1, "bf16");
        QCOMPARE(b.parameters, m.parameters);
        QCOMPARE(b.optimizer, m.optimizer);
        QVERIFY(b.activations < m.activations);
    }

    void activationsFollowTheMicroBatch()
    {
        const BertConfig mini = bert(4, 256, 4);
        const MemoryEstimate whole = estimateTrainingMemory(mini, 2, 128, 32, 1, "fp32");
        const MemoryEstimate accumulated = estimateTrainingMemory(mini, 2, 128, 32, 4, "fp32");
        const MemoryEstimate small = estimateTrainingMemory(mini, 2, 128, 8, 1, "fp32");
        // 4 micro-batches of 8 = batch 8, plus the embedding gradient's temporary [vocab, E] float32.
        QCOMPARE(accumulated.activations, small.activations + 4 * 30522 * 256);
        QCOMPARE(accumulated.parameters, whole.parameters);
        // Activations are linear in the batch (and the attention scores quadratic in seq).
        const double ratio = double(whole.activations) / double(small.activations);
        QVERIFY2(std::abs(ratio - 4.0) < 1e-6, std::to_string(ratio).c_str());
        const MemoryEstimate longer = estimateTrainingMemory(mini, 2, 256, 8, 1, "fp32");
        QVERIFY(double(longer.activations) > 2.0 * double(small.activations));
        QCOMPARE(estimateTrainingMemory(mini, 2, 128, 0, 1, "fp32").activations, int64_t(0));
    }

    /// (issue 17, --activation_checkpointing) Instead of L−1 full blocks and the [CLS]-only
    /// last block, the blocks keep their float32 input (4·H bytes per token) and one full
    /// block exists at a time; under bf16 only that block's weight copies are alive.
    void checkpointingKeepsOneBlock()
    {
        const BertConfig base = bert(12, 768, 12);
        const double L = 12, h = 768, i = 3072, tokens = 32 * 128, scores = 32.0 * 12 * 128 * 128;
        {
            const MemoryEstimate plain = estimateTrainingMemory(base, 2, 128, 32, 1, "fp32");
            const MemoryEstimate ckpt = estimateTrainingMemory(base, 2, 128, 32, 1, "fp32", true);
            const double block = tokens * (34 * h + 8 * i) + scores * 9;  // 264,241,152 bytes
            const double last = tokens * 4 * h + tokens * 8 * h + 32 * (34 * h + 8 * i) + scores / 128 * 9;
            const double expected = 1.4 * ((L - 2) * block + last - L * tokens * 4 * h);
            QCOMPARE(block, 264241152.0);
            QCOMPARE(last, 39813120.0);
            const int64_t saved = plain.activations - ckpt.activations;
            QVERIFY2(std::abs(double(saved) - expected) <= 1.0, qPrintable(QStringLiteral("%1 vs %2").arg(saved).arg(expected, 0, 'f', 1)));
            QCOMPARE(ckpt.parameters, plain.parameters);
            QCOMPARE(ckpt.optimizer, plain.optimizer);
            QVERIFY(saved > int64_t(3.3 * double(1LL << 30))); // ≈ 3.3 GiB of BERT-Base's activations
        }
        {
            const MemoryEstimate plain = estimateTrainingMemory(base, 2, 128, 32, 1, "bf16");
            const MemoryEstimate ckpt = estimateTrainingMemory(base, 2, 128, 32, 1, "bf16", true);
            const double block = tokens * (30 * h + 4 * i) + scores * 7;
            const double last = tokens * 6 * h + tokens * 4 * h + 32 * (30 * h + 4 * i) + scores / 128 * 7;
            const double encoder = double(base.parameterCount(2).encoder);
            QCOMPARE(encoder, 12.0 * (4 * h * h + 2 * h * i + 9 * h + i));
            const double expected = 1.4 * ((L - 2) * block + last - L * tokens * 4 * h + 2 * encoder * (1 - 1 / L));
            const int64_t saved = plain.activations - ckpt.activations;
            QVERIFY2(std::abs(double(saved) - expected) <= 1.0, qPrintable(QStringLiteral("%1 vs %2").arg(saved).arg(expected, 0, 'f', 1)));
        }
        // With accumulation the micro-batch sets the activations as before.
        const MemoryEstimate accumulated = estimateTrainingMemory(base, 2, 128, 32, 4, "fp32", true);
        const MemoryEstimate small = estimateTrainingMemory(base, 2, 128, 8, 1, "fp32", true);
        QCOMPARE(accumulated.activations, small.activations + 4 * 30522 * 768);
    }

    void summaryLine()
    {
        MemoryEstimate m;
        m.parameters = int64_t(0.4 * double(1LL << 30));
        m.gradients = m.parameters;
        m.optimizer = 2 * m.parameters;
        m.activations = int64_t(4.2 * double(1LL << 30));
        m.runtime = int64_t(0.1 * double(1LL << 30));
        QCOMPARE(QString::fromStdString(m.summary()),
                 QStringLiteral("estimated peak memory: 5.9 GiB (params 0.4, grads 0.4, optimizer 0.8, activations 4.2)"));
    }

    void cpuFlagsFromCpuinfo()
    {
        QTemporaryDir dir;
        const std::string with = dir.filePath(QStringLiteral("with")).toStdString();
        const std::string without = dir.filePath(QStringLiteral("without")).toStdString();
        const std::string arm = dir.filePath(QStringLiteral("arm")).toStdString();
        std::ofstream(with) << "processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\nflags\t\t: fpu avx2 avx512f avx512_bf16\n\n"
                               "processor\t: 1\nflags\t\t: fpu\n";
        std::ofstream(without) << "processor\t: 0\nflags\t\t: fpu sse avx2 fma\n";
        std::ofstream(arm) << "processor\t: 0\nFeatures\t: fp asimd bf16 i8mm\n";
        QCOMPARE(cpuFlags(with).count("avx512_bf16"), size_t(1));
        QCOMPARE(cpuFlags(with).size(), size_t(4)); // the first processor's line
        QCOMPARE(cpuHasNativeBf16(with), std::optional<bool>(true));
        QCOMPARE(cpuHasNativeBf16(without), std::optional<bool>(false));
        QCOMPARE(cpuHasNativeBf16(arm), std::optional<bool>(true));
        QVERIFY(!cpuHasNativeBf16(dir.filePath(QStringLiteral("missing")).toStdString()).has_value());
        QVERIFY(physicalMemoryBytes() > (64LL << 20));
    }
};

QTEST_APPLESS_MAIN(tst_MemoryEstimate)
#include "tst_memoryestimate.moc"
