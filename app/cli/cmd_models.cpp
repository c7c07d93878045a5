// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/interrupt.h"
#include "app/cli/runflags.h"

#include "core/hub/catalogue.h"
#include "core/hub/huberror.h"
#include "core/hub/hubid.h"
#include "core/hub/modelcache.h"
#include "core/hub/pretrainedmodel.h"
#include "core/engine/preparedrun.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <optional>
#include <iostream>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace wb::cli {

namespace {

void printModelsUsage(std::ostream &out)
{
    out << "Usage: bert-workbench-cli models <list|info|download> [flags]\n\n"
           "  list                 the catalogue of official BERT checkpoints (and which are in the cache)\n"
           "  info <model>         one model: architecture, size, casing, licence, source, cache state\n"
           "  download <model>     fetch config.json, vocab.txt, tokenizer_config.json and the weights into\n"
           "                       the Hugging Face cache and print their paths\n\n"
           "<model> is a Hub id org/name[@revision], a catalogue name (BERT-Tiny, BERT-Mini, BERT-Small,\n"
           "BERT-Medium) or a local folder. Environment: HF_ENDPOINT, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE,\n"
           "HF_TOKEN (docs/pretrained-models.md).\n";
}

int exitCodeFor(const HubError &e)
{
    if (e.kind() == HubErrorKind::Stopped)
        return kExitStopped;
    return e.isUserError() ? kExitInvalid : kExitRuntime;
}

std::string seconds(double s)
{
    if (s < 0 || !std::isfinite(s))
        return "?";
    const int64_t n = int64_t(std::llround(s));
    if (n >= 3600)
        return std::to_string(n / 3600) + " h " + std::to_string((n % 3600) / 60) + " min";
    if (n >= 60)
        return std::to_string(n / 60) + " min " + std::to_string(n % 60) + " s";
    return std::to_string(n) + " s";
}

std::string progressText(const DownloadProgress &p)
{
    std::ostringstream s;
    s << formatBytes(p.bytes_done);
    if (p.bytes_total >= 0)
        s << " / " << formatBytes(p.bytes_total);
    if (p.bytes_per_second > 0)
        s << "  " << formatBytes(int64_t(p.bytes_per_second)) << "/s  " << seconds(p.seconds_left) << " left";
    s << "  " << p.file << " (" << p.file_index << "/" << p.file_count << ")";
    return s.str();
}

nlohmann::json progressJson(const DownloadProgress &p)
{
    // A number not known yet (DownloadProgress's -1, or no rate measured yet) is null, never 0 or -1.
    const auto known = [](double v, bool ok) { return ok ? nlohmann::json(v) : nlohmann::json(); };
    return {{"event", "download"},
            {"repo_id", p.repo_id},
            {"file", p.file},
            {"file_index", p.file_index},
            {"file_count", p.file_count},
            {"bytes_done", p.bytes_done},
            {"bytes_total", p.bytes_total >= 0 ? nlohmann::json(p.bytes_total) : nlohmann::json()},
            {"bytes_per_second", known(p.bytes_per_second, p.bytes_per_second > 0)},
            {"seconds_left", known(p.seconds_left, p.seconds_left >= 0)},
            {"file_finished", p.file_finished}};
}

/// One fact of a resolved model, named as the flag it fills.
struct ModelField
{
    const char *name;
    nlohmann::json value;
    bool listed; ///< printModel's key=value lines show it (modelJson has every field)
};

/// A resolved model's paths and facts, in printModel's order: modelJson's keys and printModel's
/// lines. The Hub's repo_id, revision and commit are listed for a Hub model only, the tokenizer
/// config when the model has one.
std::vector<ModelField> modelFields(const PretrainedModel &m)
{
    const bool hub = !m.repo_id.empty();
    return {{"repo_id", m.repo_id, hub},
            {"revision", m.revision, hub},
            {"commit", m.commit, hub},
            {"folder", m.folder, true},
            {"bert_config_file", m.config_file, true},
            {"vocab_file", m.vocab_file, true},
            {"tokenizer_config_file", m.tokenizer_config_file, !m.tokenizer_config_file.empty()},
            {"init_checkpoint", m.weights_index_file.empty() ? m.weights_files.front() : m.weights_index_file, true},
            {"weights_files", m.weights_files, false},
            {"weights_format", weightsFormatName(m.weights_format), true},
            {"do_lower_case", m.do_lower_case, true},
            {"do_lower_case_source", m.do_lower_case_source, true},
            {"from_cache", m.from_cache, false},
            {"bytes_downloaded", m.bytes_downloaded, false}};
}

nlohmann::json modelJson(const PretrainedModel &m)
{
    nlohmann::json j = nlohmann::json::object();
    for (const ModelField &f : modelFields(m))
        j[f.name] = f.value;
    return j;
}

/// The paths as key=value lines, named as the flags they fill.
void printModel(std::ostream &out, const PretrainedModel &m)
{
    for (const ModelField &f : modelFields(m))
        if (f.listed)
            out << f.name << "=" << (f.value.is_string() ? f.value.get<std::string>() : f.value.dump()) << "\n";
}

/// Shows a download's progress: a redrawn bar on a terminal, plain lines every few seconds
/// otherwise (both on `err`), or "download" JSON events on `out`.
class DownloadPrinter
{
public:
    DownloadPrinter(std::ostream &out, std::ostream &err, bool jsonl)
        : m_out(out), m_err(err), m_jsonl(jsonl), m_tty(!jsonl && &err == &std::cerr && ::isatty(STDERR_FILENO))
    {
    }
    DownloadProgressFn callback()
    {
        return [this](const DownloadProgress &p) { show(p); };
    }
    void clearBar()
    {
        if (m_barShown)
            m_err << "\r\033[K" << std::flush;
        m_barShown = false;
    }
    /// Prints the model's notes that no progress report said already.
    void printNotes(const std::vector<std::string> &notes)
    {
        for (const auto &note : notes)
            if (std::find(m_noticed.begin(), m_noticed.end(), note) == m_noticed.end())
                m_err << "note: " << note << "\n";
    }

private:
    static double now()
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    void show(const DownloadProgress &p)
    {
        if (!p.notice.empty()) { // said at once, on its own line
            m_noticed.push_back(p.notice);
            if (m_jsonl) {
                m_out << nlohmann::json{{"event", "notice"}, {"repo_id", p.repo_id}, {"file", p.file},
                                        {"message", p.notice}}.dump()
                      << "\n" << std::flush;
            } else {
                clearBar();
                m_err << "note: " << p.notice << "\n" << std::flush;
            }
            return;
        }
        if (m_jsonl) {
            m_out << progressJson(p).dump() << "\n" << std::flush;
        } else if (m_tty) {
            const int width = 30;
            const int done = p.bytes_total > 0 ? int(double(width) * double(p.bytes_done) / double(p.bytes_total)) : 0;
            m_err << "\r\033[K[" << std::string(size_t(std::min(done, width)), '=')
                  << std::string(size_t(width - std::min(done, width)), ' ') << "] " << progressText(p) << std::flush;
            m_barShown = true;
        } else if (p.file_finished || now() - m_lastPlain >= kPlainProgressInterval) {
            m_err << progressText(p) << (p.file_finished ? "  done" : "") << "\n" << std::flush;
            m_lastPlain = now();
        }
    }
    std::ostream &m_out;
    std::ostream &m_err;
    bool m_jsonl;
    bool m_tty;
    bool m_barShown = false;
    double m_lastPlain = -1e9;
    std::vector<std::string> m_noticed;
};

int cmdModelsList(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("List the catalogue of official BERT checkpoints on the Hugging Face Hub.",
                 "bert-workbench-cli models list");
    std::string format = "table";
    app.add_option("--format", format, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
    const HubSettings settings = HubSettings::fromEnvironment();
    // The window's "Start from" list says the same (cachedCatalogueModels, core/hub/modelcache.h).
    const std::vector<std::optional<CachedModelFiles>> cachedModels = cachedCatalogueModels(settings);
    const auto &catalogue = pretrainedCatalogue();
    if (format == "json") {
        nlohmann::json list = nlohmann::json::array();
        for (size_t i = 0; i < catalogue.size(); ++i) {
            const CatalogueEntry &e = catalogue[i];
            const auto &cached = cachedModels[i];
            list.push_back({{"hub_id", e.hub_id},
                            {"short_name", e.short_name},
                            {"layers", e.layers},
                            {"hidden_size", e.hidden},
                            {"attention_heads", e.heads},
                            {"intermediate_size", e.intermediate},
                            {"vocab_size", e.vocab_size},
                            {"parameters", e.parameters},
                            {"approx_bytes", e.approx_bytes},
                            {"do_lower_case", e.do_lower_case},
                            {"languages", e.languages},
                            {"license", e.licence},
                            {"source", e.source},
                            {"cached_folder", cached ? cached->folder : std::string()},
                            {"cached_bytes", cached ? nlohmann::json(cached->bytes_on_disk) : nlohmann::json()}});
        }
        out << list.dump(2) << "\n";
        return kExitOk;
    }
    out << std::left << std::setw(12) << "NAME" << std::setw(42) << "HUB ID" << std::right << std::setw(3) << "L"
        << std::setw(6) << "H" << std::setw(4) << "A" << std::setw(8) << "PARAMS" << std::setw(9) << "SIZE"
        << "  " << std::left << std::setw(8) << "CASING" << std::setw(15) << "LANGUAGES" << "CACHED\n";
    for (size_t i = 0; i < catalogue.size(); ++i) {
        const CatalogueEntry &e = catalogue[i];
        out << std::left << std::setw(12) << (e.short_name.empty() ? "-" : e.short_name) << std::setw(42) << e.hub_id
            << std::right << std::setw(3) << e.layers << std::setw(6) << e.hidden << std::setw(4) << e.heads
            << std::setw(8) << formatCount(e.parameters) << std::setw(9) << formatBytes(e.approx_bytes) << "  "
            << std::left << std::setw(8) << (e.do_lower_case ? "uncased" : "cased") << std::setw(15) << e.languages
            << (cachedModels[i] ? "yes, " + formatBytes(cachedModels[i]->bytes_on_disk) : std::string("no")) << "\n";
    }
    out << "\nAll are licensed apache-2.0 by Google Research (models info <model> for the source).\n"
           "Any other Hub id works too: bert-workbench-cli models download org/name[@revision].\n"
           "Cache: "
        << settings.cache_dir << "\n";
    return kExitOk;
}

int cmdModelsInfo(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Show a model: architecture, size, casing, licence and source (catalogue), and whether it is in\n"
                 "the Hugging Face cache. Never uses the network.",
                 "bert-workbench-cli models info");
    std::string model;
    app.add_option("model", model, "Hub id org/name[@revision], catalogue name or local folder")->required();
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
    const HubSettings settings = HubSettings::fromEnvironment();
    try {
        const CatalogueEntry *e = findCatalogueEntry(model);
        if (e) {
            out << "hub_id=" << e->hub_id << "\n";
            if (!e->short_name.empty())
                out << "name=" << e->short_name << "\n";
            out << "num_hidden_layers=" << e->layers << "\nhidden_size=" << e->hidden
                << "\nnum_attention_heads=" << e->heads << "\nintermediate_size=" << e->intermediate
                << "\nvocab_size=" << e->vocab_size << "\nparameters=" << e->parameters << " ("
                << formatCount(e->parameters) << ")\napprox_size=" << formatBytes(e->approx_bytes)
                << " (float32)\ndo_lower_case=" << (e->do_lower_case ? "true" : "false")
                << "\nlanguages=" << e->languages << "\nlicense=" << e->licence << "\nsource=" << e->source
                << "\npage=" << settings.endpoint << "/" << e->hub_id << "\n";
        } else if (!looksLikeLocalPath(model)) {
            const HubId id = parseHubId(model);
            out << "hub_id=" << id.repo_id << "\n(not in the catalogue)\npage=" << settings.endpoint << "/"
                << id.repo_id << "\n";
        }
        if (auto m = findCachedPretrainedModel(model, settings)) {
            out << "cached=yes\n";
            printModel(out, *m);
        } else {
            out << "cached=no\n";
            err << "not in the cache " << settings.cache_dir << "; fetch it with: bert-workbench-cli models download "
                << model << "\n";
        }
        return kExitOk;
    } catch (const HubError &e) {
        return reportCurrentException(err, "models info", exitCodeFor(e));
    } catch (...) {
        return reportCurrentException(err, "models info");
    }
}

int cmdModelsDownload(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Download a pretrained BERT into the Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub, else\n"
                 "~/.cache/huggingface/hub): config.json, vocab.txt, tokenizer_config.json and one weights file\n"
                 "(model.safetensors preferred). Every file is checked against the Hub's sha256 (LFS files) or git\n"
                 "blob id and size before it enters the cache. A model already in the cache is used without a\n"
                 "request once its files have their recorded sizes; a damaged file is downloaded again. Prints\n"
                 "the paths. Ctrl+C stops; the part downloaded so far is resumed next time (exit 130).",
                 "bert-workbench-cli models download");
    std::string model;
    bool refresh = false;
    bool verify = false;
    std::string progressFormat = "text";
    app.add_option("model", model, "Hub id org/name[@revision], catalogue name or local folder")->required();
    app.add_flag("--refresh", refresh,
                 "ask the Hub for the revision's latest commit even when the cache has it, check every cached file "
                 "against the Hub's size and its sha256 (or git blob id), and download damaged ones again");
    app.add_flag("--verify", verify,
                 "check every cached file's sha256 (or git blob id) before it is used, not only its size; damaged "
                 "ones are downloaded again (offline: an error)");
    app.add_option("--progress_format", progressFormat,
                   "text (progress bar or lines on stderr) or jsonl (one JSON event per line on stdout, for tools)")
        ->check(CLI::IsMember({"text", "jsonl"}))
        ->capture_default_str();
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
    HubSettings settings = HubSettings::fromEnvironment();
    settings.refresh = refresh;
    settings.verify = verify || refresh;
    const bool jsonl = progressFormat == "jsonl";
    DownloadPrinter printer(out, err, jsonl);
    const DownloadProgressFn progress = printer.callback();
    auto clearBar = [&] { printer.clearBar(); };
    auto finished = [&](const std::string &status, const ErrorText *e, const PretrainedModel *m) {
        if (!jsonl)
            return;
        nlohmann::json j = {{"event", "finished"}, {"status", status}};
        if (e) {
            j["message"] = e->message;
            j["field"] = e->field;
            j["hint"] = e->hint;
        }
        if (m)
            j["model"] = modelJson(*m);
        out << j.dump() << "\n" << std::flush;
    };
    StopToken stop;
    InterruptGuard guard(stop, "\nstopping the download (Ctrl+C again to quit at once)...\n");
    try {
        const PretrainedModel m = resolvePretrainedModel(model, settings, progress, stop);
        clearBar();
        printer.printNotes(m.notes);
        if (jsonl) {
            finished("completed", nullptr, &m);
        } else {
            if (m.from_cache)
                err << "in the cache already: " << m.folder << "\n";
            else
                err << "downloaded " << formatBytes(m.bytes_downloaded) << " into " << m.folder << "\n";
            printModel(out, m);
        }
        return kExitOk;
    } catch (const HubError &e) {
        clearBar();
        const ErrorText t = describeCurrentException("models download");
        finished(e.kind() == HubErrorKind::Stopped ? "cancelled" : "failed", &t, nullptr);
        return reportError(err, t, exitCodeFor(e));
    } catch (...) {
        clearBar();
        const ErrorText t = describeCurrentException("models download");
        finished("failed", &t, nullptr);
        return reportError(err, t, kExitRuntime);
    }
}

} // namespace

int fetchPretrainedForRun(const TrainingOptions &options, bool jsonl, std::ostream &out, std::ostream &err,
                          const StopToken *stopToken)
{
    if (options.pretrained_model.empty())
        return kExitOk;
    DownloadPrinter printer(out, err, jsonl);
    StopToken own;
    std::optional<InterruptGuard> guard; // the caller's token comes with the caller's guard
    if (!stopToken)
        guard.emplace(own, "\nstopping the download (Ctrl+C again to quit at once)...\n");
    const StopToken &stop = stopToken ? *stopToken : own;
    try {
        const auto m = fetchPretrainedModel(options, printer.callback(), stop);
        printer.clearBar();
        if (m && !m->from_cache && !jsonl)
            err << "downloaded " << formatBytes(m->bytes_downloaded) << " of " << options.pretrained_model << " into "
                << m->folder << "\n";
        printer.printNotes(m ? m->notes : std::vector<std::string>{});
        return kExitOk;
    } catch (const HubError &e) {
        printer.clearBar();
        ErrorText t = describeCurrentException("pretrained_model");
        if (t.field.empty())
            t.field = "pretrained_model";
        return reportError(err, t, exitCodeFor(e));
    } catch (...) {
        printer.clearBar();
        return reportCurrentException(err, "pretrained_model", kExitRuntime);
    }
}

int cmdModels(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    if (args.empty()) {
        printModelsUsage(err);
        return kExitInvalid;
    }
    const std::string &sub = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (sub == "--help" || sub == "-h" || sub == "help") {
        printModelsUsage(out);
        return kExitOk;
    }
    if (sub == "list")
        return cmdModelsList(rest, out, err);
    if (sub == "info")
        return cmdModelsInfo(rest, out, err);
    if (sub == "download")
        return cmdModelsDownload(rest, out, err);
    err << "error: models: unknown subcommand '" << sub << "'\n"
        << "  hint: use one of list, info, download (bert-workbench-cli models --help)\n";
    return kExitInvalid;
}

} // namespace wb::cli
