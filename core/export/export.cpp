// SPDX-License-Identifier: Apache-2.0
#include "core/export/export.h"

#include "core/formats/thresholds.h"

#include "core/config/jsonfile.h"
#include "core/config/labelnames.h"
#include "core/config/optionwords.h"
#include "core/tokenize/hftokenizerjson.h"
#include "core/prepare/preparereport.h"
#include "core/tokenize/vocab.h"
#include "core/util/error.h"
#include "core/util/jsonnumber.h"
#include "core/model/initcheckpoint.h"
#include "core/hub/catalogue.h"
#include "core/engine/checkpointio.h"
#include "core/export/demopage.h"
#include "core/formats/exportfolder.h"
#include "core/export/modelcard.h"
#include "core/formats/runidentity.h"
#include "core/export/onnxexport.h"
#include "core/formats/onnxruntimeweb.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

std::string floatText(float v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return buf;
}

/// onnx/quantization.json of an int8 or fp16 export (docs/file-formats.md): the file's size against
/// the float32 weights' (parameters × 4 bytes), and how far the weights it holds (dequantized,
/// what classify runs) move the outputs of `model`: the largest probability difference
/// (softmax; sigmoid for multi-label; the value itself for regression) on 8 made-up sequences
/// of up to 128 wordpieces (a fixed random stream, so every export draws the same).
nlohmann::ordered_json quantizationReport(nn::BertForSequenceClassificationImpl &model, const std::string &onnxPath,
                                          const InputMetaData &meta, const std::string &dtype)
{
    torch::NoGradGuard noGrad;
    const BertConfig &cfg = model.config();
    nn::BertForSequenceClassification read(cfg, model.numLabels(), nn::makeGenerator(0));
    read->eval();
    loadOnnxWeights(onnxPath, *read);
    const int64_t seq = std::min<int64_t>(128, cfg.max_position_embeddings), texts = 8;
    auto gen = nn::makeGenerator(48);
    torch::Tensor ids = torch::randint(std::min<int64_t>(1000, cfg.vocab_size / 2), cfg.vocab_size, {texts, seq}, gen,
                                       torch::kLong);
    const torch::Tensor mask = torch::ones_like(ids), types = torch::zeros_like(ids);
    const bool wasTraining = model.is_training();
    model.eval();
    const auto outputs = [&](nn::BertForSequenceClassificationImpl &m) {
        const torch::Tensor logits = m.forward(ids, mask, types);
        return meta.isRegression() ? logits : meta.isMultiLabel() ? torch::sigmoid(logits) : torch::softmax(logits, -1);
    };
    const double difference = (outputs(model) - outputs(*read)).abs().max().item<double>();
    model.train(wasTraining);
    int64_t parameters = 0;
    for (const auto &p : model.parameters())
        parameters += p.numel();
    const auto bytes = int64_t(fs::file_size(onnxPath));
    nlohmann::ordered_json j;
    j["onnx_dtype"] = dtype;
    j["file_bytes"] = bytes;
    j["fp32_weight_bytes"] = parameters * int64_t(sizeof(float));
    j["size_ratio"] = double(bytes) / double(parameters * int64_t(sizeof(float)));
    j["quantized"] = dtype == "fp16"
                         ? "float16: every weight, Cast to float32 in the graph (the computation stays float32)"
                         : "int8 in 7 bits (-63 to 63, for ONNX Runtime's kernels on CPUs without VNNI) with a "
                           "scale per output column: every encoder dense layer (query, key, value, attention output, "
                           "intermediate, output) and the embedding projection; int8 with a scale per row: the word "
                           "embeddings. float32: position and token type embeddings, LayerNorm, "
                           "biases, pooler, classifier. Activations: DynamicQuantizeLinear (uint8, per tensor) in "
                           "the graph";
    j["agreement"] = {{"inputs", std::to_string(texts) + " made-up sequences of " + std::to_string(seq)
                                     + " wordpieces (fixed random ids)"},
                      {meta.isRegression() ? "max_output_difference" : "max_probability_difference", difference},
                      {"runs", "the " + dtype + " file's weights in float32 (what classify computes) against the "
                               "float32 model" + std::string(dtype == "int8" ? "; ONNX Runtime also quantizes the "
                                                                               "activations (docs/benchmarks.md)"
                                                                             : "")}};
    return j;
}

} // namespace

std::vector<std::pair<std::string, std::string>> huggingFaceTokenizerFiles(const std::string &vocabPath, bool lower,
                                                                           int64_t maxSeqLength)
{
    const Vocab vocab = Vocab::load(vocabPath);
    // The fast tokenizer's file (transformers' BertTokenizerFast, tokenizers, transformers.js),
    // then what save_pretrained writes beside it.
    return {{"tokenizer.json", huggingFaceTokenizerJson(vocab, lower, maxSeqLength).dump(2) + "\n"},
            {"tokenizer_config.json", huggingFaceTokenizerConfig(vocab, lower, maxSeqLength).dump(2) + "\n"},
            {"special_tokens_map.json", huggingFaceSpecialTokensMap(vocab).dump(2) + "\n"}};
}

std::vector<std::string> modelLabelNames(const BertConfig &cfg, const InputMetaData &meta,
                                         const std::string &metaDataPath)
{
    std::vector<std::string> second = cfg.labelNames();
    if (second.empty())
        for (const char *k : {"labels", "label_list", "label_names"})
            if (meta.extra.contains(k) && meta.extra[k].is_array()) {
                for (const auto &l : meta.extra[k])
                    second.push_back(l.is_string() ? l.get<std::string>() : l.dump());
                break;
            }
    return readLabelNames(metaDataPath, meta.num_labels, second).names;
}

nlohmann::ordered_json huggingFaceConfig(const BertConfig &cfg, const std::vector<std::string> &labelNames,
                                         bool regression, const std::string &architecture, bool multiLabel,
                                         const std::vector<double> &thresholds)
{
    const bool head = architecture != "BertForMaskedLM"; // a sequence-classification head and its labels
    nlohmann::ordered_json j;
    j["architectures"] = {architecture};
    j["model_type"] = "bert";
    j["vocab_size"] = cfg.vocab_size;
    j["hidden_size"] = cfg.hidden_size;
    j["num_hidden_layers"] = cfg.num_hidden_layers;
    j["num_attention_heads"] = cfg.num_attention_heads;
    j["intermediate_size"] = cfg.intermediate_size;
    j["hidden_act"] = cfg.hidden_act;
    j["hidden_dropout_prob"] = cfg.hidden_dropout_prob;
    j["attention_probs_dropout_prob"] = cfg.attention_probs_dropout_prob;
    j["max_position_embeddings"] = cfg.max_position_embeddings;
    j["type_vocab_size"] = cfg.type_vocab_size;
    j["initializer_range"] = cfg.initializer_range;
    j["layer_norm_eps"] = cfg.layer_norm_eps;
    j["pad_token_id"] = 0;
    j["position_embedding_type"] = "absolute";
    j["classifier_dropout"] = nullptr; // a BertConfig key: save_pretrained keeps it for a masked LM too
    if (head) {
        j["num_labels"] = regression ? 1 : int64_t(labelNames.size());
        j["problem_type"] = regression ? "regression" : multiLabel ? "multi_label_classification" : "single_label_classification";
        nlohmann::ordered_json id2label = nlohmann::ordered_json::object(), label2id = nlohmann::ordered_json::object();
        for (size_t k = 0; k < labelNames.size(); ++k) {
            id2label[std::to_string(k)] = labelNames[k];
            label2id[labelNames[k]] = int64_t(k);
        }
        if (!regression) {
            j["id2label"] = id2label;
            j["label2id"] = label2id;
        }
        if (multiLabel)
            j["thresholds"] = thresholds;
    }
    j["torch_dtype"] = "float32";
    j["transformers_version"] = kTransformersFormatVersion;
    j["use_cache"] = true;
    return j;
}

ExportedModel exportedClassifier(nn::BertForSequenceClassification &model, const BertConfig &cfg,
                                 const InputMetaData &meta, const TrainingOptions &spec)
{
    ExportedModel e;
    e.architecture = "BertForSequenceClassification";
    e.tensors = namedParameters(model);
    e.regression = meta.isRegression();
    e.multi_label = meta.isMultiLabel();
    if (!e.regression) // a regression head has no labels (no "label 0")
        e.labels = modelLabelNames(cfg, meta, spec.input_meta_data_path);
    const std::vector<std::string> labels = e.labels;
    e.more_files = [&model, &meta, &spec, labels](const std::string &dir, bool lower, bool withVocab) {
        const fs::path d = dir;
        std::vector<std::string> written;
        if (spec.onnx_dtype != "none") { // ONNX Runtime, transformers.js (onnx/model.onnx is where it looks)
            writeOnnxModel((d / "onnx" / "model.onnx").string(), *model, spec.onnx_dtype);
            written.push_back("onnx/model.onnx");
            if (spec.onnx_dtype == "int8" || spec.onnx_dtype == "fp16") { // its size against fp32, its agreement
                writeFileAtomic((d / "onnx" / "quantization.json").string(),
                                quantizationReport(*model, (d / "onnx" / "model.onnx").string(), meta, spec.onnx_dtype)
                                        .dump(2)
                                    + "\n");
                written.push_back("onnx/quantization.json");
            }
        }
        if (spec.demo || !spec.onnxruntime_web_dir.empty()) { // the page and the runtime it runs on, so that it works offline
            if (spec.onnx_dtype == "none")
                throw Error("demo",
                            "the web demo runs onnx/model.onnx, which " + optionName("onnx_dtype") + " none leaves out",
                            "export with " + optionName("onnx_dtype") + " fp32 or int8, or without " + optionName("demo"));
            if (!withVocab)
                throw Error("demo", "the web demo tokenizes with vocab.txt, which this export has none of",
                            "pass " + optionName("vocab_file") + " (the vocabulary the data was prepared with)");
            const std::string from = obtainOnnxRuntimeWeb(spec.onnxruntime_web_dir, NpmSettings::fromEnvironment());
            fs::create_directories(d / "demo");
            for (const auto &f : copyOnnxRuntimeWeb(from, (d / "demo").string()))
                written.push_back(f);
            // The page reads scripts only (a page opened from disk may not fetch()): the model,
            // vocabulary and runtime as scripts beside it.
            for (const auto &f : writeDemoData(d.string(), labels, lower, meta.max_seq_length))
                written.push_back(f);
            writeFileAtomic((d / "demo/index.html").string(), demoPageHtml());
            written.push_back("demo/index.html");
        }
        return written;
    };
    return e;
}

std::vector<std::string> writeExportFiles(const std::string &dir, const ExportedModel &model, const BertConfig &cfg,
                                          const InputMetaData &meta, const TrainingOptions &spec,
                                          const std::function<void(const std::string &)> &warn,
                                          const std::vector<RecordedCasing> &trained, bool *lowerCase)
{
    const fs::path d = dir;
    const auto say = [&](const std::string &w) {
        if (warn)
            warn("warning: " + w);
    };
    std::vector<std::string> written;
    const auto put = [&](const std::string &name, const std::string &text) {
        writeFileAtomic((d / name).string(), text);
        written.push_back(name);
    };
    saveSafetensors((d / "model.safetensors").string(), model.tensors);
    written.push_back("model.safetensors");
    if (cfg.embedding_size && *cfg.embedding_size != cfg.hidden_size)
        say("config.json (Hugging Face) is left out: embedding_size " + std::to_string(*cfg.embedding_size)
            + " differs from hidden_size, which Hugging Face's BERT cannot express");
    else
        put("config.json", huggingFaceConfig(cfg, model.labels, model.regression, model.architecture, model.multi_label,
                                             model.thresholds)
                               .dump(2)
                               + "\n");
    put("bert_config.json", cfg.toJson().dump(2) + "\n");
    // The model's inputs, not the run's records: the export has no records, so the keys that
    // describe extra record features (sample weights, a teacher's outputs) are left out.
    InputMetaData exportedMeta = meta;
    exportedMeta.has_sample_weights = false;
    exportedMeta.has_teacher_logits = false;
    put("input_meta_data.json", exportedMeta.toJson().dump(2) + "\n");
    if (!model.maskedLm() && !model.regression) {
        std::string labels;
        for (const auto &n : model.labels)
            labels += n + "\n";
        put("labels.txt", labels);
    }

    const PreparedTokenizer prepared = readPreparedTokenizer(spec.input_meta_data_path);
    const std::string vocab = !spec.vocab_file.empty() ? spec.vocab_file : prepared.vocab_file;
    if (vocab.empty())
        say("no vocab.txt in the export, and so no tokenizer files (tokenizer.json, tokenizer_config.json, "
            "special_tokens_map.json): pass " + optionName("vocab_file") + " (the vocabulary the "
            + std::string(model.maskedLm() ? "corpus" : "data") + " was prepared with)");
    else
        put("vocab.txt", readVocabularyForExport(vocab));
    std::vector<RecordedCasing> recorded{
        {"--do_lower_case",
         spec.do_lower_case.empty() ? std::optional<bool>() : std::optional<bool>(spec.do_lower_case == "true")}};
    recorded.insert(recorded.end(), trained.begin(), trained.end());
    recorded.push_back({"input_meta_data.json", meta.do_lower_case});
    recorded.push_back({"prepare_report.json", prepared.do_lower_case});
    const TokenizerCasing casing = resolveCasing(recorded, vocab.empty() ? std::string() : (d / "vocab.txt").string());
    if (!casing.warning.empty())
        say("do_lower_case: " + casing.warning);
    const bool lower = casing.do_lower_case.value_or(true);
    if (lowerCase)
        *lowerCase = lower;
    if (!vocab.empty())
        for (const auto &[name, text] : huggingFaceTokenizerFiles((d / "vocab.txt").string(), lower, meta.max_seq_length))
            put(name, text);
    if (model.more_files)
        for (const auto &f : model.more_files(dir, lower, !vocab.empty()))
            written.push_back(f);
    return written;
}

std::vector<std::string> exportModelFiles(const std::string &dir, nn::BertForSequenceClassification &model,
                                          const BertConfig &cfg, const InputMetaData &meta,
                                          const TrainingOptions &spec,
                                          const std::function<void(const std::string &)> &warn,
                                          const std::vector<RecordedCasing> &trained)
{
    return writeExportFiles(dir, exportedClassifier(model, cfg, meta, spec), cfg, meta, spec, warn, trained);
}

namespace {

/// What the model card needs beyond the run's files.
ModelCardModel cardFacts(const ExportedModel &model, const BertConfig &cfg, const InputMetaData &meta,
                         const TrainingOptions &spec, const std::string &ckpt, const std::string &checkpointNote,
                         const std::vector<std::string> &written, bool lower)
{
    ModelCardModel c;
    fs::path out = fs::path(spec.model_export_path).lexically_normal();
    if (!out.has_filename())
        out = out.parent_path();
    c.name = out.filename().string();
    c.masked_lm = model.maskedLm();
    c.regression = model.regression;
    c.labels = model.labels;
    c.num_hidden_layers = cfg.num_hidden_layers;
    c.hidden_size = cfg.hidden_size;
    c.num_attention_heads = cfg.num_attention_heads;
    c.vocab_size = cfg.vocab_size;
    const ParameterCount p = cfg.parameterCount(c.masked_lm ? 0 : meta.num_labels);
    c.parameters = p.total() - p.classifier;
    c.max_seq_length = meta.max_seq_length;
    c.do_lower_case = lower; // the casing the export wrote (tokenizer_config.json)
    const auto has = [&written](const char *name) {
        return std::find(written.begin(), written.end(), name) != written.end();
    };
    c.onnx = has("onnx/model.onnx");
    c.onnx_dtype = spec.onnx_dtype;
    c.demo_page = has("demo/index.html");
    c.tokenizer_files = has("tokenizer.json");
    if (c.masked_lm) {
        c.train_examples = meta.train_data_size.value_or(-1);
        c.eval_examples = meta.eval_data_size.value_or(-1);
        c.max_predictions_per_seq = meta.max_predictions_per_seq;
    }
    c.checkpoint = ckpt;
    if (isTrainingCheckpointPath(ckpt))
        c.checkpoint_step = readCheckpointHeader(ckpt).step;
    c.checkpoint_note = checkpointNote;
    // The start: what run_config.json recorded as pretrained_model, else this export's option.
    Diagnostics ignored;
    if (const auto run = readRunConfig(spec.model_dir, ignored)) {
        const auto &j = run->json;
        if (j.contains("informational") && j["informational"].contains("pretrained_model")
            && j["informational"]["pretrained_model"].is_string())
            c.start = j["informational"]["pretrained_model"].get<std::string>();
    }
    if (c.start.empty())
        c.start = spec.pretrained_model;
    if (const CatalogueEntry *e = c.start.empty() ? nullptr : findCatalogueEntry(c.start)) {
        c.base_model = e->hub_id;
        c.license = e->licence;
        c.language = hubLanguageCode(e->languages);
    } else if (!c.start.empty() && c.start.find('/') != std::string::npos && !fs::exists(c.start)) {
        c.base_model = c.start.substr(0, c.start.find('@')); // a Hub id outside the catalogue: licence unknown
    }
    c.meta_data_path = spec.input_meta_data_path;
    return c;
}

/// One sentence on an int8 or fp16 export from its onnx/quantization.json at `path`
/// (quantizationReport); empty when there is none.
std::string quantizationSentence(const std::string &path)
{
    if (!fs::exists(path))
        return {};
    Diagnostics ignored;
    const std::optional<nlohmann::json> read = readJsonObjectFile(path, ignored);
    if (!read)
        return {};
    const nlohmann::json &j = *read;
    const auto mb = [](double bytes) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f MB", bytes / 1e6);
        return std::string(buf);
    };
    const auto &a = j["agreement"];
    const bool regression = a.contains("max_output_difference");
    char line[400];
    std::snprintf(line, sizeof line,
                  "onnx/model.onnx %s: %s, %.1f %% of the float32 weights (%s); its weights move the %s by at most "
                  "%.2g on %s.",
                  j.value("onnx_dtype", std::string("int8")).c_str(), mb(j["file_bytes"].get<double>()).c_str(),
                  100 * j["size_ratio"].get<double>(),
                  mb(j["fp32_weight_bytes"].get<double>()).c_str(), regression ? "outputs" : "probabilities",
                  a[regression ? "max_output_difference" : "max_probability_difference"].get<double>(),
                  a["inputs"].get<std::string>().c_str());
    return line;
}

} // namespace

RunFinished writeExportFolder(const ExportedModel &model, const BertConfig &cfg, const InputMetaData &meta,
                              const TrainingOptions &spec, const std::vector<RecordedCasing> &trained,
                              const std::string &ckpt, const std::string &checkpointNote, TrainingObserver &obs)
{
    // Written whole or not at all: a staging folder beside the target, renamed when complete.
    ExportStaging staging(spec.model_export_path, spec.overwrite_output_dir);
    bool lower = true;
    std::vector<std::string> written = writeExportFiles(
        staging.path(), model, cfg, meta, spec, [&obs](const std::string &w) { obs.logMessage(w); }, trained, &lower);
    ModelCardModel card = cardFacts(model, cfg, meta, spec, ckpt, checkpointNote, written, lower);
    card.onnx_quantization = quantizationSentence((fs::path(staging.path()) / "onnx" / "quantization.json").string());
    writeFileAtomic((fs::path(staging.path()) / "README.md").string(), modelCardMarkdown(card, spec.model_dir));
    written.push_back("README.md");
    const std::vector<std::string> files = describeExportFiles(staging.path(), written);
    staging.commit();
    std::string list;
    for (const auto &f : files)
        list += "\n" + f;
    obs.logMessage("Exported " + ckpt + " to " + spec.model_export_path
                   + (model.maskedLm() ? " as " + model.architecture : std::string()) + ":" + list);
    if (!card.onnx_quantization.empty())
        obs.logMessage(card.onnx_quantization);
    RunFinished r;
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "exported to " + spec.model_export_path;
    return r;
}

std::string writePredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs)
{
    std::string text;
    for (const auto &row : outputs) {
        for (size_t k = 0; k < row.size(); ++k)
            text += (k ? "\t" : "") + floatText(row[k]);
        text += "\n";
    }
    const std::string path = (fs::path(modelDir) / "test_results.tsv").string();
    writeFileAtomic(path, text);
    return path;
}

namespace {

} // namespace

std::string writeLabelledPredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs,
                                     const std::vector<std::string> &labelNames, const std::vector<int64_t> &labels,
                                     const std::vector<double> &targets, bool regression)
{
    const auto nameOf = [&labelNames](int64_t id) {
        return id >= 0 && size_t(id) < labelNames.size() ? labelNames[size_t(id)] : "label " + std::to_string(id);
    };
    std::string text;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const auto &row = outputs[i];
        nlohmann::ordered_json j;
        j["index"] = int64_t(i);
        if (regression) {
            using Json = nlohmann::ordered_json;
            j["prediction"] = row.empty() ? Json() : numberOrNull<Json>(double(row[0])); // none: null, not 0
            if (i < targets.size())
                j["label"] = numberOrNull<Json>(targets[i]);
        } else {
            const auto best = std::max_element(row.begin(), row.end()) - row.begin();
            j["predicted_label"] = nameOf(int64_t(best));
            nlohmann::ordered_json probs = nlohmann::ordered_json::object();
            for (size_t k = 0; k < row.size(); ++k)
                probs[nameOf(int64_t(k))] = numberOrNull<nlohmann::ordered_json>(double(row[k]));
            j["probabilities"] = probs;
            if (i < labels.size())
                j["label"] = nameOf(labels[i]);
        }
        text += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    }
    const std::string path = (fs::path(modelDir) / "predictions.jsonl").string();
    writeFileAtomic(path, text);
    return path;
}

std::string writeMultiLabelPredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs,
                                       const std::vector<std::string> &labelNames,
                                       const std::vector<std::vector<int64_t>> &labelSets,
                                       const std::vector<double> &thresholds)
{
    const auto nameOf = [&labelNames](int64_t id) {
        return id >= 0 && size_t(id) < labelNames.size() ? labelNames[size_t(id)] : "label " + std::to_string(id);
    };
    const auto names = [&nameOf](const std::vector<int64_t> &ids) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (int64_t id : ids)
            list.push_back(nameOf(id));
        return list;
    };
    std::string text;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const std::vector<double> row(outputs[i].begin(), outputs[i].end());
        nlohmann::ordered_json j;
        j["index"] = int64_t(i);
        j["predicted_labels"] = names(labelsAtThresholds(row, thresholds));
        nlohmann::ordered_json probs = nlohmann::ordered_json::object();
        for (size_t k = 0; k < row.size(); ++k)
            probs[nameOf(int64_t(k))] = numberOrNull<nlohmann::ordered_json>(row[k]);
        j["probabilities"] = probs;
        if (i < labelSets.size())
            j["labels"] = names(labelSets[i]);
        text += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    }
    const std::string path = (fs::path(modelDir) / "predictions.jsonl").string();
    writeFileAtomic(path, text);
    return path;
}

} // namespace wb
