// SPDX-License-Identifier: Apache-2.0
// Finding the weights an --init_checkpoint names (locateCheckpoint) and the preflight check (checkInitCheckpoint).
#include "core/model/initcheckpoint.h"

#include "core/config/optionwords.h"
#include "core/weights/weightsfilehead.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

bool weightsFileHasExtension(const std::string &path, const char *ext)
{
    const std::string e = ext;
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
}

std::string weightsFileHead(const std::string &path, size_t n)
{
    std::ifstream in(path, std::ios::binary);
    std::string b(n, '\0');
    in.read(b.data(), std::streamsize(n));
    b.resize(size_t(in.gcount()));
    return b;
}

bool startsAsPyTorchFile(const std::string &head)
{
    const bool zip = head.rfind("PK\x03\x04", 0) == 0;
    const bool pickle = head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5;
    return zip || pickle;
}

namespace {

/// The file names of a folder, sorted, for messages ("holds a.txt, b.json").
std::string folderListing(const fs::path &dir)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &f : fs::directory_iterator(dir, ec))
        names.push_back(f.path().filename().string());
    std::sort(names.begin(), names.end());
    if (names.empty())
        return "nothing";
    std::string s;
    for (size_t k = 0; k < names.size() && k < 12; ++k)
        s += (k ? ", " : "") + names[k];
    if (names.size() > 12)
        s += " and " + std::to_string(names.size() - 12) + " more";
    return s;
}

/// True for a training checkpoint's file name, "ckpt-<N>" (checkpointName in core/engine/checkpointio.h).
bool isTrainingCheckpointName(const fs::path &p)
{
    const std::string n = p.filename().string();
    return n.size() > 5 && n.rfind("ckpt-", 0) == 0 && n.find_first_not_of("0123456789", 5) == std::string::npos;
}

/// The `ckpt-N` with the largest N in `dir`, or "" (a model_dir without its `checkpoint` index).
std::string latestTrainingCheckpoint(const fs::path &dir)
{
    std::error_code ec;
    std::string best;
    long long bestStep = -1;
    for (const auto &f : fs::directory_iterator(dir, ec))
        if (isTrainingCheckpointName(f.path()) && f.is_regular_file(ec)) {
            const std::string digits = f.path().filename().string().substr(5);
            const long long step = digits.size() > 18 ? -1 : std::stoll(digits);
            if (step > bestStep) {
                bestStep = step;
                best = f.path().string();
            }
        }
    return best;
}

/// What locateCheckpoint looked for, for the message when it finds nothing.
constexpr const char *kLookedFor =
    "looked for: a TensorFlow checkpoint (<prefix>.index + .data-00000-of-00001, or a folder with its `checkpoint` "
    "file), a training or pre-training run's model_dir (its `checkpoint` index and ckpt-N files), a single ckpt-N "
    "file, an export folder or a Hugging Face folder (model.safetensors or pytorch_model.bin, sharded or not, with "
    "config.json), a .safetensors file, a pytorch_model.bin / .pt / .pth file";

/// A folder with a `checkpoint` file: TensorFlow's or a training run's (readCheckpointStateTarget).
std::optional<CheckpointSource> locateByStateFile(const std::string &input)
{
    std::error_code ec;
    const auto target = readCheckpointStateTarget(input);
    if (!target)
        return std::nullopt;
    CheckpointSource src;
    if (!target->note.empty())
        src.notes.push_back(target->note);
    if (fs::exists(target->path + ".index", ec)) {
        src.format = CheckpointFormat::TensorFlow;
        src.path = target->path;
    } else if (fs::is_regular_file(target->path, ec)) {
        src.format = CheckpointFormat::Training;
        src.path = target->path;
    } else {
        (void)resolveTfCheckpointPrefix(input); // throws, naming the state file and both paths tried
        throw Error(target->state_file, "model_checkpoint_path names '" + target->recorded + "', which does not exist");
    }
    return src;
}

} // namespace

CheckpointSource locateCheckpoint(const std::string &input)
{
    std::error_code ec;
    if (auto src = locateByStateFile(input))
        return *src;
    if (auto prefix = resolveTfCheckpointPrefix(input))
        return {CheckpointFormat::TensorFlow, *prefix, {}, {}};
    if (fs::is_regular_file(input, ec) && isTrainingCheckpointName(input))
        return {CheckpointFormat::Training, input, {}, {}};
    if (fs::is_directory(input, ec)) {
        const fs::path dir(input);
        const std::string config = fs::is_regular_file(dir / "config.json", ec) ? (dir / "config.json").string() : "";
        // transformers' preference (modeling_utils.py from_pretrained): safetensors, then PyTorch.
        const std::pair<const char *, CheckpointFormat> hf[] = {
            {"model.safetensors", CheckpointFormat::Safetensors},
            {"model.safetensors.index.json", CheckpointFormat::Sharded},
            {"pytorch_model.bin", CheckpointFormat::PyTorch},
            {"pytorch_model.bin.index.json", CheckpointFormat::Sharded}};
        for (const auto &[file, format] : hf)
            if (fs::is_regular_file(dir / file, ec))
                return {format, (dir / file).string(), config, {}};
        if (const std::string latest = latestTrainingCheckpoint(dir); !latest.empty())
            return {CheckpointFormat::Training, latest, {}, {}}; // a model_dir without its index
        std::vector<std::string> indexes;
        for (const auto &f : fs::directory_iterator(dir, ec))
            if (f.path().extension() == ".index")
                indexes.push_back(f.path().string());
        if (indexes.size() == 1)
            return {CheckpointFormat::TensorFlow, indexes.front().substr(0, indexes.front().size() - 6), config, {}};
        if (indexes.size() > 1)
            throw Error(input, "the folder holds " + std::to_string(indexes.size())
                                   + " TensorFlow checkpoints and no `checkpoint` file saying which to use",
                        "pass the prefix of one, e.g. "
                            + optionSetting("init_checkpoint", indexes.front().substr(0, indexes.front().size() - 6)));
        for (const char *pickle : {"model.pt", "model.pth"})
            if (fs::is_regular_file(dir / pickle, ec))
                return {CheckpointFormat::PyTorch, (dir / pickle).string(), config, {}};
        std::string unread;
        for (const char *other : {"tf_model.h5", "flax_model.msgpack", "rust_model.ot", "model.onnx", "onnx/model.onnx"})
            if (fs::is_regular_file(dir / other, ec))
                unread += std::string(unread.empty() ? "" : ", ") + other;
        if (!unread.empty())
            throw Error(input, "the folder's weights are only in " + unread
                                   + " (Keras HDF5, Flax, Rust or ONNX), which are not read; the folder holds "
                                   + folderListing(dir),
                        "get the model's model.safetensors or pytorch_model.bin (most Hugging Face repositories have "
                        "one), or its original TensorFlow checkpoint (bert_model.ckpt)");
        throw Error(input, "the folder holds no checkpoint this program reads (it holds " + folderListing(dir) + "); "
                               + kLookedFor,
                    "pass one of these (a model_dir after its first checkpoint, an `export` folder, a Hugging Face "
                    "model folder, or a TensorFlow checkpoint prefix such as uncased_L-2_H-128_A-2/bert_model.ckpt)");
    }
    if (!fs::exists(input, ec)) {
        const fs::path p(input);
        const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
        const std::string stem = p.filename().string() + ".data-";
        for (const auto &f : fs::directory_iterator(parent, ec))
            if (f.path().filename().string().rfind(stem, 0) == 0)
                throw Error(input + ".index", "the TensorFlow checkpoint's .index file is missing (found "
                                                  + f.path().filename().string() + ")",
                            "copy " + p.filename().string() + ".index beside the data shard");
        throw Error(input, "the init checkpoint does not exist (neither it nor " + p.filename().string()
                               + ".index is there); " + kLookedFor,
                    "pass a model_dir of a run, a ckpt-N file, an export folder, a safetensors file, a Hugging Face "
                    "model folder, or a TensorFlow checkpoint prefix (e.g. uncased_L-2_H-128_A-2/bert_model.ckpt)");
    }
    const std::string head = weightsFileHead(input, 8);
    if (weightsFileHasExtension(input, ".index.json"))
        return {CheckpointFormat::Sharded, input, {}, {}};
    if (weightsFileHasExtension(input, ".bin") || weightsFileHasExtension(input, ".pt")
        || weightsFileHasExtension(input, ".pth") || startsAsPyTorchFile(head))
        return {CheckpointFormat::PyTorch, input, {}, {}};
    if (head.rfind("\x89HDF", 0) == 0)
        throw Error(input, "this is a Keras HDF5 weights file; it is not read",
                    "use the model's model.safetensors or pytorch_model.bin, or the original TensorFlow checkpoint "
                    "(bert_model.ckpt)");
    return {CheckpointFormat::Safetensors, input, {}, {}};
}

void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag)
{
    if (options.init_checkpoint.empty())
        return;
    try {
        const CheckpointSource src = locateCheckpoint(options.init_checkpoint);
        for (const auto &note : src.notes)
            diag.warning("init_checkpoint", note, "nothing to do if that is the checkpoint you meant");
        if (src.format == CheckpointFormat::TensorFlow) {
            const TfBundle bundle = readTfBundle(src.path);
            matchTfCheckpoint(bundle, config, meta.num_labels, diag, options.allow_partial_init);
            for (const auto &[shard, message] : checkTfBundleShards(bundle))
                diag.error(shard, message,
                           "copy " + fs::path(shard).filename().string() + " beside "
                               + fs::path(bundle.prefix).filename().string() + ".index");
        } else {
            matchCheckpoint(readWeightsTable(src), src.path, config, meta.num_labels, diag, options.allow_partial_init);
        }
        if (!src.config_json.empty()) {
            Diagnostics ignored;
            const auto folderConfig = BertConfig::load(src.config_json, ignored);
            if (folderConfig && !ignored.hasErrors() && !folderConfig->sameArchitecture(config))
                diag.warning(src.config_json,
                             "the checkpoint folder's config.json describes another architecture than "
                                 + optionName("bert_config_file"),
                             passOption("bert_config_file", src.config_json));
        }
    } catch (...) { // never throws: any failure (wb, filesystem, c10) is a finding
        const ErrorText t = describeCurrentException("init_checkpoint");
        diag.error(t.field, t.message, t.hint);
    }
}

} // namespace wb
