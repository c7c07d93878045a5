// SPDX-License-Identifier: Apache-2.0
// Two ranks as two threads, each with its own c10d ProcessGroupGloo over one TCPStore on
// 127.0.0.1 (port 0: the chief picks a free port and hands it to the other thread).
#include "core/util/tcpport.h"
#include "core/config/clusterspec.h"
#include "core/distribute/processgroup.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <QtTest>

#include <chrono>
#include <future>
#include <thread>

using namespace wb;

namespace {

using Body = std::function<void(ProcessGroup &)>;

ProcessGroupOptions optionsFor(int rank, int world, int port, std::chrono::milliseconds timeout)
{
    ProcessGroupOptions o;
    o.master_addr = "127.0.0.1";
    o.master_port = port;
    o.rank = rank;
    o.world_size = world;
    o.local_host = "127.0.0.1";
    o.timeout = timeout;
    for (int r = 0; r < world; ++r)
        o.addresses.push_back("127.0.0.1:" + std::to_string(5000 + r)); // names only
    return o;
}

/// Runs `body(rank)` on two connected ranks; returns each rank's error text ("" = ok).
std::vector<std::string> runPair(const std::function<void(ProcessGroup &, int)> &body, int64_t bucketBytes = 4 << 20,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(20))
{
    std::promise<int> port;
    auto portReady = port.get_future();
    std::vector<std::string> errors(2);
    auto worker = [&](int rank) {
        try {
            ProcessGroupOptions o = optionsFor(rank, 2, rank == 0 ? 0 : portReady.get(), timeout);
            o.bucket_bytes = bucketBytes;
            if (rank == 0)
                o.on_listening = [&](int p) { port.set_value(p); };
            auto pg = ProcessGroup::connect(o);
            body(*pg, rank);
        } catch (const std::exception &e) {
            errors[size_t(rank)] = e.what();
            if (rank == 0) {
                try {
                    port.set_value(1); // unblock rank 1 if rank 0 failed before listening
                } catch (...) {
                }
            }
        }
    };
    std::thread t0(worker, 0), t1(worker, 1);
    t0.join();
    t1.join();
    return errors;
}

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

class tst_ProcessGroup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(1); }

    void bucketedAllReduceMean()
    {
        std::vector<std::vector<torch::Tensor>> results(2);
        std::vector<int64_t> calls(2);
        const auto errors = runPair(
            [&](ProcessGroup &pg, int rank) {
                const float f = float(rank + 1);
                std::vector<torch::Tensor> t{
                    torch::arange(1000, torch::kFloat32) * f,                 // 4000 B: a bucket of its own
                    torch::full({3, 5}, 10.0f + float(rank)),                 // 60 B
                    torch::full({7}, rank == 0 ? 1.0 : 2.0, torch::kFloat64), // other dtype: own bucket
                    torch::arange(100, torch::kFloat32).reshape({10, 10}) - f, // joins the 60 B bucket
                };
                pg.allReduceMean(t);
                results[size_t(rank)] = t;
                calls[size_t(rank)] = pg.collectiveCalls();
            },
            /*bucketBytes=*/2048);
        QCOMPARE(QString::fromStdString(errors[0]), QString());
        QCOMPARE(QString::fromStdString(errors[1]), QString());
        for (int r = 0; r < 2; ++r) {
            const auto &t = results[size_t(r)];
            QVERIFY(torch::equal(t[0], torch::arange(1000, torch::kFloat32) * 1.5f));
            QVERIFY(torch::equal(t[1], torch::full({3, 5}, 10.5f)));
            QCOMPARE(t[2].scalar_type(), torch::kFloat64);
            QVERIFY(torch::equal(t[2], torch::full({7}, 1.5, torch::kFloat64)));
            QVERIFY(torch::equal(t[3], torch::arange(100, torch::kFloat32).reshape({10, 10}) - 1.5f));
            // 4 tensors, 3 buckets: [arange 1000], [3×5, 10×10] (float32), [7] (float64).
            QCOMPARE(calls[size_t(r)], int64_t(3));
        }
    }

    void broadcastFromChief()
    {
        std::vector<std::vector<torch::Tensor>> results(2);
        const auto errors = runPair([&](ProcessGroup &pg, int rank) {
            std::vector<torch::Tensor> t{torch::full({4, 4}, float(rank + 1)), torch::full({2}, int64_t(rank + 7))};
            pg.broadcast(t, 0);
            results[size_t(rank)] = t;
        });
        QCOMPARE(QString::fromStdString(errors[0] + errors[1]), QString());
        for (int r = 0; r < 2; ++r) {
            QVERIFY(torch::equal(results[size_t(r)][0], torch::full({4, 4}, 1.0f)));
            QVERIFY(torch::equal(results[size_t(r)][1], torch::full({2}, int64_t(7))));
        }
    }

    void sumsAndGather()
    {
        std::vector<torch::Tensor> sums(2), gathered(2);
        const auto errors = runPair([&](ProcessGroup &pg, int rank) {
            auto s = torch::tensor({1.25, double(rank), 3.0}, torch::kFloat64);
            pg.allReduceSum(s);
            sums[size_t(rank)] = s;
            // Uneven shards: rank 0 has 2 rows, rank 1 has 3.
            auto rows = torch::arange(rank == 0 ? 2 : 3, torch::kFloat32).reshape({-1, 1}) + 10.0f * float(rank);
            gathered[size_t(rank)] = pg.allGatherConcat(rows);
            pg.barrier();
        });
        QCOMPARE(QString::fromStdString(errors[0] + errors[1]), QString());
        const auto expectedRows = torch::tensor({0.0f, 1.0f, 10.0f, 11.0f, 12.0f}).reshape({5, 1});
        for (int r = 0; r < 2; ++r) {
            QVERIFY(torch::equal(sums[size_t(r)], torch::tensor({2.5, 1.0, 6.0}, torch::kFloat64)));
            QVERIFY(torch::equal(gathered[size_t(r)], expectedRows));
        }
    }

    void missingWorkerIsNamed()
    {
        // World size 2, but only the chief starts: it must give up after the timeout and
        // name rank 1 and its address.
        const auto start = std::chrono::steady_clock::now();
        QString message;
        try {
            ProcessGroup::connect(optionsFor(0, 2, 0, std::chrono::milliseconds(1500)));
        } catch (const Error &e) {
            message = QString::fromUtf8(e.what());
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("cluster"));
        }
        const double elapsed = secondsSince(start);
        QCOMPARE(message, QStringLiteral("1 of 2 worker(s) did not join within 1.5 s: rank 1 (127.0.0.1:5001)"));
        QVERIFY2(elapsed >= 1.4 && elapsed < 6.0, qPrintable(QString::number(elapsed)));
    }

    void stopEndsTheWaitForWorkers()
    {
        // The chief waits for a worker that never comes, with a 300 s timeout; a stop request
        // (the window's Stop, closing the window, Ctrl+C) ends the wait with wb::StoppedByUser.
        StopToken stop;
        ProcessGroupOptions o = optionsFor(0, 2, 0, std::chrono::seconds(300));
        o.stop = &stop;
        std::thread stopper([&stop] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            stop.requestStop();
        });
        QString message, field;
        bool stopped = false;
        try {
            ProcessGroup::connect(o);
        } catch (const StoppedByUser &e) {
            stopped = true;
            message = QString::fromUtf8(e.what());
            field = QString::fromStdString(e.field());
        } catch (const Error &e) {
            message = QString::fromUtf8(e.what());
        }
        stopper.join();
        QVERIFY2(stopped, qPrintable(message));
        QCOMPARE(field, QStringLiteral("cluster"));
        QCOMPARE(message, QStringLiteral("stopped while waiting for the cluster to form"));
    }

    void unreachableChief()
    {
        const int port = pickFreeTcpPort(); // nobody listens here
        const auto start = std::chrono::steady_clock::now();
        QString message;
        try {
            ProcessGroup::connect(optionsFor(1, 2, port, std::chrono::milliseconds(1000)));
        } catch (const Error &e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.startsWith(QStringLiteral("could not reach the chief rank 0 (127.0.0.1:5000) within 1 s")),
                 qPrintable(message));
        QVERIFY(secondsSince(start) < 8.0);
    }

    void deadPeerIsNamed()
    {
        // Rank 1 takes part in one all-reduce, then leaves (its sockets close, as when the
        // process dies). Rank 0's next all-reduce must fail promptly, naming rank 1.
        double elapsed = 0;
        const auto errors = runPair(
            [&](ProcessGroup &pg, int rank) {
                std::vector<torch::Tensor> t{torch::ones({16})};
                pg.allReduceMean(t);
                if (rank == 1)
                    return; // ~ProcessGroup closes the connections
                const auto start = std::chrono::steady_clock::now();
                try {
                    pg.allReduceMean(t);
                } catch (...) {
                    elapsed = secondsSince(start);
                    throw;
                }
            },
            4 << 20, std::chrono::milliseconds(2000));
        QCOMPARE(QString::fromStdString(errors[1]), QString());
        const QString message = QString::fromStdString(errors[0]);
        QVERIFY2(message.startsWith(QStringLiteral("worker rank 1 (127.0.0.1:5001) stopped responding during the gradient all-reduce")),
                 qPrintable(message));
        QVERIFY2(elapsed < 8.0, qPrintable(QString::number(elapsed)));
    }

    void deadChiefIsNamed()
    {
        // The chief (which also hosts the rendezvous store) leaves: rank 1 must say so.
        const auto errors = runPair(
            [&](ProcessGroup &pg, int rank) {
                std::vector<torch::Tensor> t{torch::ones({16})};
                pg.allReduceMean(t);
                if (rank == 0)
                    return;
                pg.allReduceMean(t);
            },
            4 << 20, std::chrono::milliseconds(2000));
        QCOMPARE(QString::fromStdString(errors[0]), QString());
        const QString message = QString::fromStdString(errors[1]);
        QVERIFY2(message.startsWith(QStringLiteral("the chief rank 0 (127.0.0.1:5000) stopped responding during the gradient all-reduce")),
                 qPrintable(message));
    }
};

QTEST_APPLESS_MAIN(tst_ProcessGroup)
#include "tst_processgroup.moc"
