// SPDX-License-Identifier: Apache-2.0
// The bag-of-words baseline (issue 25; goal: <= 5 s on the SpamAssassin corpus): prepares the
// corpus once without it, then times what `bert-workbench-cli baseline` does (read the
// train/eval records, TF-IDF, liblinear's logistic regression, scoring) and, apart, the fit and
// scoring alone (what prepare adds after tokenizing). Prints one JSON line per measurement.
// Usage: bench_bagofwords <corpus folder (one sub-folder per label)> <vocab.txt> [work dir] [rounds]
#include "core/prepare/bagofwords.h"
#include "core/prepare/dataprep.h"
#include "core/data/examplecodec.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_bagofwords <corpus folder> <vocab.txt> [work dir] [rounds]\n");
        return 2;
    }
    namespace fs = std::filesystem;
    const std::string work = argc > 3 ? argv[3] : (fs::temp_directory_path() / "bench_bagofwords").string();
    const int rounds = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
    wb::PrepareOptions o;
    o.input_data_dir = argv[1];
    o.vocab_file = argv[2];
    o.output_dir = work;
    o.bag_of_words_baseline = false;
    const wb::PrepareReport r = wb::prepareData(o);
    wb::PreparedDataPaths paths{r.train_path, r.eval_path, r.meta_path};

    std::vector<double> whole, fitOnly;
    wb::BagOfWordsBaseline b;
    wb::RecordSpec spec;
    spec.max_seq_length = o.max_seq_length;
    spec.num_labels = int64_t(r.labels.size());
    const auto train = wb::readBagOfWordsDocuments(r.train_path, spec);
    const auto eval = wb::readBagOfWordsDocuments(r.eval_path, spec);
    for (int i = 0; i < rounds; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        b = wb::bagOfWordsBaselineOfPreparedData(paths);
        whole.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        fitOnly.push_back(wb::fitBagOfWordsBaseline(train, eval, spec.num_labels).seconds);
    }
    std::printf("{\"bench\":\"bag_of_words_baseline\",\"train_examples\":%lld,\"eval_examples\":%lld,"
                "\"num_features\":%lld,\"eval_accuracy\":%.4f,\"eval_macro_f1\":%.4f,\"rounds\":%d,"
                "\"seconds_median\":%.3f,\"seconds_min\":%.3f,\"fit_and_score_seconds_median\":%.3f,"
                "\"goal_seconds\":5}\n",
                (long long)b.train_examples, (long long)b.eval_examples, (long long)b.num_features, b.eval_accuracy,
                b.eval_macro_f1, rounds, median(whole), *std::min_element(whole.begin(), whole.end()),
                median(fitOnly));
    fs::remove_all(work);
    return b.fitted() ? 0 : 1;
}
