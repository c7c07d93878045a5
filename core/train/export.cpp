// SPDX-License-Identifier: Apache-2.0
#include "core/train/export.h"

#include "core/config/jsonfile.h"
#include "core/config/labelnames.h"
#include "core/data/hftokenizerjson.h"
#include "core/data/preparereport.h"
#include "core/data/vocab.h"
#include "core/util/error.h"
#include "core/model/initcheckpoint.h"
#include "core/train/checkpointio.h"
#include "core/train/demopage.h"
#include "core/train/exportfolder.h"
#include "core/train/onnxexport.h"
#include "core/train/onnxruntimeweb.h"

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

} // namespace

std::vector<std::pair<std::string, std::string>> huggingFaceTokenizerFiles(const std::string &vocabPath, bool lower,
                                                                           int64_t maxSeqLength)
{
    if (vocabPath.empty()) { // no vocab: the names BertTokenizer defaults to, no ids to give
        nlohmann::ordered_json tok = huggingFaceTokenizerConfig(
            Vocab::fromTokens({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}), lower, maxSeqLength);
        tok.erase("added_tokens_decoder");
        return {{"tokenizer_config.json", tok.dump(2) + "\n"}};
    }
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
                                         bool regression)
{
    nlohmann::ordered_json j;
    j["architectures"] = {"BertForSequenceClassification"};
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
    j["classifier_dropout"] = nullptr;
    j["num_labels"] = regression ? 1 : int64_t(labelNames.size());
    j["problem_type"] = regression ? "regression" : "single_label_classification";
    nlohmann::ordered_json id2label = nlohmann::ordered_json::object(), label2id = nlohmann::ordered_json::object();
    for (size_t k = 0; k < labelNames.size(); ++k) {
        id2label[std::to_string(k)] = labelNames[k];
        label2id[labelNames[k]] = int64_t(k);
    }
    if (!regression) {
        j["id2label"] = id2label;
        j["label2id"] = label2id;
    }
    j["torch_dtype"] = "float32";
    j["transformers_version"] = kTransformersFormatVersion;
    j["use_cache"] = true;
    return j;
}

std::vector<std::string> exportModelFiles(const std::string &dir, nn::BertForSequenceClassification &model,
                                          const BertConfig &cfg, const InputMetaData &meta,
                                          const TrainingOptions &spec,
                                          const std::function<void(const std::string &)> &warn,
                                          const std::vector<RecordedCasing> &trained)
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
    saveSafetensors((d / "model.safetensors").string(), namedParameters(model));
    written.push_back("model.safetensors");
    const std::vector<std::string> names = modelLabelNames(cfg, meta, spec.input_meta_data_path);
    if (cfg.embedding_size && *cfg.embedding_size != cfg.hidden_size)
        say("config.json (Hugging Face) is left out: embedding_size " + std::to_string(*cfg.embedding_size)
            + " differs from hidden_size, which Hugging Face's BERT cannot express");
    else
        put("config.json", huggingFaceConfig(cfg, names, meta.isRegression()).dump(2) + "\n");
    put("bert_config.json", cfg.toJson().dump(2) + "\n");
    put("input_meta_data.json", meta.toJson().dump(2) + "\n");
    if (!meta.isRegression()) { // a regression head has no labels (no "label 0")
        std::string labels;
        for (const auto &n : names)
            labels += n + "\n";
        put("labels.txt", labels);
    }

    const PreparedTokenizer prepared = readPreparedTokenizer(spec.input_meta_data_path);
    const std::string vocab = !spec.vocab_file.empty() ? spec.vocab_file : prepared.vocab_file;
    if (vocab.empty()) {
        say("no vocab.txt in the export: pass --vocab_file (the vocabulary the data was prepared with)");
    } else {
        put("vocab.txt", readVocabularyForExport(vocab));
    }
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
    for (const auto &[name, text] : huggingFaceTokenizerFiles(vocab.empty() ? std::string() : (d / "vocab.txt").string(),
                                                             lower, meta.max_seq_length))
        put(name, text);
    if (spec.onnx_dtype != "none") { // ONNX Runtime, transformers.js (onnx/model.onnx is where it looks)
        writeOnnxModel((d / "onnx" / "model.onnx").string(), *model, spec.onnx_dtype);
        written.push_back("onnx/model.onnx");
    }
    if (spec.demo || !spec.onnxruntime_web_dir.empty()) { // the page and the runtime it runs on, so that it works offline
        if (spec.onnx_dtype == "none")
            throw Error("demo", "the web demo runs onnx/model.onnx, which --onnx_dtype none leaves out",
                        "export with --onnx_dtype fp32, or without --demo");
        if (vocab.empty())
            throw Error("demo", "the web demo tokenizes with vocab.txt, which this export has none of",
                        "pass --vocab_file (the vocabulary the data was prepared with)");
        const std::string from = obtainOnnxRuntimeWeb(spec.onnxruntime_web_dir, NpmSettings::fromEnvironment());
        fs::create_directories(d / "demo");
        for (const auto &f : copyOnnxRuntimeWeb(from, (d / "demo").string()))
            written.push_back(f);
        // The page reads scripts only (a page opened from disk may not fetch()): the model,
        // vocabulary and runtime as scripts beside it.
        for (const auto &f : writeDemoData(d.string(), meta.isRegression() ? std::vector<std::string>() : names, lower,
                                           meta.max_seq_length))
            written.push_back(f);
        put("demo/index.html", demoPageHtml());
    }
    return written;
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

nlohmann::ordered_json finiteOrNull(double v)
{
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

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
            j["prediction"] = row.empty() ? nlohmann::ordered_json() : finiteOrNull(double(row[0])); // none: null, not 0
            if (i < targets.size())
                j["label"] = finiteOrNull(targets[i]);
        } else {
            const auto best = std::max_element(row.begin(), row.end()) - row.begin();
            j["predicted_label"] = nameOf(int64_t(best));
            nlohmann::ordered_json probs = nlohmann::ordered_json::object();
            for (size_t k = 0; k < row.size(); ++k)
                probs[nameOf(int64_t(k))] = finiteOrNull(double(row[k]));
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

} // namespace wb
