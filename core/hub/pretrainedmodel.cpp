// SPDX-License-Identifier: Apache-2.0
#include "core/hub/pretrainedmodel.h"
#include "core/util/asciitext.h"

#include "core/config/optionwords.h"
#include "core/hub/catalogue.h"
#include "core/hub/hubcache.h"
#include "core/hub/hubclient.h"
#include "core/hub/huberror.h"
#include "core/hub/hubid.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr double kReportInterval = 0.1;  // seconds between progress reports
constexpr double kRateWindow = 5.0;      // seconds of transfer the rate is averaged over
constexpr size_t kMaxSmallJson = 64 << 20; // config/tokenizer_config/index files read whole

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    std::string out = s.str();
    if (out.size() > kMaxSmallJson)
        out.resize(kMaxSmallJson);
    return out;
}

std::string joinList(const std::vector<std::string> &files, size_t max = 12)
{
    if (files.empty())
        return "none";
    std::string s;
    for (size_t i = 0; i < files.size() && i < max; ++i)
        s += (i ? ", " : "") + files[i];
    if (files.size() > max)
        s += ", … (" + std::to_string(files.size()) + " files)";
    return s;
}

/// The model_type check: a config.json that says it is another architecture is refused
/// before its weights are fetched.
void checkModelType(const std::string &configPath, const std::string &field)
{
    const nlohmann::json j = nlohmann::json::parse(readText(configPath), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw HubError(HubErrorKind::NoBertWeights, field, "config.json is not a JSON object",
                       "Choose a BERT model (bert-workbench-cli models list).");
    auto it = j.find("model_type");
    if (it != j.end() && it->is_string() && it->get<std::string>() != "bert")
        throw HubError(HubErrorKind::NoBertWeights, field,
                       "this is a '" + it->get<std::string>() + "' model (config.json model_type), not BERT",
                       "Choose a BERT model (model_type \"bert\"; bert-workbench-cli models list).");
}

void setLowerCase(PretrainedModel &m, const std::string &idText)
{
    if (!m.tokenizer_config_file.empty()) {
        const nlohmann::json j = nlohmann::json::parse(readText(m.tokenizer_config_file), nullptr, false);
        if (j.is_object() && j.contains("do_lower_case") && j["do_lower_case"].is_boolean()) {
            m.do_lower_case = j["do_lower_case"].get<bool>();
            m.do_lower_case_source = "tokenizer_config.json";
            return;
        }
    }
    if (const CatalogueEntry *e = findCatalogueEntry(m.repo_id.empty() ? idText : m.repo_id)) {
        m.do_lower_case = e->do_lower_case;
        m.do_lower_case_source = "catalogue";
        return;
    }
    const std::string name = lowerAscii(m.repo_id.empty() ? fs::path(idText).filename().string() : m.repo_id);
    if (name.find("uncased") != std::string::npos) {
        m.do_lower_case = true;
        m.do_lower_case_source = "model id";
    } else if (name.find("cased") != std::string::npos) {
        m.do_lower_case = false;
        m.do_lower_case_source = "model id";
    } else {
        m.do_lower_case = true;
        m.do_lower_case_source = "default";
    }
}

/// Fills the weight paths from the files in `folder`; false when something is missing.
bool setWeights(PretrainedModel &m, const std::vector<std::string> &files, const std::string &folder,
                const std::string &field, std::vector<std::string> *missing)
{
    const WeightsChoice w = chooseWeights(files);
    if (w.file.empty()) {
        if (missing)
            missing->push_back("model.safetensors or pytorch_model.bin");
        return false;
    }
    m.weights_format = w.format;
    const std::string path = folder + "/" + w.file;
    if (!w.sharded) {
        m.weights_files = {path};
        return true;
    }
    m.weights_index_file = path;
    m.weights_files.clear();
    bool ok = true;
    for (const auto &shard : parseShardFileNames(readText(path), field + ": " + w.file)) {
        if (std::find(files.begin(), files.end(), shard) == files.end()) {
            if (missing)
                missing->push_back(shard);
            ok = false;
        }
        m.weights_files.push_back(folder + "/" + shard);
    }
    return ok;
}

std::vector<std::string> folderFiles(const std::string &folder)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e2;
        if (fs::is_regular_file(it->path(), e2))
            out.push_back(it->path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

PretrainedModel localFolder(const std::string &text)
{
    std::error_code ec;
    const fs::path dir = fs::absolute(fs::path(text), ec).lexically_normal();
    const std::string folder = dir.string().size() > 1 && dir.string().back() == '/'
                                   ? dir.string().substr(0, dir.string().size() - 1)
                                   : dir.string();
    if (!fs::is_directory(dir, ec))
        throw HubError(HubErrorKind::LocalFolder, text, "no such model folder",
                       "Give a folder with config.json, vocab.txt and model.safetensors (or pytorch_model.bin), "
                       "or a Hub id such as google/bert_uncased_L-2_H-128_A-2.");
    const std::vector<std::string> files = folderFiles(folder);
    const auto has = [&](const char *f) { return std::find(files.begin(), files.end(), f) != files.end(); };
    PretrainedModel m;
    m.source = text;
    m.folder = folder;
    m.from_cache = true;
    std::vector<std::string> missing;
    if (has("config.json"))
        m.config_file = folder + "/config.json";
    else if (has("bert_config.json"))
        m.config_file = folder + "/bert_config.json";
    else
        missing.push_back("config.json");
    if (has("vocab.txt"))
        m.vocab_file = folder + "/vocab.txt";
    else
        missing.push_back("vocab.txt");
    if (has("tokenizer_config.json"))
        m.tokenizer_config_file = folder + "/tokenizer_config.json";
    setWeights(m, files, folder, folder, &missing);
    if (!missing.empty())
        throw HubError(HubErrorKind::LocalFolder, folder,
                       "the model folder lacks " + joinList(missing) + " (it has: " + joinList(files) + ")",
                       "A pretrained model folder holds config.json, vocab.txt and model.safetensors or "
                       "pytorch_model.bin, as save_pretrained writes them.");
    if (m.config_file == folder + "/config.json")
        checkModelType(m.config_file, folder + ": config.json");
    setLowerCase(m, text);
    return m;
}

/// The Hub id for a catalogue short name or a Hub id text; `legacy` is set to the id as
/// typed when the catalogue maps a bare legacy name ("bert-base-uncased").
HubId hubIdFor(const std::string &text, std::optional<HubId> *legacy)
{
    std::string name = text;
    std::string revision;
    if (const auto at = text.find('@'); at != std::string::npos) {
        name = text.substr(0, at);
        revision = text.substr(at);
    }
    if (const CatalogueEntry *e = findCatalogueEntry(name); e && lowerAscii(e->hub_id) != lowerAscii(name)) {
        if (legacy && name.find('/') == std::string::npos && lowerAscii(name) != lowerAscii(e->short_name))
            *legacy = parseHubId(text);
        return parseHubId(e->hub_id + revision);
    }
    return parseHubId(text);
}

/// The fix for a damaged cached file, as a hint.
std::string refreshHint(const HubId &id)
{
    return "Download it again: bert-workbench-cli models download --refresh " + id.toString()
           + " (it checks every cached file of the model and fetches the damaged ones again).";
}

/// Checks the blobs behind the snapshot's files `files` (paths relative to it): their recorded
/// size, and with `hash` their digest. Throws HubError(Checksum) naming the first damaged one.
void checkSnapshotBlobs(const HubCache &cache, const HubId &id, const std::string &commit,
                        const std::vector<std::string> &files, bool hash)
{
    for (const auto &f : files) {
        const std::string blob = cache.snapshotBlob(id, commit, f);
        if (blob.empty())
            continue; // a copied file, no blob name to check it against
        const std::string damage = cache.blobDamage(id, blob, -1, hash);
        if (!damage.empty())
            throw HubError(HubErrorKind::Checksum, id.repo_id + ": " + f,
                           "the cached copy of " + f + " (" + cache.blobPath(id, blob) + ") is damaged (" + damage
                               + "): it changed in the Hugging Face cache after it was downloaded",
                           refreshHint(id));
    }
}

/// A complete snapshot in the cache, or nothing; a damaged file is HubError(Checksum)
/// (checkSnapshotBlobs).
std::optional<PretrainedModel> fromSnapshot(const HubCache &cache, const HubId &id, const std::string &source,
                                            bool hash)
{
    const std::string commit = cache.cachedCommit(id);
    if (commit.empty())
        return std::nullopt;
    const std::vector<std::string> files = cache.snapshotFiles(id, commit);
    const auto has = [&](const char *f) { return std::find(files.begin(), files.end(), f) != files.end(); };
    if (!has("config.json") || !has("vocab.txt"))
        return std::nullopt;
    PretrainedModel m;
    m.source = source;
    m.repo_id = id.repo_id;
    m.revision = id.revision;
    m.commit = commit;
    m.folder = cache.snapshotDir(id, commit);
    m.config_file = m.folder + "/config.json";
    m.vocab_file = m.folder + "/vocab.txt";
    if (has("tokenizer_config.json"))
        m.tokenizer_config_file = m.folder + "/tokenizer_config.json";
    try {
        if (!setWeights(m, files, m.folder, id.repo_id, nullptr))
            return std::nullopt;
    } catch (const HubError &) { // a damaged index in the cache: fetch again
        return std::nullopt;
    }
    std::vector<std::string> used = {"config.json", "vocab.txt"};
    if (!m.tokenizer_config_file.empty())
        used.push_back("tokenizer_config.json");
    for (const auto &path : m.weights_files)
        used.push_back(path.substr(m.folder.size() + 1));
    if (!m.weights_index_file.empty())
        used.push_back(m.weights_index_file.substr(m.folder.size() + 1));
    checkSnapshotBlobs(cache, id, commit, used, hash);
    m.from_cache = true;
    setLowerCase(m, source);
    return m;
}

/// Turns per-file byte counts into DownloadProgress reports with a rate and time left.
class ProgressTracker
{
public:
    ProgressTracker(const DownloadProgressFn &fn, const std::string &repo) : m_fn(fn) { m_p.repo_id = repo; }

    void plan(int64_t size)
    {
        ++m_p.file_count;
        if (size < 0)
            m_unknown = true;
        else
            m_total += size;
        m_p.bytes_total = m_unknown ? -1 : m_total;
    }
    void begin(const std::string &file)
    {
        m_p.file = file;
        ++m_p.file_index;
        m_fileDone = 0;
    }
    void bytes(int64_t fileDone)
    {
        const int64_t delta = fileDone - m_fileDone;
        m_fileDone = fileDone;
        if (delta > 0)
            m_transferred += delta;
        report(false);
    }
    void end()
    {
        m_completed += m_fileDone;
        m_fileDone = 0;
        report(true);
    }
    /// A report of its own carrying `text` (DownloadProgress::notice).
    void notice(const std::string &text)
    {
        if (!m_fn)
            return;
        DownloadProgress p = m_p;
        p.file_finished = false;
        p.notice = text;
        m_fn(p);
    }

private:
    static double now()
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    void report(bool fileFinished)
    {
        const double t = now();
        m_samples.emplace_back(t, m_transferred);
        while (m_samples.size() > 2 && t - m_samples.front().first > kRateWindow)
            m_samples.pop_front();
        if (!fileFinished && t - m_lastReport < kReportInterval)
            return;
        m_lastReport = t;
        m_p.bytes_done = m_completed + m_fileDone;
        const double span = t - m_samples.front().first;
        m_p.bytes_per_second = span > 0.2 ? double(m_transferred - m_samples.front().second) / span : 0.0;
        m_p.seconds_left = m_p.bytes_total >= 0 && m_p.bytes_per_second > 0
                               ? double(std::max<int64_t>(0, m_p.bytes_total - m_p.bytes_done)) / m_p.bytes_per_second
                               : -1.0;
        if (m_p.bytes_total >= 0 && m_p.bytes_done >= m_p.bytes_total && fileFinished
            && m_p.file_index == m_p.file_count)
            m_p.seconds_left = 0;
        m_p.file_finished = fileFinished;
        if (m_fn)
            m_fn(m_p);
    }

    const DownloadProgressFn &m_fn;
    DownloadProgress m_p;
    int64_t m_total = 0;
    bool m_unknown = false;
    int64_t m_completed = 0;
    int64_t m_fileDone = 0;
    int64_t m_transferred = 0;
    double m_lastReport = -1e9;
    std::deque<std::pair<double, int64_t>> m_samples;
};

[[noreturn]] void notCached(const HubId &id, const HubSettings &settings, const std::string &why)
{
    // The window names the cache, never huggingface_hub's folder of the model (models--org--name;
    // core/config/optionwords.h: the window's words).
    if (optionWording() == OptionWording::Window)
        throw HubError(HubErrorKind::NotCached, id.toString(),
                       why + " (looked for it in the Hugging Face cache, " + settings.cache_dir + ")",
                       "On a machine with network, choose it in Start from there (or run 'bert-workbench-cli models "
                       "download " + id.toString() + "'), then copy that machine's Hugging Face cache "
                       "(~/.cache/huggingface/hub) into " + settings.cache_dir + " here; or unset HF_HUB_OFFLINE to "
                       "download it.");
    throw HubError(HubErrorKind::NotCached, id.toString(),
                   why + " (looked for " + settings.cache_dir + "/" + id.cacheFolderName() + " with refs/"
                       + id.revision + ")",
                   "On a machine with network run 'bert-workbench-cli models download " + id.toString()
                       + "' (or huggingface-cli download " + id.repo_id + "), then copy its folder "
                       + id.cacheFolderName() + " (from that machine's ~/.cache/huggingface/hub) into "
                       + settings.cache_dir + "/ here; or unset HF_HUB_OFFLINE to download it.");
}

} // namespace

bool looksLikeLocalPath(const std::string &text)
{
    std::error_code ec;
    if (text.empty())
        return false;
    if (text[0] == '/' || text[0] == '~' || text.rfind("./", 0) == 0 || text.rfind("../", 0) == 0 || text == "."
        || text == "..")
        return true;
    return fs::is_directory(text, ec);
}

std::string weightsFormatName(WeightsFormat format)
{
    switch (format) {
    case WeightsFormat::Safetensors: return "safetensors";
    case WeightsFormat::PytorchBin: return "pytorch_model.bin";
    case WeightsFormat::None: break;
    }
    return "none";
}

std::optional<PretrainedModel> findCachedPretrainedModel(const std::string &idOrFolder, const HubSettings &settings)
{
    if (looksLikeLocalPath(idOrFolder)) {
        std::string path = idOrFolder;
        if (path.rfind("~/", 0) == 0 && std::getenv("HOME"))
            path = std::string(std::getenv("HOME")) + path.substr(1);
        return localFolder(path);
    }
    std::optional<HubId> legacy;
    const HubId id = hubIdFor(idOrFolder, &legacy);
    // transformers caches "bert-base-uncased" (the Hub's legacy id of google-bert/…) under
    // models--bert-base-uncased: both spellings find either folder.
    if (!legacy && id.repo_id.rfind("google-bert/", 0) == 0)
        legacy = HubId{id.repo_id.substr(12), id.revision};
    const HubCache cache(settings.cache_dir);
    if (auto m = fromSnapshot(cache, id, idOrFolder, settings.verify))
        return m;
    if (legacy)
        if (auto m = fromSnapshot(cache, *legacy, idOrFolder, settings.verify))
            return m;
    return std::nullopt;
}

namespace {

/// What a text that was taken for a Hub id would have been as a local folder: said with the
/// Hub's error, so that a mistyped folder ("modles/tiny") is not explained by the network alone.
std::string localFolderNote(const std::string &text)
{
    std::error_code ec;
    const fs::path path(text);
    const fs::path parent = path.parent_path();
    if (!parent.empty() && fs::is_directory(parent, ec)) {
        std::vector<std::string> names;
        for (const auto &e : fs::directory_iterator(parent, ec))
            if (e.is_directory(ec))
                names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return " There is a local folder '" + parent.string() + "', but it holds no '" + path.filename().string()
               + "'" + (names.empty() ? std::string(" (it has no sub-folders)") : " (it has: " + joinList(names) + ")")
               + ".";
    }
    return " No local folder '" + text + "' exists either (relative to " + fs::current_path(ec).string()
           + "); write a local folder as ./" + text + " or an absolute path.";
}

/// Rethrows a Hub failure for `idOrFolder` with localFolderNote() when it could have been meant
/// as a folder: the Hub did not know it, or could not be asked.
[[noreturn]] void rethrowWithFolderNote(const HubError &e, const std::string &idOrFolder)
{
    if (e.kind() == HubErrorKind::Network || e.kind() == HubErrorKind::RepoNotFound
        || e.kind() == HubErrorKind::InvalidId)
        throw HubError(e.kind(), e.field(), e.what() + std::string(".") + localFolderNote(idOrFolder), e.hint());
    throw e;
}

/// The repo's files as one of ours needs them: its weights file (preferred format first), and
/// config.json and vocab.txt; else HubError(NoBertWeights) naming what it has.
WeightsChoice checkRepoFiles(const RepoInfo &info, const HubId &id)
{
    const std::string field = id.repo_id;
    const WeightsChoice weights = chooseWeights(info.siblings);
    if (weights.file.empty()) {
        const std::vector<std::string> other = otherWeightsFiles(info.siblings);
        throw HubError(HubErrorKind::NoBertWeights, field,
                       "model " + id.toString() + " has no weights this product reads (model.safetensors, "
                           "pytorch_model.bin or their *.index.json shards); "
                           + (other.empty() ? "it has: " + joinList(info.siblings)
                                            : "its weights are only " + joinList(other)),
                       "Choose a model with PyTorch or safetensors weights (bert-workbench-cli models list), or "
                       "convert these with transformers (from_pretrained(..., from_tf=True or from_flax=True), "
                       "then save_pretrained) and give the folder.");
    }
    for (const char *needed : {"config.json", "vocab.txt"})
        if (std::find(info.siblings.begin(), info.siblings.end(), needed) == info.siblings.end())
            throw HubError(HubErrorKind::NoBertWeights, field + ": " + needed,
                           "model " + id.toString() + " has no " + needed + " (it has: " + joinList(info.siblings) + ")",
                           "Choose a BERT model with config.json and a WordPiece vocab.txt (bert-workbench-cli "
                           "models list).");
    return weights;
}

/// Downloads the files of one snapshot into the cache: the plan's files, then the shards its
/// index names. Returns the bytes transferred (0 when every file was in the cache already).
class SnapshotFetch
{
public:
    SnapshotFetch(HubClient &client, const HubCache &cache, const HubId &id, const HubSettings &settings,
                  const DownloadProgressFn &progress)
        : m_client(client), m_cache(cache), m_id(id), m_settings(settings), m_tracker(progress, id.repo_id)
    {
    }

    /// Asks the Hub for the size and commit of every file of `plan` at `revision`; returns the
    /// commit they belong to.
    std::string plan(const std::vector<std::string> &files, const std::string &revision, std::string commit)
    {
        for (const auto &f : files) {
            const auto meta = m_client.fileMetadata(m_id, revision, f, false);
            if (commit.empty())
                commit = meta->commit;
            m_metas.emplace_back(f, *meta);
            m_tracker.plan(meta->size);
        }
        if (!isCommitHash(commit))
            throw HubError(HubErrorKind::Http, m_id.repo_id,
                           "the Hub named no commit (X-Repo-Commit) for revision " + m_id.revision,
                           "Check HF_ENDPOINT (" + m_settings.endpoint + ").");
        m_commit = commit;
        return commit;
    }

    /// Fetches the planned files (config.json is checked to be a BERT config first), then,
    /// when `weights` is a shard index, the shards it names.
    int64_t fetch(const WeightsChoice &weights, const std::string &revision)
    {
        for (const auto &[f, m] : m_metas) {
            fetchOne(f, m);
            if (f == "config.json")
                checkModelType(m_cache.snapshotFile(m_id, m_commit, f), m_id.repo_id + ": config.json");
        }
        if (weights.sharded) {
            const std::vector<std::string> shards = parseShardFileNames(
                readText(m_cache.snapshotFile(m_id, m_commit, weights.file)), m_id.repo_id + ": " + weights.file);
            std::vector<std::pair<std::string, HubFileMetadata>> shardMetas;
            for (const auto &sh : shards) {
                const auto meta = m_client.fileMetadata(m_id, revision, sh, false);
                m_tracker.plan(meta->size);
                shardMetas.emplace_back(sh, *meta);
            }
            for (const auto &[f, m] : shardMetas)
                fetchOne(f, m);
        }
        return m_transferred;
    }
    /// What the user should know (damaged cached blobs that were downloaded again).
    const std::vector<std::string> &notes() const { return m_notes; }

private:
    void fetchOne(const std::string &f, const HubFileMetadata &m)
    {
        m_tracker.begin(f);
        m_transferred += m_client.fetch(
            m_cache, m_id, m_commit, f, m, [&](int64_t done) { m_tracker.bytes(done); },
            [&](const std::string &text) {
                m_notes.push_back(text);
                m_tracker.notice(text);
            });
        m_tracker.end();
    }

    HubClient &m_client;
    const HubCache &m_cache;
    const HubId &m_id;
    const HubSettings &m_settings;
    ProgressTracker m_tracker;
    std::vector<std::pair<std::string, HubFileMetadata>> m_metas;
    std::string m_commit;
    int64_t m_transferred = 0;
    std::vector<std::string> m_notes;
};

} // namespace

PretrainedModel resolvePretrainedModel(const std::string &idOrFolder, const HubSettings &settings,
                                       const DownloadProgressFn &progress, const StopToken &stop)
{
    if (looksLikeLocalPath(idOrFolder))
        return *findCachedPretrainedModel(idOrFolder, settings);
    std::optional<HubId> legacy;
    HubId id;
    try {
        id = hubIdFor(idOrFolder, &legacy);
    } catch (const HubError &e) {
        rethrowWithFolderNote(e, idOrFolder);
    }
    const HubCache cache(settings.cache_dir);
    // With a refresh the downloads check every cached blob (HubClient::fetch), so the cache
    // lookup does not hash them first.
    HubSettings lookup = settings;
    lookup.verify = settings.verify && (!settings.refresh || settings.offline);
    std::optional<PretrainedModel> cached;
    std::optional<HubError> damaged; // a damaged cached file: downloaded again below
    try {
        cached = findCachedPretrainedModel(idOrFolder, lookup);
    } catch (const HubError &e) {
        if (e.kind() != HubErrorKind::Checksum)
            throw;
        damaged = e;
    }
    if (cached && (!settings.refresh || settings.offline))
        return *cached;
    if (settings.offline && damaged)
        throw HubError(HubErrorKind::Checksum, damaged->field(), damaged->what(),
                       "HF_HUB_OFFLINE=1 forbids downloading it again: unset HF_HUB_OFFLINE and run "
                       "'bert-workbench-cli models download --refresh "
                           + id.toString() + "', or copy the model's folder " + id.cacheFolderName()
                           + " again from a machine where it is whole.");
    if (settings.offline)
        notCached(id, settings, "model " + id.toString() + " is not in the Hugging Face cache and HF_HUB_OFFLINE=1 "
                                "forbids downloading it");

    HubClient client(settings, stop);
    RepoInfo info;
    try {
        info = client.repoInfo(id);
    } catch (const HubError &e) {
        if (e.kind() == HubErrorKind::Network && cached) {
            cached->notes.push_back(std::string("the Hub could not be reached (") + e.what()
                                    + "); the cached snapshot " + cached->commit + " was used");
            return *cached;
        }
        if (e.kind() == HubErrorKind::Network && damaged)
            throw HubError(HubErrorKind::Checksum, damaged->field(),
                           damaged->what() + std::string("; it cannot be downloaded again now: ") + e.what(),
                           e.hint());
        rethrowWithFolderNote(e, idOrFolder);
    }
    const WeightsChoice weights = checkRepoFiles(info, id);
    const auto has = [&](const std::string &f) {
        return std::find(info.siblings.begin(), info.siblings.end(), f) != info.siblings.end();
    };
    // A commit pins every file to one version even if the branch moves meanwhile.
    const std::string revision = info.commit.empty() ? id.revision : info.commit;
    std::vector<std::string> plan = {"config.json", "vocab.txt"};
    if (has("tokenizer_config.json"))
        plan.push_back("tokenizer_config.json");
    plan.push_back(weights.file);

    SnapshotFetch fetch(client, cache, id, settings, progress);
    const std::string commit = fetch.plan(plan, revision, info.commit);
    const int64_t transferred = fetch.fetch(weights, revision);
    if (!has("tokenizer_config.json"))
        cache.markMissing(id, commit, "tokenizer_config.json");
    cache.writeRef(id, commit);

    std::optional<PretrainedModel> m = fromSnapshot(cache, HubId{id.repo_id, commit}, idOrFolder, false);
    if (!m)
        throw HubError(HubErrorKind::Io, cache.snapshotDir(id, commit),
                       "the downloaded snapshot is incomplete", "Download it again.");
    m->revision = id.revision;
    m->from_cache = transferred == 0;
    m->bytes_downloaded = transferred;
    m->notes.insert(m->notes.end(), fetch.notes().begin(), fetch.notes().end());
    return *m;
}

} // namespace wb
