// SPDX-License-Identifier: Apache-2.0
// All-reduce bandwidth of the bucketed gradient sync (issue 6): the gradients of BERT-Tiny
// and BERT-Mini (real parameter shapes), averaged over N ranks on 127.0.0.1 (threads of this
// process, each with its own ProcessGroupGloo, i.e. the same TCP path as local workers).
// Usage: bench_allreduce [ranks=2] [iterations=10] [bucket_mb=4]
// Prints one JSON object per config.
#include "bench/benchconfig.h"
#include "core/distribute/processgroup.h"
#include "core/model/bertmodel.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

using namespace wb;

int main(int argc, char **argv)
{
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 2;
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 10;
    const double bucketMb = argc > 3 ? std::atof(argv[3]) : 4.0;
    torch::set_num_threads(1);
    for (const std::string name : {"tiny", "mini"}) {
        nn::BertForSequenceClassification model(benchConfig(name), 2, nn::makeGenerator(0));
        std::vector<torch::Tensor> shapes;
        int64_t bytes = 0;
        for (auto &p : model->parameters()) {
            shapes.push_back(torch::empty_like(p));
            bytes += p.numel() * int64_t(p.element_size());
        }
        std::promise<int> port;
        auto portReady = port.get_future().share();
        std::vector<double> seconds(size_t(ranks), 0.0);
        std::vector<int64_t> calls(size_t(ranks), 0);
        std::vector<std::thread> threads;
        for (int r = 0; r < ranks; ++r) {
            threads.emplace_back([&, r] {
                ProcessGroupOptions o;
                o.rank = r;
                o.world_size = ranks;
                o.local_host = "127.0.0.1";
                o.master_port = r == 0 ? 0 : portReady.get();
                o.bucket_bytes = int64_t(bucketMb * 1024 * 1024);
                o.timeout = std::chrono::seconds(60);
                if (r == 0)
                    o.on_listening = [&](int p) { port.set_value(p); };
                auto pg = ProcessGroup::connect(o);
                std::vector<torch::Tensor> grads;
                for (auto &s : shapes)
                    grads.push_back(torch::randn(s.sizes()));
                pg->allReduceMean(grads); // warm-up: connections, allocations
                pg->barrier();
                const int64_t before = pg->collectiveCalls();
                const auto start = std::chrono::steady_clock::now();
                for (int i = 0; i < iterations; ++i)
                    pg->allReduceMean(grads);
                seconds[size_t(r)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                calls[size_t(r)] = (pg->collectiveCalls() - before) / iterations;
                pg->barrier();
            });
        }
        for (auto &t : threads)
            t.join();
        const double perStep = seconds[0] / iterations;
        const double mb = double(bytes) / (1024.0 * 1024.0);
        // Ring all-reduce moves 2·(N-1)/N of the data per rank ("bus bandwidth").
        const double busFactor = 2.0 * (ranks - 1) / ranks;
        std::printf("{\"bench\":\"allreduce\",\"config\":\"bert-%s\",\"ranks\":%d,\"gradient_mb\":%.2f,"
                    "\"buckets_per_step\":%lld,\"bucket_mb\":%.1f,\"ms_per_step\":%.2f,\"algorithm_mb_per_s\":%.1f,"
                    "\"bus_mb_per_s\":%.1f}\n",
                    name.c_str(), ranks, mb, (long long)calls[0], bucketMb, perStep * 1000.0, mb / perStep,
                    mb * busFactor / perStep);
        std::fflush(stdout);
    }
    return 0;
}
