// SPDX-License-Identifier: Apache-2.0
#include "core/util/tcpport.h"
#include "core/config/clusterspec.h"
#include "core/engine/preflight.h"

#include <QtTest>

#include <arpa/inet.h>
#include <map>
#include <netinet/in.h>
#include <set>
#include <sys/socket.h>
#include <unistd.h>

using namespace wb;

using Env = std::map<std::string, std::string>;
Q_DECLARE_METATYPE(Env)

namespace {

EnvLookup lookup(const Env &env)
{
    return [env](const std::string &name) -> std::optional<std::string> {
        const auto it = env.find(name);
        if (it == env.end())
            return std::nullopt;
        return it->second;
    };
}

QString errors(const Diagnostics &diag)
{
    QStringList out;
    for (const auto &d : diag.items())
        if (d.severity == Severity::Error)
            out << QString::fromStdString(d.field + ": " + d.message);
    return out.join(QLatin1Char('\n'));
}

const char *kTwoWorkers = R"({"cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}, "task": {"type": "worker", "index": 1}})";

} // namespace

class tst_ClusterSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void resolve_data()
    {
        QTest::addColumn<Env>("env");
        QTest::addColumn<QString>("workerHosts");
        QTest::addColumn<int>("taskIndex");
        QTest::addColumn<int>("localWorkers");
        QTest::addColumn<int>("source");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("worldSize");
        QTest::addColumn<QString>("master");   // "host:port" when valid
        QTest::addColumn<QString>("localHost");
        QTest::addColumn<QString>("error");    // substring of the errors; empty when valid

        const int single = int(ClusterSource::Single), tf = int(ClusterSource::TfConfig),
                  hosts = int(ClusterSource::WorkerHosts), launcher = int(ClusterSource::LocalLauncher),
                  envSrc = int(ClusterSource::Environment);
        QTest::newRow("nothing") << Env{} << "" << -1 << 0 << single << 0 << 1 << "127.0.0.1:0" << "" << "";
        QTest::newRow("tf worker 1") << Env{{"TF_CONFIG", kTwoWorkers}} << "" << -1 << 0 << tf << 1 << 2
                                     << "10.0.0.1:2222" << "10.0.0.2" << "";
        QTest::newRow("tf chief + workers")
            << Env{{"TF_CONFIG", R"({"cluster": {"chief": ["c:1000"], "worker": ["w0:1001", "w1:1002"]},
                                     "task": {"type": "worker", "index": 1}})"}}
            << "" << -1 << 0 << tf << 2 << 3 << "c:1000" << "w1" << "";
        QTest::newRow("tf chief task")
            << Env{{"TF_CONFIG", R"({"cluster": {"chief": ["c:1000"], "worker": ["w0:1001"]}, "task": {"type": "chief", "index": 0}})"}}
            << "" << -1 << 0 << tf << 0 << 2 << "c:1000" << "c" << "";
        QTest::newRow("tf wins over flags") << Env{{"TF_CONFIG", kTwoWorkers}, {"WORLD_SIZE", "5"}} << "a:1,b:2" << 0 << 0
                                            << tf << 1 << 2 << "10.0.0.1:2222" << "10.0.0.2" << "";
        QTest::newRow("tf bad json") << Env{{"TF_CONFIG", "{cluster"}} << "" << -1 << 0 << tf << 0 << 1 << "" << ""
                                     << "TF_CONFIG: invalid JSON";
        QTest::newRow("tf index out of range")
            << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 2}})"}}
            << "" << -1 << 0 << tf << 0 << 2 << "" << "" << "TF_CONFIG: task.index: 2 is out of range for 2 worker(s)";
        QTest::newRow("tf negative index")
            << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": -1}})"}}
            << "" << -1 << 0 << tf << 0 << 2 << "" << "" << "TF_CONFIG: task.index: -1 is out of range";
        QTest::newRow("tf duplicate")
            << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a:1", "a:1"]}, "task": {"type": "worker", "index": 0}})"}}
            << "" << -1 << 0 << tf << 0 << 2 << "" << "" << "address 'a:1' appears twice";
        QTest::newRow("tf ps task")
            << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a:1"], "ps": ["p:3"]}, "task": {"type": "ps", "index": 0}})"}}
            << "" << -1 << 0 << tf << 0 << 1 << "" << "" << "TF_CONFIG: task.type: task type 'ps' is not supported";
        QTest::newRow("tf evaluator role")
            << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a:1"], "evaluator": ["e:3"]}, "task": {"type": "worker", "index": 0}})"}}
            << "" << -1 << 0 << tf << 0 << 1 << "" << "" << "role 'evaluator' is not supported";
        QTest::newRow("tf no task") << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a:1"]}})"}} << "" << -1 << 0 << tf << 0 << 1
                                    << "" << "" << "TF_CONFIG has no \"task\" object";
        QTest::newRow("tf no port") << Env{{"TF_CONFIG", R"({"cluster": {"worker": ["a"]}, "task": {"type": "worker", "index": 0}})"}}
                                    << "" << -1 << 0 << tf << 0 << 1 << "" << "" << "'a' is not a host:port address";
        QTest::newRow("tf two chiefs")
            << Env{{"TF_CONFIG", R"({"cluster": {"chief": ["a:1", "b:2"]}, "task": {"type": "chief", "index": 0}})"}}
            << "" << -1 << 0 << tf << 0 << 2 << "" << "" << "the cluster lists 2 chiefs";
        QTest::newRow("hosts rank 1") << Env{} << "a:1, b:2" << 1 << 0 << hosts << 1 << 2 << "a:1" << "b" << "";
        QTest::newRow("hosts single") << Env{} << "a:1" << -1 << 0 << hosts << 0 << 1 << "a:1" << "a" << "";
        QTest::newRow("hosts no index") << Env{} << "a:1,b:2" << -1 << 0 << hosts << 0 << 2 << "" << ""
                                        << "task_index: Must specify task_index when number of workers > 1";
        QTest::newRow("hosts index too big") << Env{} << "a:1,b:2" << 2 << 0 << hosts << 0 << 2 << "" << ""
                                             << "task_index: task_index 2 is out of range for 2 worker(s)";
        QTest::newRow("hosts bad port") << Env{} << "a:1,b:70000" << 0 << 0 << hosts << 0 << 2 << "" << ""
                                        << "port of 'b:70000' is out of range";
        QTest::newRow("hosts beat env") << Env{{"WORLD_SIZE", "3"}} << "a:1,b:2" << 1 << 0 << hosts << 1 << 2 << "a:1" << "b" << "";
        QTest::newRow("launcher") << Env{} << "" << -1 << 3 << launcher << -1 << 3 << "127.0.0.1:0" << "127.0.0.1" << "";
        QTest::newRow("launcher + tf") << Env{{"TF_CONFIG", kTwoWorkers}} << "" << -1 << 2 << single << 0 << 1 << "" << ""
                                       << "--num_local_workers starts a cluster on this machine and cannot be combined with TF_CONFIG";
        QTest::newRow("env rank 1")
            << Env{{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}} << "" << -1 << 0
            << envSrc << 1 << 2 << "127.0.0.1:29500" << "127.0.0.1" << "";
        QTest::newRow("env remote") << Env{{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"MASTER_ADDR", "10.1.2.3"}, {"MASTER_PORT", "29500"}}
                                    << "" << -1 << 0 << envSrc << 1 << 2 << "10.1.2.3:29500" << "" << "";
        QTest::newRow("env bad size") << Env{{"WORLD_SIZE", "two"}} << "" << -1 << 0 << envSrc << 0 << 1 << "" << ""
                                      << "WORLD_SIZE: WORLD_SIZE 'two' is not a positive integer";
        QTest::newRow("env rank out of range")
            << Env{{"WORLD_SIZE", "2"}, {"RANK", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}} << "" << -1 << 0 << envSrc << 0
            << 2 << "" << "" << "RANK: RANK is missing or out of range for WORLD_SIZE 2";
        QTest::newRow("env no master") << Env{{"WORLD_SIZE", "2"}, {"RANK", "0"}} << "" << -1 << 0 << envSrc << 0 << 2 << "" << ""
                                       << "MASTER_ADDR and MASTER_PORT must be set with WORLD_SIZE";
        QTest::newRow("env rank only") << Env{{"RANK", "1"}} << "" << -1 << 0 << single << 0 << 1 << "" << ""
                                       << "RANK is set but WORLD_SIZE is not";
    }

    void resolve()
    {
        QFETCH(Env, env);
        QFETCH(QString, workerHosts);
        QFETCH(int, taskIndex);
        QFETCH(int, localWorkers);
        QFETCH(int, source);
        QFETCH(int, rank);
        QFETCH(int, worldSize);
        QFETCH(QString, master);
        QFETCH(QString, localHost);
        QFETCH(QString, error);
        TrainingOptions o;
        o.distribution_strategy = "multi_worker_mirrored";
        o.worker_hosts = workerHosts.toStdString();
        o.task_index = taskIndex;
        o.num_local_workers = localWorkers;
        Diagnostics diag;
        // Port checks are off: these addresses are not this machine's (tested below).
        const ClusterSpec spec = resolveClusterSpec(o, diag, lookup(env));
        const QString all = errors(diag);
        if (error.isEmpty()) {
            QVERIFY2(all.isEmpty(), qPrintable(all));
            QCOMPARE(spec.rank, rank);
            QCOMPARE(QString::fromStdString(spec.master_addr + ":" + std::to_string(spec.master_port)), master);
            QCOMPARE(QString::fromStdString(spec.local_host), localHost);
        } else {
            QVERIFY2(all.contains(error), qPrintable(all));
        }
        QCOMPARE(int(spec.source), source);
        QCOMPARE(spec.world_size, worldSize);
    }

    void describeRank()
    {
        Diagnostics diag;
        const auto spec = resolveClusterSpec(TrainingOptions{}, diag, lookup({{"TF_CONFIG", kTwoWorkers}}));
        QCOMPARE(spec.describeRank(1), std::string("rank 1 (10.0.0.2:2222)"));
        QCOMPARE(spec.describeRank(5), std::string("rank 5"));
    }

    void chiefPortInUse()
    {
        // Hold a listening socket, then claim its port as the chief's rendezvous port.
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_ANY);
        socklen_t len = sizeof addr;
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
        QVERIFY(::listen(fd, 1) == 0);
        QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0);
        const int port = ntohs(addr.sin_port);
        QVERIFY(!tcpPortAvailable(port));

        TrainingOptions o;
        o.worker_hosts = "127.0.0.1:" + std::to_string(port) + ",127.0.0.1:1";
        o.task_index = 0;
        Diagnostics diag;
        checkChiefPort(resolveClusterSpec(o, diag, lookup({})), diag);
        const QString all = errors(diag);
        QVERIFY2(all.contains(QStringLiteral("worker_hosts: port %1 of the chief (rank 0) cannot be used for the rendezvous: "
                                             "the port is already in use").arg(port)),
                 qPrintable(all));
        // A non-chief does not bind the port: no error.
        o.task_index = 1;
        Diagnostics diag2;
        checkChiefPort(resolveClusterSpec(o, diag2, lookup({})), diag2);
        QVERIFY2(!diag2.hasErrors(), qPrintable(errors(diag2)));
        ::close(fd);
        QVERIFY(tcpPortAvailable(port));
    }

    void freePort()
    {
        // Below the ephemeral range, where no outgoing connection can take it before the
        // caller listens; and different ports across calls (random, not the same first free one).
        const auto [low, high] = ephemeralPortRange();
        QVERIFY(low <= high);
        std::set<int> seen;
        for (int k = 0; k < 8; ++k) {
            const int port = pickFreeTcpPort();
            QVERIFY2(port >= 10000 && port + 64 < low, qPrintable(QString::number(port)));
            QVERIFY(tcpPortAvailable(port));
            seen.insert(port);
        }
        QVERIFY(seen.size() > 1);
    }
};

QTEST_APPLESS_MAIN(tst_ClusterSpec)
#include "tst_clusterspec.moc"
