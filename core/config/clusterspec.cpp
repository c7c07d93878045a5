// SPDX-License-Identifier: Apache-2.0
#include "core/config/clusterspec.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

namespace wb {

namespace {

const char *kTfConfigExample = "TF_CONFIG must be JSON like {\"cluster\": {\"worker\": [\"host1:port\", \"host2:port\"]}, "
                               "\"task\": {\"type\": \"worker\", \"index\": 0}}";

std::vector<std::string> splitList(const std::string &s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const auto b = item.find_first_not_of(" \t");
        const auto e = item.find_last_not_of(" \t");
        if (b != std::string::npos)
            out.push_back(item.substr(b, e - b + 1));
    }
    return out;
}

struct HostPort
{
    std::string host;
    int port = 0;
};

/// Splits "host:port" ("[v6]:port" too); nothing when malformed.
std::optional<HostPort> splitHostPort(const std::string &h)
{
    const auto colon = h.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == h.size()
        || h.find_first_not_of("0123456789", colon + 1) != std::string::npos || colon + 1 + 5 < h.size())
        return std::nullopt;
    HostPort hp;
    hp.host = h.substr(0, colon);
    if (hp.host.size() > 2 && hp.host.front() == '[' && hp.host.back() == ']')
        hp.host = hp.host.substr(1, hp.host.size() - 2);
    hp.port = int(std::strtol(h.c_str() + colon + 1, nullptr, 10));
    return hp;
}

/// Checks every entry; returns false when one is unusable.
bool checkHostList(const std::vector<std::string> &hosts, const std::string &field, Diagnostics &diag)
{
    bool ok = true;
    std::set<std::string> seen;
    for (const std::string &h : hosts) {
        const auto hp = splitHostPort(h);
        if (!hp) {
            diag.error(field, "'" + h + "' is not a host:port address", "write each worker as host:port, e.g. 10.0.0.2:12345");
            ok = false;
            continue;
        }
        if (hp->port <= 0 || hp->port > 65535) {
            diag.error(field, "port of '" + h + "' is out of range", "use a port between 1 and 65535");
            ok = false;
        }
        if (!seen.insert(h).second) {
            diag.error(field, "address '" + h + "' appears twice", "every worker (and the chief) needs its own host:port");
            ok = false;
        }
    }
    return ok;
}

bool isLoopback(const std::string &host)
{
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

/// Fills master/local host from addresses[rank] once the address list is known good.
void fillFromAddresses(ClusterSpec &spec)
{
    const auto chief = splitHostPort(spec.addresses.front());
    spec.master_addr = chief->host;
    spec.master_port = chief->port;
    if (spec.rank >= 0 && spec.rank < int(spec.addresses.size()))
        spec.local_host = splitHostPort(spec.addresses[size_t(spec.rank)])->host;
}

namespace {

/// TF_CONFIG's "cluster": the chief (at most one) and the workers, in that order; other roles
/// are errors.
struct TfCluster
{
    std::vector<std::string> chiefs, workers;
};

TfCluster readTfCluster(const nlohmann::json &cluster, Diagnostics &diag)
{
    TfCluster c;
    for (const char *role : {"chief", "worker"}) {
        auto &list = std::string(role) == "chief" ? c.chiefs : c.workers;
        const auto it = cluster.find(role);
        if (it == cluster.end())
            continue;
        if (!it->is_array()) {
            diag.error(std::string("TF_CONFIG: cluster.") + role, "expected a list of \"host:port\" strings",
                       "write e.g. [\"10.0.0.1:12345\", \"10.0.0.2:12345\"]");
            continue;
        }
        for (const auto &h : *it) {
            if (h.is_string())
                list.push_back(h.get<std::string>());
            else
                diag.error(std::string("TF_CONFIG: cluster.") + role, "entry " + h.dump() + " is not a string",
                           "write each worker as \"host:port\"");
        }
    }
    for (auto it = cluster.begin(); it != cluster.end(); ++it)
        if (it.key() != "chief" && it.key() != "worker")
            diag.error("TF_CONFIG: cluster." + it.key(), "role '" + it.key() + "' is not supported by multi_worker_mirrored",
                       "use only \"chief\" and \"worker\" (parameter servers and evaluators are not supported)");
    if (c.chiefs.size() > 1)
        diag.error("TF_CONFIG: cluster.chief", "the cluster lists " + std::to_string(c.chiefs.size()) + " chiefs",
                   "list at most one chief; every other process is a worker");
    return c;
}

/// TF_CONFIG's "task": this process's rank among chief + workers, or nothing after an error.
std::optional<int> readTfTask(const nlohmann::json &task, const TfCluster &c, Diagnostics &diag)
{
    const auto typeIt = task.find("type");
    const std::string type = typeIt != task.end() && typeIt->is_string() ? typeIt->get<std::string>() : std::string();
    const bool typeOk = type == "worker" || type == "chief";
    if (!typeOk)
        diag.error("TF_CONFIG: task.type", "task type '" + type + "' is not supported",
                   "use \"worker\" (or \"chief\") for multi_worker_mirrored");
    const auto &roleList = type == "chief" ? c.chiefs : c.workers;
    const auto index = task.find("index");
    std::optional<int64_t> idx;
    if (index == task.end() || !index->is_number_integer()) {
        if (type == "chief" && index == task.end())
            idx = 0; // TF accepts a chief without an index
        else
            diag.error("TF_CONFIG: task.index", "missing or not an integer",
                       "set \"index\": 0 on the first worker, 1 on the next, ...");
    } else {
        idx = index->get<int64_t>();
    }
    if (typeOk && idx && (*idx < 0 || *idx >= int64_t(roleList.size())))
        diag.error("TF_CONFIG: task.index",
                   std::to_string(*idx) + " is out of range for " + std::to_string(roleList.size()) + " "
                       + type + "(s)",
                   roleList.empty() ? "add this " + type + "'s host:port to cluster." + type
                                    : "use an index from 0 to " + std::to_string(roleList.size() - 1));
    if (!typeOk || !idx)
        return std::nullopt;
    return int(*idx) + (type == "worker" ? int(c.chiefs.size()) : 0);
}

} // namespace

ClusterSpec fromTfConfig(const std::string &text, Diagnostics &diag)
{
    ClusterSpec spec;
    spec.source = ClusterSource::TfConfig;
    Diagnostics local;
    auto j = parseJsonObject(text, "TF_CONFIG", local);
    if (!j) {
        for (const Diagnostic &d : local.items())
            diag.add({d.severity, "TF_CONFIG", d.message, kTfConfigExample});
        return spec;
    }
    const int errors = diag.errorCount();
    const auto cluster = j->find("cluster");
    if (cluster == j->end() || !cluster->is_object()) {
        diag.error("TF_CONFIG: cluster", "TF_CONFIG has no \"cluster\" object", "add \"cluster\": {\"worker\": [\"host:port\", ...]}");
        return spec;
    }
    const TfCluster c = readTfCluster(*cluster, diag);
    std::vector<std::string> hosts = c.chiefs;
    hosts.insert(hosts.end(), c.workers.begin(), c.workers.end());
    if (hosts.empty())
        diag.error("TF_CONFIG: cluster.worker", "the cluster lists no workers", "list every worker's host:port");
    checkHostList(hosts, "TF_CONFIG: cluster", diag);
    spec.addresses = hosts;
    spec.world_size = std::max<int>(1, int(hosts.size()));

    const auto task = j->find("task");
    if (task == j->end() || !task->is_object()) {
        diag.error("TF_CONFIG: task", "TF_CONFIG has no \"task\" object", "add \"task\": {\"type\": \"worker\", \"index\": <this worker>}");
        return spec;
    }
    const std::optional<int> rank = readTfTask(*task, c, diag);
    if (diag.errorCount() != errors || !rank)
        return spec;
    spec.rank = *rank;
    fillFromAddresses(spec);
    spec.master_port_field = c.chiefs.empty() ? "TF_CONFIG: cluster.worker" : "TF_CONFIG: cluster.chief";
    return spec;
}

ClusterSpec fromWorkerHosts(const TrainingOptions &o, Diagnostics &diag)
{
    ClusterSpec spec;
    spec.source = ClusterSource::WorkerHosts;
    const auto hosts = splitList(o.worker_hosts);
    spec.addresses = hosts;
    spec.world_size = std::max<int>(1, int(hosts.size()));
    bool ok = checkHostList(hosts, "worker_hosts", diag);
    if (hosts.empty()) {
        diag.error("worker_hosts", optionName("worker_hosts") + " lists no workers",
                   "write e.g. " + optionSetting("worker_hosts", "10.0.0.1:2222,10.0.0.2:2222"));
        return spec;
    }
    if (hosts.size() > 1 && o.task_index < 0) {
        diag.error("task_index", "Must specify task_index when number of workers > 1",
                   passOption("task_index", "<0.." + std::to_string(hosts.size() - 1) + ">") + " on each worker");
        ok = false;
    } else if (o.task_index >= int(hosts.size())) {
        diag.error("task_index",
                   "task_index " + std::to_string(o.task_index) + " is out of range for " + std::to_string(hosts.size())
                       + " worker(s)",
                   "use an index from 0 to " + std::to_string(hosts.size() - 1));
        ok = false;
    }
    if (!ok)
        return spec;
    spec.rank = std::max(0, o.task_index);
    fillFromAddresses(spec);
    spec.master_port_field = "worker_hosts";
    return spec;
}

std::optional<long> parseInt(const std::string &s)
{
    if (s.empty())
        return std::nullopt;
    char *end = nullptr;
    errno = 0;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (*end != '\0' || errno)
        return std::nullopt;
    return v;
}

ClusterSpec fromEnvironment(const EnvLookup &env, Diagnostics &diag)
{
    ClusterSpec spec;
    spec.source = ClusterSource::Environment;
    const std::string ws = env("WORLD_SIZE").value_or("");
    const auto n = parseInt(ws);
    if (!n || *n <= 0) {
        diag.error("WORLD_SIZE", "WORLD_SIZE '" + ws + "' is not a positive integer", "set WORLD_SIZE to the number of workers");
        return spec;
    }
    spec.world_size = int(*n);
    bool ok = true;
    const auto rankText = env("RANK");
    const auto rank = parseInt(rankText.value_or(""));
    if (!rank || *rank < 0 || *rank >= *n) {
        diag.error("RANK", "RANK is missing or out of range for WORLD_SIZE " + std::to_string(*n),
                   "set RANK to 0.." + std::to_string(*n - 1) + " on each worker");
        ok = false;
    }
    const auto addr = env("MASTER_ADDR");
    const auto portText = env("MASTER_PORT");
    if (!addr || addr->empty() || !portText || portText->empty()) {
        diag.error("MASTER_ADDR", "MASTER_ADDR and MASTER_PORT must be set with WORLD_SIZE",
                   "set them to the chief's address and a free port");
        return spec;
    }
    const auto port = parseInt(*portText);
    if (!port || *port <= 0 || *port > 65535) {
        diag.error("MASTER_PORT", "MASTER_PORT '" + *portText + "' is not a port number", "use a port between 1 and 65535");
        ok = false;
    }
    if (!ok)
        return spec;
    spec.rank = int(*rank);
    spec.master_addr = *addr;
    spec.master_port = int(*port);
    // The Gloo transport binds to this host's address: loopback for a local cluster; otherwise
    // this machine's hostname (or GLOO_SOCKET_IFNAME, read by the process group).
    spec.local_host = isLoopback(*addr) ? "127.0.0.1" : std::string();
    spec.master_port_field = "MASTER_PORT";
    return spec;
}

} // namespace

std::string ClusterSpec::describeRank(int r) const
{
    std::string s = "rank " + std::to_string(r);
    if (r >= 0 && r < int(addresses.size()))
        s += " (" + addresses[size_t(r)] + ")";
    else if (r == 0 && source == ClusterSource::Environment)
        s += " (" + master_addr + ":" + std::to_string(master_port) + ")";
    return s;
}

EnvLookup processEnvironment()
{
    return [](const std::string &name) -> std::optional<std::string> {
        if (const char *v = std::getenv(name.c_str()))
            return std::string(v);
        return std::nullopt;
    };
}

ClusterSpec resolveClusterSpec(const TrainingOptions &o, Diagnostics &diag, const EnvLookup &env)
{
    const auto tfConfig = env("TF_CONFIG");
    const bool hasTf = tfConfig && !tfConfig->empty();
    if (o.num_local_workers > 0) {
        if (hasTf || !o.worker_hosts.empty()) {
            diag.error("num_local_workers",
                       optionName("num_local_workers") + " starts a cluster on this machine and cannot be combined with "
                           + (hasTf ? std::string("TF_CONFIG") : optionName("worker_hosts")),
                       hasTf ? "unset TF_CONFIG (e.g. env -u TF_CONFIG ...) or leave out "
                                   + optionName("num_local_workers")
                             : "leave out either " + optionName("worker_hosts") + " or "
                                   + optionName("num_local_workers"));
            return {};
        }
        ClusterSpec spec;
        spec.source = ClusterSource::LocalLauncher;
        spec.rank = -1;
        spec.world_size = o.num_local_workers;
        spec.local_host = "127.0.0.1";
        return spec;
    }
    if (o.num_local_workers < 0) {
        diag.error("num_local_workers", "num_local_workers must be ≥ 0", "use 2 or more to start a local cluster, 0 for none");
        return {};
    }
    if (hasTf)
        return fromTfConfig(*tfConfig, diag);
    if (!o.worker_hosts.empty())
        return fromWorkerHosts(o, diag);
    if (const auto ws = env("WORLD_SIZE"); ws && !ws->empty())
        return fromEnvironment(env, diag);
    for (const char *name : {"RANK", "MASTER_ADDR", "MASTER_PORT"})
        if (const auto v = env(name); v && !v->empty()) {
            diag.error("WORLD_SIZE", std::string(name) + " is set but WORLD_SIZE is not",
                       "set WORLD_SIZE, RANK, MASTER_ADDR and MASTER_PORT together (or none of them)");
            break;
        }
    return {};
}

} // namespace wb
