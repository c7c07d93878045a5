// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli embeddings`: the 2-D PCA points of one evaluation's pooled [CLS] vectors
// (model_dir/embeddings/step-N.safetensors; core/formats/embeddings.h), and an export for
// TensorBoard's embedding projector.
#include "app/cli/commands.h"

#include "app/cli/errors.h"
#include "app/cli/runflags.h"
#include "core/config/jsonfile.h"
#include "core/formats/embeddings.h"
#include "core/formats/evalexamples.h"
#include "core/util/error.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <ostream>

namespace wb::cli {

namespace {

std::string number(double v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

} // namespace

int cmdEmbeddings(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("The embedding view on the command line: projects one evaluation's pooled [CLS] vectors\n"
                 "(model_dir/embeddings/step-N.safetensors, written at each evaluation) to 2-D by PCA and\n"
                 "writes the points as TSV (index, label_id, prediction, correct, x, y); with\n"
                 "--projector_dir also TensorBoard's projector files (projector_config.pbtxt, tensors.tsv,\n"
                 "metadata.tsv; texts and label names from eval_examples.jsonl when present).",
                 "bert-workbench-cli embeddings");
    std::string modelDir, output, projectorDir;
    int64_t step = -1;
    app.add_option("--model_dir", modelDir, "the run's folder")->required();
    app.add_option("--step", step, "the evaluation's step (default: the latest saved)");
    app.add_option("--output", output, "the points TSV to write (default: standard output)");
    app.add_option("--projector_dir", projectorDir, "also write TensorBoard projector files into this folder");
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
    try {
        const std::vector<int64_t> steps = embeddingSteps(modelDir);
        if (steps.empty())
            throw Error(embeddingsDir(modelDir), "holds no embeddings (step-N.safetensors)",
                        "Train with evaluations: each writes the eval examples' pooled vectors there.");
        if (step < 0)
            step = steps.back();
        else if (!std::binary_search(steps.begin(), steps.end(), step)) {
            std::string have;
            for (const int64_t s : steps)
                have += (have.empty() ? "" : ", ") + std::to_string(s);
            throw Error("step", "no embeddings of step " + std::to_string(step) + " in " + embeddingsDir(modelDir),
                        "Saved steps: " + have + ".");
        }
        const EmbeddingSnapshot s = readEmbeddings(embeddingsPath(modelDir, step));
        const Projection2D p = pcaProject2D(s.pooled, s.size(), s.hidden);
        std::string tsv = "index\tlabel_id\tprediction\tcorrect\tx\ty\n";
        for (size_t i = 0; i < size_t(s.size()); ++i)
            tsv += std::to_string(s.example_index[i]) + "\t" + std::to_string(s.label_ids[i]) + "\t"
                   + std::to_string(s.predictions[i]) + "\t" + (s.label_ids[i] == s.predictions[i] ? "1" : "0") + "\t"
                   + number(p.points[i][0]) + "\t" + number(p.points[i][1]) + "\n";
        if (output.empty())
            out << tsv;
        else
            writeFileAtomic(output, tsv);
        err << "step " << step << ": " << s.size() << " vectors of width " << s.hidden
            << "; variance along the two axes " << number(p.variance[0]) << ", " << number(p.variance[1]) << "\n";
        if (!projectorDir.empty()) {
            std::vector<std::string> labelNames, texts;
            const std::string examplesPath = evalExamplesPath(modelDir);
            if (std::filesystem::exists(examplesPath)) {
                std::map<int64_t, std::string> byIndex;
                for (const EvalExample &e : readEvalExamples(examplesPath)) {
                    byIndex[e.index] = e.text_b.empty() ? e.text : e.text + " [SEP] " + e.text_b;
                    if (e.true_label_id >= 0 && e.true_label_id < 100000) {
                        if (labelNames.size() <= size_t(e.true_label_id))
                            labelNames.resize(size_t(e.true_label_id) + 1);
                        labelNames[size_t(e.true_label_id)] = e.true_label;
                    }
                }
                for (const int64_t index : s.example_index) {
                    const auto it = byIndex.find(index);
                    texts.push_back(it == byIndex.end() ? std::string() : it->second);
                }
            }
            for (size_t id = 0; id < labelNames.size(); ++id)
                if (labelNames[id].empty())
                    labelNames[id] = "label " + std::to_string(id);
            writeProjectorExport(projectorDir, s, labelNames, texts);
            err << "wrote TensorBoard projector files to " << projectorDir
                << " (tensorboard --logdir " << projectorDir << ", Projector tab)\n";
        }
        return kExitOk;
    } catch (...) {
        return reportCommandException(err, "embeddings");
    }
}

} // namespace wb::cli
