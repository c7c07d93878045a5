// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli label_simulate` (issue 47; docs/label-to-learn.md, "Measuring a strategy"):
// the labelling loop with a simulated annotator whose gold labels are hidden in a file
// (core/learn/simulatedannotator.h), for several seeds; prints and writes the curve.
#include "app/cli/commands.h"

#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/interrupt.h"
#include "app/cli/runflags.h"
#include "core/config/commandoptions.h"
#include "core/label/labelsession.h"
#include "core/learn/simulatedannotator.h"
#include "core/prepare/emailbody.h"
#include "core/prepare/textinput.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <set>

namespace wb::cli {

namespace {

struct SimulateFlags
{
    std::string poolFile, evalFile, textColumn, labelColumn, outputDir, labels;
    bool emailBodyOnly = false;
    std::vector<int64_t> seeds{42};
    int64_t maxPool = 0;
    SimulationSettings sim;
};

void addSimulateFlags(CLI::App &app, SimulateFlags &f)
{
    LabelCycleSettings &c = f.sim.cycle;
    app.add_option("--pool_file", f.poolFile,
                   "the texts to label with their gold labels (csv, tsv, jsonl or json; columns as prepare "
                   "finds them); the labels stay hidden until a text is 'labelled'")->required();
    app.add_option("--eval_file", f.evalFile, "labelled texts the models are measured on (same layout)")->required();
    app.add_option("--text_column", f.textColumn, "the text column (default: recognised as prepare does)");
    app.add_option("--label_column", f.labelColumn, "the label column (default: recognised as prepare does)");
    app.add_flag("--email_body_only", f.emailBodyOnly, "keep each text's e-mail body, as prepare --email_body_only");
    app.add_option("--label_list", f.labels, "comma-separated labels in id order (default: the pool's, sorted)");
    app.add_option("--max_pool", f.maxPool, "use only the first N pool texts (0: all)");
    addRowFlag(app, trainingFlagRow("bert_config_file"), c.bert_config_file)->required();
    addRowFlag(app, sharedFlagRow("vocab_file"), c.vocab_file)->required();
    addRowFlag(app, sharedFlagRow("do_lower_case"), c.do_lower_case);
    addRowFlag(app, trainingFlagRow("init_checkpoint"), c.init_checkpoint, "random weights");
    addRowFlag(app, sharedFlagRow("max_seq_length"), c.max_seq_length);
    app.add_option("--learning_rate", c.learning_rate,
                   "each model's peak learning rate (default: 1e-3 from random weights, 5e-4 from a pretraining "
                   "run of this program, else 5e-5)");
    app.add_option("--train_batch_size", c.train_batch_size, "each model's batch size (default 16)");
    app.add_option("--min_epochs", c.min_epochs, "each model's passes over its labels, at least (default 10)");
    app.add_option("--min_steps", c.min_steps, "each model's steps, at least (default 100)");
    app.add_option("--num_threads", c.num_threads, "intra-op threads (0: automatic)");
    app.add_option("--strategy", f.sim.strategy, "uncertain_diverse (default) or random");
    app.add_option("--batch_size", f.sim.batch_size, "texts labelled between two models (default 10)");
    app.add_option("--max_labels", f.sim.max_labels, "stop after this many labels (default 200)");
    app.add_option("--measure_every", f.sim.measure_every,
                   "a curve point every N labels (a multiple of batch_size; default: every batch)");
    app.add_option("--seeds", f.seeds, "seeds, each a whole simulation (default 42)")->delimiter(',');
    app.add_option("--output_dir", f.outputDir,
                   "results: <output_dir>/<strategy>-seed<seed>/{labels.csv, curve.jsonl, cycles/}")->required();
}

std::vector<GoldText> readGold(const std::string &path, const SimulateFlags &f)
{
    TextInputSpec spec;
    spec.format = textFileFormatFromName(path);
    spec.format_from_name = true;
    spec.text_a_column = f.textColumn;
    spec.label_column = f.labelColumn;
    spec.need_label = true;
    const TextInput in = readTextInput(path, spec);
    std::vector<GoldText> out;
    for (const TextInputRecord &r : in.records) {
        if (r.blank)
            continue;
        if (!r.problem.empty())
            throw Error(path + ":" + std::to_string(r.line), r.problem, r.hint);
        std::string text = f.emailBodyOnly ? emailBody(r.text_a) : r.text_a;
        const std::string label = trimmed(r.label);
        if (trimmed(text).empty())
            continue;
        if (label.empty())
            throw Error(path + ":" + std::to_string(r.line), "the record has no label",
                        "the simulated annotator needs every text's gold label");
        out.push_back({std::move(text), label});
    }
    if (out.empty())
        throw Error(path, "holds no labelled text", "pass a file with a text and a label column");
    return out;
}

std::vector<std::string> labelNames(const std::string &list, const std::vector<GoldText> &pool)
{
    std::vector<std::string> names;
    if (!list.empty()) {
        size_t at = 0;
        while (at <= list.size()) {
            const size_t comma = std::min(list.find(',', at), list.size());
            names.push_back(trimmed(list.substr(at, comma - at)));
            at = comma + 1;
        }
        return names;
    }
    std::set<std::string> seen;
    for (const GoldText &g : pool)
        seen.insert(g.label);
    return {seen.begin(), seen.end()};
}

std::string percent(double v)
{
    if (!std::isfinite(v))
        return "  -  ";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%5.1f", 100.0 * v);
    return buf;
}

} // namespace

int cmdLabelSimulate(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Label to learn with a simulated annotator: starting from no labels, texts are picked by the\n"
                 "chosen order, labelled with their gold labels from --pool_file, a model is trained after every\n"
                 "batch and measured on --eval_file, with the bag-of-words baseline on the same labels\n"
                 "(docs/label-to-learn.md, \"Measuring a strategy\").",
                 "bert-workbench-cli label_simulate");
    SimulateFlags f;
    if (const auto done = parseCommandFlags(app, f, addSimulateFlags, args, out, err))
        return *done;
    std::vector<GoldText> pool, eval;
    try {
        pool = readGold(f.poolFile, f);
        if (f.maxPool > 0 && size_t(f.maxPool) < pool.size())
            pool.resize(size_t(f.maxPool));
        eval = readGold(f.evalFile, f);
        f.sim.cycle.label_names = labelNames(f.labels, pool);
    } catch (...) {
        return reportCommandException(err, "label_simulate");
    }
    StopToken stop;
    InterruptGuard guard(stop, "\nstopping the simulation after this step (Ctrl+C again to quit at once)...\n");
    try {
        out << "pool " << pool.size() << " texts, eval " << eval.size() << " texts, order " << f.sim.strategy
            << ", batches of " << f.sim.batch_size << "\n";
        for (const int64_t seed : f.seeds) {
            SimulationSettings s = f.sim;
            s.cycle.seed = seed;
            s.work_dir = (std::filesystem::path(f.outputDir) / (s.strategy + "-seed" + std::to_string(seed))).string();
            out << "seed " << seed << ": labels  accuracy %  bag-of-words %  seconds (train, score)\n";
            simulateAnnotator(s, pool, eval, stop, [&out](const CurvePoint &p) {
                char line[160];
                std::snprintf(line, sizeof line, "  %12lld  %10s  %14s  %7.1f (%.1f, %.1f)\n",
                              static_cast<long long>(p.labels), percent(p.accuracy).c_str(),
                              percent(p.bag_of_words_accuracy).c_str(), p.seconds, p.seconds_train, p.seconds_score);
                out << line << std::flush;
            });
            out << "  curve: " << labelSessionCurvePath(s.work_dir) << "\n";
        }
        return kExitOk;
    } catch (...) {
        return reportCommandException(err, "label_simulate");
    }
}

} // namespace wb::cli
