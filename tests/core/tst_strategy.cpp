// SPDX-License-Identifier: Apache-2.0
// Strategies: device choice, batch split, and multi_worker_mirrored with two ranks as two
// threads (parameter broadcast, gradient averaging = full-batch gradient, stop vote,
// sharded-evaluation helpers).
#include "core/util/tcpport.h"
#include "core/distribute/strategy.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <QtTest>

#include <thread>

using namespace wb;

namespace {

std::unique_ptr<Strategy> simple(const std::string &name, int gpus)
{
    TrainingOptions o;
    o.distribution_strategy = name;
    o.num_gpus = gpus;
    return makeStrategy(o);
}

torch::Tensor inputs() { return torch::arange(32, torch::kFloat32).reshape({8, 4}).div(10.0).sin(); }
torch::Tensor targets() { return torch::arange(16, torch::kFloat32).reshape({8, 2}).div(7.0).cos(); }

/// Rank-dependent weights without the global RNG (the ranks are threads of one process).
void initialise(torch::nn::Linear &model, int rank)
{
    torch::NoGradGuard guard;
    model->weight.copy_(torch::arange(8, torch::kFloat32).reshape({2, 4}).mul(0.1f * float(rank + 1)).cos());
    model->bias.copy_(torch::tensor({0.5f, -0.25f}) * float(rank + 1));
}

/// What one worker of the two saw: its error (empty when none), its parameters and gradients
/// after the reduction, its loss (averaged), the stop vote, the sums and gathered values, its
/// shard and per-replica batch.
struct WorkerResult
{
    std::string error;
    std::vector<torch::Tensor> params, grads;
    double loss = 0;
    bool stop = false;
    std::vector<double> sums;
    std::vector<int64_t> gathered;
    ShardSpec shard;
    int64_t perReplica = 0;
};

/// Worker `rank` of two multi_worker_mirrored workers on 127.0.0.1:`port` (one thread each):
/// one step of a Linear(4, 2) from its own initial weights on its shard of the batch of 8,
/// rank 1 asking to stop; then a sum, a gather and a barrier across the workers.
WorkerResult oneOfTwoWorkers(int rank, int port)
{
    WorkerResult o;
    try {
        ClusterSpec cluster;
        cluster.source = ClusterSource::Environment;
        cluster.rank = rank;
        cluster.world_size = 2;
        cluster.master_port = port;
        cluster.local_host = "127.0.0.1";
        TrainingOptions options;
        options.worker_timeout = 20;
        DistributionStrategy ds;
        ds.kind = StrategyKind::MultiWorkerMirrored;
        auto s = makeStrategy(ds, cluster, options);
        o.shard = s->dataShard();
        o.perReplica = s->perReplicaBatch(8);
        torch::nn::Linear model(4, 2);
        initialise(model, rank); // different initial weights per rank
        s->prepare(model->parameters());
        // This rank's shard: rows rank, rank+2, ... (record i goes to worker i % 2).
        auto rows = torch::arange(rank, 8, 2, torch::kInt64);
        auto loss = torch::mse_loss(model(inputs().index_select(0, rows)), targets().index_select(0, rows));
        loss.backward();
        o.loss = loss.item<double>();
        o.stop = s->reduceGradients(model->parameters(), /*stop_requested=*/rank == 1, &o.loss);
        for (auto &p : model->parameters()) {
            o.params.push_back(p.detach().clone());
            o.grads.push_back(p.grad().clone());
        }
        o.sums = {1.5, double(rank)};
        s->sumAcrossWorkers(o.sums);
        o.gathered = rank == 0 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{3};
        s->gatherAcrossWorkers(o.gathered);
        s->barrier();
    } catch (const std::exception &e) {
        o.error = e.what();
    }
    return o;
}

/// Worker `rank`'s result `o` is the reference's: no error, its shard, 4 rows a replica, rank
/// 0's parameters, the full-batch gradient and loss, rank 1's stop request, the sums and the
/// gathered values of both ranks.
void checkWorkerMatchesOneBigBatch(const WorkerResult &o, int rank, const torch::nn::Linear &reference,
                                   double referenceLoss)
{
    const auto refParams = reference->parameters();
    QCOMPARE(QString::fromStdString(o.error), QString());
    QCOMPARE(o.shard.num_shards, 2);
    QCOMPARE(o.shard.shard_index, rank);
    QCOMPARE(o.perReplica, int64_t(4));
    QCOMPARE(o.params.size(), refParams.size());
    for (size_t i = 0; i < refParams.size(); ++i) {
        QVERIFY2(torch::equal(o.params[i], refParams[i].detach()), "parameters were not broadcast from rank 0");
        QVERIFY2(torch::allclose(o.grads[i], refParams[i].grad(), 1e-6, 1e-7),
                 "averaged gradient differs from the full-batch gradient");
    }
    QVERIFY(std::abs(o.loss - referenceLoss) < 1e-6);
    QVERIFY2(o.stop, "rank 1's stop request must reach every rank");
    QCOMPARE(o.sums, (std::vector<double>{3.0, 1.0}));
    QCOMPARE(o.gathered, (std::vector<int64_t>{1, 2, 3}));
}

} // namespace

class tst_Strategy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(1); }

    void singleProcess_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("device"); // or the error's start
        QTest::newRow("one_device cpu") << "one_device" << 0 << "cpu";
        QTest::newRow("mirrored cpu") << "mirrored" << 0 << "cpu";
        QTest::newRow("mwm alone") << "multi_worker_mirrored" << 0 << "cpu";
        if (!torch::cuda::is_available()) {
            QTest::newRow("one_device gpu") << "one_device" << 1 << "cuda:0 is not available: this libtorch sees 0 CUDA device(s)";
            QTest::newRow("mirrored 2 gpus") << "mirrored" << 2 << "cuda:1 is not available: this libtorch sees 0 CUDA device(s)";
        }
        QTest::newRow("none") << "" << 0 << "Distribution strategy has not been specified.";
    }

    void singleProcess()
    {
        QFETCH(QString, name);
        QFETCH(int, gpus);
        QFETCH(QString, device);
        QString got;
        try {
            auto s = simple(name.toStdString(), gpus);
            got = QString::fromStdString(s->device().str());
            QCOMPARE(s->worldSize(), 1);
            QVERIFY(s->isChief());
            QCOMPARE(s->dataShard().num_shards, 1);
            QCOMPARE(s->perReplicaBatch(32), int64_t(32));
            // One worker: the gradient reduction is a no-op that still passes the stop vote.
            auto p = torch::ones({2}, torch::requires_grad());
            QVERIFY(s->reduceGradients({p}, true));
            QVERIFY(!s->reduceGradients({p}, false));
        } catch (const Error &e) {
            got = QString::fromUtf8(e.what());
        }
        QVERIFY2(got.startsWith(device), qPrintable(got));
    }

    void batchNotDivisible()
    {
        // perReplicaBatch with 3 replicas is checked through a fake 3-worker strategy.
        struct Three : Strategy
        {
            std::string name() const override { return "test"; }
            c10::Device device() const override { return c10::kCPU; }
            int worldSize() const override { return 3; }
        } s;
        QCOMPARE(s.perReplicaBatch(12), int64_t(4));
        QCOMPARE(s.dataShard().num_shards, 3);
        try {
            s.perReplicaBatch(8);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("train_batch_size"));
            QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("the global batch 8 is not divisible by the 3 replicas"));
            QCOMPARE(QString::fromStdString(e.hint()), QStringLiteral("use a multiple of 3, e.g. 9"));
        }
    }

    void twoWorkersMatchOneBigBatch()
    {
        // Reference: one model (rank 0's initial weights) on the whole batch of 8.
        torch::nn::Linear reference(4, 2);
        initialise(reference, 0);
        torch::mse_loss(reference(inputs()), targets()).backward();
        const double referenceLoss = torch::mse_loss(reference(inputs()), targets()).item<double>();

        const int port = pickFreeTcpPort();
        std::vector<WorkerResult> out(2);
        auto worker = [&](int rank) { out[size_t(rank)] = oneOfTwoWorkers(rank, port); };
        std::thread t0(worker, 0), t1(worker, 1);
        t0.join();
        t1.join();
        for (int r = 0; r < 2; ++r) {
            checkWorkerMatchesOneBigBatch(out[size_t(r)], r, reference, referenceLoss);
            if (QTest::currentTestFailed())
                return;
        }
    }
};

QTEST_APPLESS_MAIN(tst_Strategy)
#include "tst_strategy.moc"
