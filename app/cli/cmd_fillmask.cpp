// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli fill_mask`: the [MASK]s of texts filled in by a pretraining run's masked LM
// (FillMaskPredictor, the window's fill-in-the-blank Try it; docs/pretraining.md).
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"
#include "app/cli/tsvtext.h"

#include "core/config/optiontable.h"
#include "core/infer/fillmask.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <ostream>

namespace wb::cli {

int cmdFillMask(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Fill in the [MASK]s of texts with the masked LM of a pretraining run: --model_dir (its best\n"
                 "checkpoint when kept, else its latest; the run's files from run_config.json) or an export\n"
                 "folder (--model_export_path, a BertForMaskedLM folder). Prints a TSV: text, mask (1-based\n"
                 "index of the [MASK] in the text), rank, token, token_id, probability (softmax over the\n"
                 "whole vocabulary), top_k rows per [MASK]; or one JSON object per text (--output_format=jsonl).",
                 "bert-workbench-cli fill_mask");
    FillMaskSource src;
    std::vector<std::string> texts;
    std::string format = "tsv";
    int64_t topK = 10;
    // The flags other commands take too: their one row each (core/config/commandoptions.h).
    addRowFlag(app, trainingFlagRow("model_export_path"), src.model_export_path); // a BertForMaskedLM export
    app.add_option("--model_dir,--md", src.model_dir, "pretraining run: its best or latest checkpoint");
    addRowFlag(app, trainingFlagRow("predict_checkpoint_path"), src.checkpoint_path);
    addRowFlag(app, trainingFlagRow("bert_config_file"), src.bert_config_file, "the run's");
    addRowFlag(app, trainingFlagRow("input_meta_data_path"), src.input_meta_data_path, "the run's");
    addRowFlag(app, sharedFlagRow("vocab_file"), src.vocab_file, "the run's, the export's or prepare_report.json's");
    addRowFlag(app, sharedFlagRow("do_lower_case"), src.do_lower_case); // default: as the model was pretrained
    // allow_extra_args(false): a text "[MASK]" is one text, not a CLI11 list in brackets.
    app.add_option("--text", texts, "a text with one or more [MASK] (repeatable)")->required()->allow_extra_args(false);
    app.add_option("--top_k", topK, "candidates per [MASK]")->capture_default_str();
    app.add_option("--output_format", format, "tsv or jsonl")->check(CLI::IsMember({"tsv", "jsonl"}))->capture_default_str();
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
    Diagnostics ranges;
    checkNumericRanges({{"top_k", double(topK), 1, 1000000, "10"}}, ranges);
    if (ranges.hasErrors())
        return reportInvalidConfiguration(err, ranges);
    for (const std::string &t : texts)
        if (!hasMaskToken(t)) {
            err << "error: text: '" << t << "' has no [MASK]: there is no blank to fill in\n"
                << "  hint: write [MASK] where a word is missing, e.g. --text=\"the meeting is on [MASK]\"\n";
            return kExitInvalid;
        }
    try {
        const FillMaskPredictor predictor(src);
        for (const auto &w : predictor.warnings())
            err << "warning: " << w << "\n";
        if (format == "tsv")
            out << "text\tmask\trank\ttoken\ttoken_id\tprobability\n";
        for (const std::string &t : texts) {
            const FillMaskResult r = predictor.predict(t, topK);
            if (r.truncated)
                err << "warning: text: '" << t << "' was cut at max_seq_length = " << predictor.maxSeqLength() << " tokens\n";
            if (format == "jsonl") {
                nlohmann::json masks = nlohmann::json::array();
                for (const MaskFill &m : r.masks) {
                    nlohmann::json top = nlohmann::json::array();
                    for (const MaskCandidate &c : m.top)
                        top.push_back({{"token", c.token}, {"token_id", c.token_id}, {"probability", c.probability}});
                    masks.push_back({{"position", m.position}, {"top", top}});
                }
                out << nlohmann::json{{"text", t}, {"tokens", r.tokens}, {"truncated", r.truncated}, {"masks", masks}}.dump()
                    << "\n";
                continue;
            }
            for (size_t m = 0; m < r.masks.size(); ++m)
                for (size_t k = 0; k < r.masks[m].top.size(); ++k) {
                    const MaskCandidate &c = r.masks[m].top[k];
                    out << tsvCell(t) << '\t' << m + 1 << '\t' << k + 1 << '\t' << tsvCell(c.token) << '\t' << c.token_id << '\t'
                        << tsvNumber(c.probability) << '\n';
                }
        }
        return kExitOk;
    } catch (...) {
        return reportCommandException(err, "fill_mask");
    }
}

} // namespace wb::cli
