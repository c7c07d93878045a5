// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one call a front-end makes for "Start from: a pretrained model": a Hub id, a catalogue
// name or a local folder in, the local files of config, vocabulary, casing and weights out
// (docs/pretrained-models.md).

#include "core/events/stoptoken.h"
#include "core/hub/hubparse.h"
#include "core/hub/hubsettings.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// Where a download stands; handed to a DownloadProgressFn.
struct DownloadProgress
{
    std::string repo_id;            ///< "google/bert_uncased_L-2_H-128_A-2"
    std::string file;               ///< the file being transferred, e.g. "model.safetensors"
    int file_index = 0;             ///< 1-based among the files this call transfers
    int file_count = 0;             ///< files to transfer (grows when a shard index is read)
    int64_t bytes_done = 0;         ///< bytes of those files on disk, resumed parts included
    int64_t bytes_total = -1;       ///< their total size (-1 while unknown)
    double bytes_per_second = 0;    ///< transfer rate over the last few seconds (0 at first)
    double seconds_left = -1;       ///< (bytes_total - bytes_done) / rate; -1 while unknown
    bool file_finished = false;     ///< this report ends `file` (it is verified and in the cache)
    /// Non-empty in a report of its own that says something the user should know now, e.g.
    /// "test-org/m: model.safetensors: blobs/<sha256> is damaged (1000 bytes, expected 4096):
    /// downloading it again". Also in PretrainedModel::notes at the end.
    std::string notice;
};

/// Receives progress, on the thread that called resolvePretrainedModel, at most about
/// 10 times per second plus once at the end of every file. Must not throw.
using DownloadProgressFn = std::function<void(const DownloadProgress &)>;

/// A pretrained BERT on local disk, ready for the loaders: every path is absolute.
struct PretrainedModel
{
    std::string source;                 ///< what the caller gave (id, catalogue name or folder)
    std::string repo_id;                ///< Hub repo ("google-bert/bert-base-uncased"); empty for a local folder
    std::string revision;               ///< the revision asked for ("main"); empty for a local folder
    std::string commit;                 ///< the snapshot's 40-hex commit; empty for a local folder
    std::string folder;                 ///< the snapshot folder (<cache>/models--…/snapshots/<commit>) or the local folder
    std::string config_file;            ///< <folder>/config.json (Hugging Face's, or bert_config.json in a local folder)
    std::string vocab_file;             ///< <folder>/vocab.txt
    std::string tokenizer_config_file;  ///< <folder>/tokenizer_config.json, or "" when the model has none
    std::vector<std::string> weights_files; ///< the weights: one file, or every shard (sorted)
    std::string weights_index_file;     ///< the *.index.json of sharded weights, else ""
    WeightsFormat weights_format = WeightsFormat::None; ///< Safetensors or PytorchBin
    bool do_lower_case = true;          ///< the tokenizer's casing (see do_lower_case_source)
    /// Where do_lower_case came from: "tokenizer_config.json", "catalogue", "model id"
    /// ('uncased'/'cased' in the name) or "default" (BertTokenizer's true).
    std::string do_lower_case_source;
    bool from_cache = false;            ///< nothing was transferred (cache or local folder)
    int64_t bytes_downloaded = 0;       ///< bytes transferred by this call
    std::vector<std::string> notes;     ///< things the user should know (e.g. "used the cache: the Hub was unreachable")
};

/// Resolves `idOrFolder` to local files, downloading what is missing.
///
/// `idOrFolder` is, in this order: an existing folder (a path; used as it is, nothing is
/// copied: config.json or bert_config.json, vocab.txt, optional tokenizer_config.json and a
/// weights file as below); a catalogue short name (findCatalogueEntry: "BERT-Tiny"); or a
/// Hub id "org/name[@revision]" (parseHubId). For a Hub id:
///  - a complete snapshot of the revision in the Hugging Face cache (config.json, vocab.txt,
///    weights; whoever downloaded it, this product or huggingface_hub) is used with no
///    request at all, unless settings.refresh, once each file's blob has its recorded size
///    (HubCache::blobDamage; with settings.verify also its sha256 or git blob sha1). A damaged
///    blob is downloaded again (a `notice` says so); offline it is HubError(Checksum) naming
///    the blob and the fix;
///  - settings.offline: the cache only; a missing model is HubError(NotCached) naming the
///    folder to copy and where;
///  - else GET {endpoint}/api/models/{repo}/revision/{rev} lists the files and the commit,
///    and config.json, vocab.txt, tokenizer_config.json (when the repo has it) and ONE
///    weights file (chooseWeights: model.safetensors, else its index + shards, else
///    pytorch_model.bin, else its index + shards) are fetched into the cache (HubCache) with
///    retries and Range resume; every blob is stored under its name only after its bytes
///    match it (sha256 of LFS files, git blob sha1 of others) and the Hub's size, wherever the
///    Hub's redirect sent the download (HubClient::fetch); blobs already in the cache are
///    checked before they are linked; refs/<revision> is written last.
/// do_lower_case is tokenizer_config.json's, else the catalogue's, else 'uncased' → true /
/// 'cased' → false in the id, else true.
///
/// Synchronous (run it off a GUI thread); `progress` may be empty. `stop` is polled during
/// transfers and back-offs: a stop throws HubError(Stopped); files already complete stay in
/// the snapshot, the cut file stays only as blobs/<etag>.incomplete (resumed next time), so
/// the snapshot never holds half a file.
/// Throws HubError (isUserError() tells exit 2 from 1) naming the model and file and the fix:
/// InvalidId, LocalFolder, NotCached, Gated, RepoNotFound, RevisionNotFound, EntryNotFound,
/// NoBertWeights (no usable weights: names the files the repo has; also a config.json whose
/// model_type is not "bert"), Network, Http, Checksum, DiskFull, Io, Stopped.
/// Thread rules: any thread; concurrent calls for the same model serialise on the cache's
/// lock files (shared with huggingface_hub's .locks).
PretrainedModel resolvePretrainedModel(const std::string &idOrFolder, const HubSettings &settings,
                                       const DownloadProgressFn &progress, const StopToken &stop);

/// The cache-only lookup: never touches the network. Returns the model when `idOrFolder`
/// is a usable local folder or a complete snapshot of the revision is in settings.cache_dir
/// (settings.offline and refresh are ignored); nothing otherwise. Throws HubError(InvalidId)
/// for text that is neither a folder, a catalogue name nor a Hub id, HubError(LocalFolder)
/// for an existing folder without the model files, and HubError(Checksum) for a snapshot
/// file whose cached blob is damaged (not its recorded size; with settings.verify, not its
/// digest): the message names the blob and says "the cached copy … is damaged", the hint
/// `bert-workbench-cli models download --refresh <id>`. Thread-safe.
std::optional<PretrainedModel> findCachedPretrainedModel(const std::string &idOrFolder, const HubSettings &settings);

/// Returns true when `text` names a local path rather than a Hub id: an existing folder, or
/// text starting with '/', './', '../' or '~'.
bool looksLikeLocalPath(const std::string &text);

/// Returns "safetensors", "pytorch_model.bin" or "none".
std::string weightsFormatName(WeightsFormat format);

} // namespace wb
