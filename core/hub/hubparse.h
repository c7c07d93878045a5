// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Hub client's parsers of what the network and the cache hand it: response headers, the
// model-info JSON, refs files, shard indexes, and the choice of weights file. Pure functions
// (no I/O), fuzzed by fuzz/fuzz_hubresponse.cpp. Thread-safe.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// Response headers by lower-cased name (the last value when a name repeats).
using HttpHeaders = std::map<std::string, std::string>;

/// Parses one raw header line ("X-Repo-Commit: abc\r\n") into `headers` (name lower-cased,
/// value trimmed). A status line ("HTTP/1.1 302 Found") clears `headers` (a new response
/// starts: redirects and 100 Continue) and sets `status`. Lines that are neither are ignored.
void parseHeaderLine(const std::string &line, HttpHeaders &headers, long &status);

/// Returns the ETag without a weak prefix and quotes: `W/"abc"` → `abc`.
std::string normalizeEtag(const std::string &etag);

/// What GET {endpoint}/api/models/{repo}/revision/{rev} says about a model.
struct RepoInfo
{
    std::string commit;                 ///< "sha": the revision's commit (empty if absent or not 40-hex)
    std::vector<std::string> siblings;  ///< "siblings"[].rfilename, in the Hub's order
};

/// Parses the model-info JSON. Throws HubError(Http) naming `source` when the text is not a
/// JSON object or "siblings" is not a list of objects with a string "rfilename".
RepoInfo parseRepoInfo(const std::string &json, const std::string &source);

/// Returns the commit in a refs/<revision> file (surrounding white space ignored), or "" when
/// the content is not a 40-hex commit.
std::string parseRefFile(const std::string &content);

/// Returns true for a relative path inside a repo: not empty, no leading '/', no '\\', no
/// NUL or control character, no empty, "." or ".." component.
bool isSafeRepoPath(const std::string &path);

/// Returns the distinct shard files named by a *.index.json ("weight_map": tensor → file),
/// sorted: what to download. Read by parseShardIndex (core/config/shardindex.h), the reader
/// the loader uses too, so the Hub client downloads exactly the files the loader will accept:
/// plain file names beside the index, each tensor once. Its errors become
/// HubError(NoBertWeights) naming `source`.
std::vector<std::string> parseShardFileNames(const std::string &json, const std::string &source);

/// The serialisation of a weights file.
enum class WeightsFormat { None, Safetensors, PytorchBin };

/// The weights file to fetch from a repo's file list.
struct WeightsChoice
{
    std::string file;                          ///< e.g. "model.safetensors"; empty: none usable
    WeightsFormat format = WeightsFormat::None;
    bool sharded = false;                      ///< `file` is a *.index.json naming shards
};

/// Chooses ONE weights file, preferring model.safetensors, then model.safetensors.index.json,
/// then pytorch_model.bin, then pytorch_model.bin.index.json (top level only, as transformers'
/// from_pretrained looks for them). Returns an empty choice when there is none.
WeightsChoice chooseWeights(const std::vector<std::string> &files);

/// Returns the TensorFlow/Flax/other weights among `files` (tf_model.h5, flax_model.msgpack,
/// model.ckpt.*, *.onnx ...), for the "no weights this product reads" message.
std::vector<std::string> otherWeightsFiles(const std::vector<std::string> &files);

} // namespace wb
