// SPDX-License-Identifier: Apache-2.0
#include "core/engine/checkpointio.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/weights/parameternames.h"
#include "core/engine/adamw.h"
#include "core/util/error.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// The first line of a libtorch message (no backtrace).
std::string firstLine(const c10::Error &e)
{
    std::string s = e.what_without_backtrace();
    if (const auto nl = s.find('\n'); nl != std::string::npos)
        s.resize(nl);
    return s;
}

struct OpenedCheckpoint
{
    torch::serialize::InputArchive archive;
    CheckpointHeader header;
    c10::IValue model;
};

void openCheckpoint(const std::string &path, OpenedCheckpoint &out)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw Error(path, fs::exists(path, ec) ? "is not a checkpoint file" : "checkpoint file not found",
                    "pass a model_dir/ckpt-<step> file written by a training run, or leave the flag out to use "
                    "the latest checkpoint in model_dir");
    try {
        out.archive.load_from(path);
    } catch (const c10::Error &) {
        // Deleting is good advice only for a broken ckpt-<step> of a run, not for any file a
        // user picked by mistake (labels.txt, a config).
        if (fs::path(path).filename().string().rfind("ckpt-", 0) == 0)
            throw Error(path, "cannot read the checkpoint (corrupt or not written by bert-workbench)",
                        "delete it (and its line in the 'checkpoint' file) or use another " + optionName("model_dir"));
        throw Error(path, "is not a checkpoint (not written by bert-workbench)",
                    "pass a ckpt-<step> file written by a training run (in its " + optionName("model_dir")
                        + "), or an export folder");
    }
    c10::IValue cfgValue, labelsValue, stepValue;
    if (!out.archive.try_read("bert_config", cfgValue) || !cfgValue.isString()
        || !out.archive.try_read("num_labels", labelsValue) || !out.archive.try_read("step", stepValue)
        || !out.archive.try_read("model", out.model) || !out.model.isGenericDict())
        throw Error(path, "the checkpoint lacks bert_config, num_labels, step or model entries",
                    "it was not written by bert-workbench; use another model_dir");
    Diagnostics diag;
    const auto cfgJson = nlohmann::json::parse(cfgValue.toStringRef(), nullptr, false);
    out.header.bert_config = BertConfig::fromJson(cfgJson, path, diag);
    if (diag.hasErrors())
        throw Error(path, "the checkpoint's bert_config entry is unreadable", "use another model_dir");
    out.header.step = stepValue.toInt();
    out.header.num_labels = labelsValue.toInt();
    c10::IValue metaValue;
    if (out.archive.try_read("input_meta_data", metaValue) && metaValue.isString()) {
        const auto meta = nlohmann::json::parse(metaValue.toStringRef(), nullptr, false);
        if (meta.is_object() && meta.contains("do_lower_case") && meta["do_lower_case"].is_boolean())
            out.header.do_lower_case = meta["do_lower_case"].get<bool>();
    }
}

} // namespace

std::string checkpointName(int64_t step)
{
    return "ckpt-" + std::to_string(step);
}

CheckpointHeader readCheckpointHeader(const std::string &path)
{
    OpenedCheckpoint c;
    openCheckpoint(path, c);
    return c.header;
}

CheckpointHeader loadCheckpoint(const std::string &path, nn::BertForSequenceClassification &model, AdamW *opt,
                                bool restoreRng)
{
    return loadModelCheckpoint(path, {*model, model->config(), model->numLabels(), model->generator()}, opt, restoreRng);
}

CheckpointHeader loadModelCheckpoint(const std::string &path, const CheckpointModel &model, AdamW *opt, bool restoreRng)
{
    OpenedCheckpoint c;
    openCheckpoint(path, c);
    const BertConfig &saved = c.header.bert_config;
    const BertConfig &cfg = model.config;
    if (!saved.sameArchitecture(cfg))
        throw Error(path,
                    "the checkpoint was trained with another architecture (hidden_size " + std::to_string(saved.hidden_size)
                        + ", num_hidden_layers " + std::to_string(saved.num_hidden_layers) + ", vocab_size "
                        + std::to_string(saved.vocab_size) + ") than " + optionName("bert_config_file") + " (hidden_size "
                        + std::to_string(cfg.hidden_size) + ", num_hidden_layers " + std::to_string(cfg.num_hidden_layers)
                        + ", vocab_size " + std::to_string(cfg.vocab_size) + ")",
                    "use a new " + optionName("model_dir") + ", or the bert_config.json the checkpoint was trained with");
    if (c.header.num_labels != model.num_labels)
        throw Error(path,
                    model.num_labels == 0
                        ? "the checkpoint is a fine-tuning checkpoint (" + std::to_string(c.header.num_labels)
                              + " labels), not a pretraining one"
                    : c.header.num_labels == 0
                        ? "the checkpoint is a pretraining checkpoint (masked-LM heads, no classifier), not a "
                          "fine-tuning one with num_labels " + std::to_string(model.num_labels)
                        : "the checkpoint has " + std::to_string(c.header.num_labels)
                              + " labels but the meta data says num_labels " + std::to_string(model.num_labels),
                    "use a new " + optionName("model_dir") + " or the input_meta_data.json the checkpoint was trained with");
    auto dict = c10::impl::toTypedDict<std::string, torch::Tensor>(c.model.toGenericDict());
    torch::NoGradGuard guard;
    for (auto &p : model.module.named_parameters()) {
        auto it = dict.find(p.key());
        if (it == dict.end())
            throw Error(path, "the checkpoint has no tensor " + p.key());
        if (it->value().sizes() != p.value().sizes())
            throw Error(path + ": " + p.key(), "shape " + shapeString(it->value().sizes().vec())
                                                    + " in the checkpoint, the model needs "
                                                    + shapeString(p.value().sizes().vec()));
        p.value().copy_(it->value());
    }
    if (opt)
        opt->load(c.archive);
    if (restoreRng) {
        c10::IValue rng;
        // The run's generator (checkpoints before the run owned one stored the default
        // generator's state here, which was the run's stream then: same format, same use).
        if (c.archive.try_read("rng_state", rng) && rng.isTensor()) {
            at::Generator &gen = model.generator;
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_state(rng.toTensor());
        }
    }
    return c.header;
}

void saveCheckpoint(const std::string &path, nn::BertForSequenceClassification &model, const AdamW &opt, int64_t step,
                    const InputMetaData &meta)
{
    saveModelCheckpoint(path, {*model, model->config(), model->numLabels(), model->generator()}, opt, step, meta);
}

void saveModelCheckpoint(const std::string &path, const CheckpointModel &model, const AdamW &opt, int64_t step,
                         const InputMetaData &meta)
{
    const std::string tmp = path + ".tmp";
    const auto fail = [&](const std::string &reason) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw Error(path, "could not write the checkpoint: " + reason,
                    "free disk space (or raise the file size limit) and make model_dir writable, then run the same "
                    "command again: it resumes from the previous checkpoint");
    };
    try {
        torch::serialize::OutputArchive ar;
        c10::Dict<std::string, torch::Tensor> params;
        for (auto &p : model.module.named_parameters())
            params.insert(p.key(), p.value().detach().cpu()); // a checkpoint loads on any machine
        ar.write("model", c10::IValue(params));
        opt.save(ar);
        ar.write("step", c10::IValue(step));
        ar.write("num_labels", c10::IValue(model.num_labels));
        ar.write("bert_config", c10::IValue(model.config.toJson().dump()));
        ar.write("input_meta_data", c10::IValue(meta.toJson().dump()));
        {
            at::Generator &gen = model.generator;
            std::lock_guard<std::mutex> lock(gen.mutex());
            ar.write("rng_state", c10::IValue(gen.get_state()));
        }
        // libtorch writes through miniz; an exception thrown from inside miniz's C code (its
        // own file writer's) cannot be caught and aborts. So we write: the first failed
        // write(2) is remembered and the rest of the archive is dropped, and libtorch is
        // told every byte was written, so nothing throws through C frames.
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            fail(std::strerror(errno));
        int writeError = 0;
        try {
            ar.save_to([&](const void *data, size_t n) -> size_t {
                const char *p = static_cast<const char *>(data);
                size_t left = writeError ? 0 : n;
                while (left > 0) {
                    const ssize_t w = ::write(fd, p, left);
                    if (w < 0 && errno == EINTR)
                        continue;
                    if (w <= 0) {
                        writeError = w < 0 ? errno : EIO;
                        break;
                    }
                    p += w;
                    left -= size_t(w);
                }
                return n;
            });
        } catch (...) {
            ::close(fd);
            throw;
        }
        if (::close(fd) != 0 && !writeError)
            writeError = errno;
        if (writeError)
            fail(std::strerror(writeError));
    } catch (const Error &) {
        throw;
    } catch (const c10::Error &e) {
        fail(firstLine(e));
    } catch (const std::exception &e) {
        fail(e.what());
    }
    commitFileAtomic(tmp, path); // fsync, rename, fsync the directory; removes tmp on failure
}

std::vector<std::pair<std::string, torch::Tensor>> namedParameters(nn::BertForSequenceClassification &model)
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (auto &p : model->named_parameters())
        out.emplace_back(p.key(), p.value());
    return out;
}

} // namespace wb
