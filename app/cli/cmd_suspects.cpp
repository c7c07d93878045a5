// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli suspects` (issue 46; docs/data-map.md, "Suspects and corrections"): a run's
// probably mislabelled training examples (core/formats/runsuspects.h), printed as a table, and
// written as corrections.jsonl lines that `prepare --corrections_file` applies.
#include "app/cli/commands.h"

#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"
#include "core/config/commandoptions.h"
#include "core/formats/runsuspects.h"
#include "core/formats/trainingtexts.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>

namespace wb::cli {

namespace {

std::string fixed3(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::string padded(std::string s, size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string rowName(const RunSuspect &s)
{
    if (!s.located)
        return "-";
    return s.file + (s.line > 0 ? ":" + std::to_string(s.line) : "");
}

// How many bytes of a text the table shows.
constexpr size_t kTextWidth = 60;

// `text` cut to kTextWidth bytes at a character boundary, "…" when cut.
std::string shortText(const std::string &text)
{
    if (text.size() <= kTextWidth)
        return text;
    size_t end = kTextWidth;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end; // not inside a UTF-8 sequence
    return text.substr(0, end) + "…";
}

// The texts of the suspects' training records (the wordpieces joined back into words;
// core/formats/trainingtexts.h), by record; none when the records or the vocabulary cannot be
// found, with a note on `err` saying why.
std::map<int64_t, std::string> suspectTexts(const std::string &modelDir, const std::string &metaDataPath,
                                            const std::vector<RunSuspect> &shown, std::ostream &err)
{
    std::map<int64_t, std::string> texts;
    if (shown.empty())
        return texts;
    int64_t last = 0;
    for (const RunSuspect &s : shown)
        last = std::max(last, s.evidence.index);
    TrainingOptions o;
    o.model_dir = modelDir;
    o.input_meta_data_path = metaDataPath;
    const TrainingTextSource source = trainingTextSource(o);
    try {
        if (source.train_data_path.empty() || source.vocab_file.empty())
            throw Error("train_data_path", "the run's training records or vocabulary are not known");
        const TrainingTexts read = readTrainingTexts(source, last + 1);
        for (const RunSuspect &s : shown)
            if (size_t(s.evidence.index) < read.texts.size()) {
                const TrainingText &t = read.texts[size_t(s.evidence.index)];
                texts[s.evidence.index] = shortText(t.text_b.empty() ? t.text : t.text + " [SEP] " + t.text_b);
            }
    } catch (const std::exception &e) {
        const auto *error = dynamic_cast<const Error *>(&e);
        err << "note: the texts are not shown: " << (error ? error->field() + ": " : std::string()) << e.what() << "\n";
        for (const std::string &n : source.notes)
            err << "note: " << n << "\n";
    }
    return texts;
}

// The table: rank, training record, input row, label -> suggestion, evidence, text.
void printSuspects(std::ostream &out, const std::vector<RunSuspect> &shown, const std::map<int64_t, std::string> &texts)
{
    size_t rowWidth = 3, labelWidth = 18;
    for (const RunSuspect &s : shown) {
        rowWidth = std::max(rowWidth, rowName(s).size());
        labelWidth = std::max(labelWidth, s.label.size() + s.suggested_label.size() + 4);
    }
    out << padded("rank", 6) << padded("index", 8) << padded("row", rowWidth + 2)
        << padded("label -> suggested", labelWidth + 2)
        << "confidence  variability  correctness  predicted  last_p  text\n";
    for (size_t i = 0; i < shown.size(); ++i) {
        const RunSuspect &s = shown[i];
        const Suspect &e = s.evidence;
        out << padded(std::to_string(i + 1), 6) << padded(std::to_string(e.index), 8)
            << padded(rowName(s), rowWidth + 2) << padded(s.label + " -> " + s.suggested_label, labelWidth + 2)
            << padded(fixed3(e.confidence), 12) << padded(fixed3(e.variability), 13)
            << padded(fixed3(e.correctness), 13)
            << padded(std::to_string(e.suggestion_count) + " of " + std::to_string(e.observations), 11)
            << padded(fixed3(e.last_gold_probability), 8);
        const auto text = texts.find(e.index);
        out << (text == texts.end() ? std::string("-") : text->second) << "\n";
    }
}

struct SuspectsFlags
{
    std::string modelDir, metaDataPath, correctionsFile;
    int64_t topK = 0;
    bool accept = false, remove = false;
    SuspectRule rule;
};

void addSuspectsFlags(CLI::App &app, SuspectsFlags &f)
{
    app.add_option("--model_dir", f.modelDir, "the run's folder (its training_dynamics.jsonl)")->required();
    app.add_option("--top_k", f.topK, "list (and write) only the first k suspects; 0: all")->capture_default_str();
    auto *file = app.add_option("--corrections_file", f.correctionsFile,
                                "write the suspects listed as corrections.jsonl lines here (decision \"suggested\", "
                                "\"accepted\" with --accept, \"removed\" with --remove), for prepare "
                                "--corrections_file; the decisions already in the file (other rows, and rows decided "
                                "before) are kept");
    auto *accept = app.add_flag("--accept", f.accept,
                                "write the suggestions as accepted (prepare then relabels those rows)")
                       ->needs(file);
    app.add_flag("--remove", f.remove,
                 "write the suspects as removed (prepare then leaves those rows out, as cleanlab's pruning does)")
        ->excludes(accept)
        ->needs(file);
    // labels.txt and split.jsonl are read beside it.
    addRowFlag(app, trainingFlagRow("input_meta_data_path"), f.metaDataPath, "the run's (run_config.json)");
    app.add_option("--max_confidence", f.rule.max_confidence, "a suspect's mean gold-label probability is below this")
        ->capture_default_str();
    app.add_option("--max_variability", f.rule.max_variability,
                   "a suspect's gold-label probability varies (standard deviation) less than this; the default "
                   "1 sets no limit, 0.2 keeps to the data map's hard-to-learn region")
        ->capture_default_str();
}

} // namespace

int cmdSuspects(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("The suspects of a run: training examples that are probably mislabelled. From the run's\n"
                 "training_dynamics.jsonl, the examples of low confidence (mean gold-label probability) whose\n"
                 "predictions consistently name another label, most certain first, each with the suggested\n"
                 "label and its evidence (docs/data-map.md). --corrections_file writes them as corrections\n"
                 "that prepare --corrections_file applies (with --split_file=<the data's split.jsonl>, the\n"
                 "eval set stays the same).",
                 "bert-workbench-cli suspects");
    SuspectsFlags f;
    if (const auto done = parseCommandFlags(app, f, addSuspectsFlags, args, out, err))
        return *done;
    if (f.topK < 0)
        return reportError(err, ErrorText{"top_k", "top_k is " + std::to_string(f.topK) + "; it must be 0 or more",
                                          "0 lists every suspect"},
                           kExitInvalid);
    try {
        const RunSuspects r = loadRunSuspects(f.modelDir, f.rule, f.metaDataPath);
        for (const std::string &note : r.notes)
            err << "note: " << note << "\n";
        std::vector<RunSuspect> shown = r.suspects;
        if (f.topK > 0 && size_t(f.topK) < shown.size())
            shown.resize(size_t(f.topK));
        out << r.suspects.size() << " suspect(s) among " << r.examples << " training examples"
            << (shown.size() < r.suspects.size() ? ", the first " + std::to_string(shown.size()) + " listed" : "")
            << " (confidence < " << f.rule.max_confidence
            << (f.rule.max_variability < 0.5 ? ", variability < " + fixed3(f.rule.max_variability) : std::string())
            << ", another label predicted in most observations)\n";
        if (!shown.empty())
            printSuspects(out, shown, suspectTexts(f.modelDir, f.metaDataPath, shown, err));
        if (f.correctionsFile.empty())
            return kExitOk;
        if (r.split_path.empty())
            throw Error("corrections_file",
                        "no corrections were written: without split.jsonl the suspects cannot be tied to input rows",
                        "Prepare the data with bert-workbench-cli prepare (it writes split.jsonl beside "
                        "input_meta_data.json), train again, and list the suspects then.");
        const CorrectionDecision decision = f.accept   ? CorrectionDecision::Accepted
                                            : f.remove ? CorrectionDecision::Removed
                                                       : CorrectionDecision::Suggested;
        const std::vector<Correction> lines = suspectCorrections(shown, decision, correctionTimeNow());
        std::error_code ec;
        const MergedCorrections merged = mergeCorrections(
            std::filesystem::exists(f.correctionsFile, ec) ? readCorrections(f.correctionsFile) : std::vector<Correction>{},
            lines);
        writeCorrections(f.correctionsFile, merged.lines);
        out << "wrote " << merged.written << " correction(s) (" << correctionDecisionName(decision) << ") to "
            << f.correctionsFile << "\n";
        if (merged.kept_decided > 0 || merged.kept_other > 0)
            out << "kept " << merged.kept_decided << " decision(s) already made on listed rows and "
                << merged.kept_other << " line(s) of other rows from the file\n";
        if (lines.size() < shown.size())
            err << "warning: " << (shown.size() - lines.size()) << " suspect(s) are not in " << r.split_path
                << " and were left out\n";
        out << "apply them: bert-workbench-cli prepare <the same flags> --split_file=" << r.split_path
            << " --corrections_file=" << f.correctionsFile << " --output_dir=<a new folder>\n";
        return kExitOk;
    } catch (...) {
        return reportCommandException(err, "suspects");
    }
}

} // namespace wb::cli
