// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli label` (issue 47; docs/label-to-learn.md, "On the command line"): the label
// loop in a terminal. The same session folder, labels file, queue and cycle as the window's Label
// tab: a text is shown, a number key and Enter labels it (saved at once), and after every k
// labels a model is retrained (here in the foreground) and the next texts follow the queue.
#include "app/cli/commands.h"

#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"
#include "core/config/commandoptions.h"
#include "core/label/labelpool.h"
#include "core/label/labelsession.h"
#include "core/label/labelstore.h"
#include "core/learn/labelcycle.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

namespace wb::cli {

namespace {

struct LabelFlags
{
    std::string dir, pool, labels, textColumn, bertConfig, vocab, init, strategy;
    bool emailBodyOnly = false;
    int64_t batchSize = 0, maxSeqLength = 128;
    int threads = 0;
};

void addLabelFlags(CLI::App &app, LabelFlags &f)
{
    app.add_option("--label_dir", f.dir, "the session's folder (label_session.json, labels.csv, curve.jsonl)")
        ->required();
    app.add_option("--pool", f.pool, "new session: the texts to label (a file or a folder)");
    app.add_option("--label_list", f.labels, "new session: the labels, comma-separated (at least two)");
    app.add_option("--text_column", f.textColumn, "new session: the text column of a CSV/JSONL pool");
    app.add_flag("--email_body_only", f.emailBodyOnly, "new session: keep each text's e-mail body");
    // A new session's model (a session goes on with the one it recorded).
    addRowFlag(app, trainingFlagRow("bert_config_file"), f.bertConfig);
    addRowFlag(app, sharedFlagRow("vocab_file"), f.vocab);
    addRowFlag(app, trainingFlagRow("init_checkpoint"), f.init, "random weights");
    addRowFlag(app, sharedFlagRow("max_seq_length"), f.maxSeqLength);
    app.add_option("--strategy", f.strategy, "uncertain_diverse (default) or random");
    app.add_option("--batch_size", f.batchSize, "labels between two models (default 10)");
    app.add_option("--num_threads", f.threads, "intra-op threads of the retraining (0: automatic)");
}

std::vector<std::string> splitLabels(const std::string &list)
{
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= list.size()) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (std::string name = trimmed(list.substr(at, comma - at)); !name.empty())
            out.push_back(name);
        at = comma + 1;
    }
    return out;
}

/// The session's settings: label_session.json when the folder has one (flags given again may
/// change only the order and k), else a new session from the flags.
LabelSessionSettings sessionOf(const LabelFlags &f)
{
    const std::string path = labelSessionPath(f.dir);
    LabelSessionSettings s;
    if (std::filesystem::exists(path)) {
        s = readLabelSession(path);
    } else {
        if (f.pool.empty() || f.labels.empty() || f.bertConfig.empty() || f.vocab.empty())
            throw Error("label_dir", path + " does not exist: this is a new session",
                        "give --pool, --label_list, --bert_config_file and --vocab_file to start one");
        s.pool_path = f.pool;
        s.label_names = splitLabels(f.labels);
        s.text_column = f.textColumn;
        s.email_body_only = f.emailBodyOnly;
        s.bert_config_file = f.bertConfig;
        s.vocab_file = f.vocab;
        s.init_checkpoint = f.init;
        s.max_seq_length = f.maxSeqLength;
        if (s.label_names.size() < 2)
            throw Error("label_list", "a session needs at least two labels", "e.g. --label_list=ham,spam");
    }
    if (!f.strategy.empty())
        s.strategy = f.strategy;
    if (f.batchSize > 0)
        s.batch_size = f.batchSize;
    writeLabelSession(path, s);
    return s;
}

/// The loop over one session in a terminal.
class TerminalLabeller
{
public:
    TerminalLabeller(const LabelFlags &f, std::istream &in, std::ostream &out)
        : m_dir(f.dir), m_settings(sessionOf(f)), m_threads(f.threads), m_in(in), m_out(out),
          m_store(LabelStore::open(labelSessionLabelsPath(f.dir)))
    {
        PoolReadOptions o;
        o.text_column = m_settings.text_column;
        o.email_body_only = m_settings.email_body_only;
        m_pool = readLabelPool(m_settings.pool_path, o);
        for (const PoolText &t : m_pool)
            m_heldOut.push_back(isHeldOut(t, m_settings.held_out_fraction));
        if (!m_store.cutTail().empty())
            m_out << "note: " << m_store.cutTail() << "\n";
    }

    int run(const StopToken &stop)
    {
        m_out << m_pool.size() << " texts, " << m_store.labels().size() << " labelled so far; keys: ";
        for (size_t k = 0; k < m_settings.label_names.size(); ++k)
            m_out << (k + 1) << " " << m_settings.label_names[k] << ", ";
        m_out << "s skip, u undo, q quit\n";
        if (labelKinds() >= 2)
            retrain(stop);
        while (!stop.stopRequested()) {
            const int64_t i = next();
            if (i < 0) {
                m_out << "every text has a label\n";
                break;
            }
            if (!ask(i, stop))
                break;
        }
        m_out << m_store.labels().size() << " labels saved in " << m_store.path() << "\n";
        return kExitOk;
    }

private:
    size_t labelKinds() const
    {
        std::set<std::string> kinds;
        for (const PoolLabel &l : m_store.labels())
            if (!heldOut(l))
                kinds.insert(l.label);
        return kinds.size();
    }

    /// The pool index of a label's text; -1 when the pool no longer has it (it still trains).
    int64_t indexOf(const PoolLabel &l) const
    {
        for (size_t i = 0; i < m_pool.size(); ++i)
            if (m_pool[i].file == l.file && m_pool[i].line == l.line && (!l.file.empty() || m_pool[i].text == l.text))
                return int64_t(i);
        return -1;
    }

    bool heldOut(const PoolLabel &l) const
    {
        const int64_t i = indexOf(l);
        return i >= 0 && m_heldOut[size_t(i)];
    }

    int64_t next() const
    {
        std::vector<bool> done(m_pool.size(), false);
        for (const PoolLabel &l : m_store.labels())
            if (const int64_t i = indexOf(l); i >= 0)
                done[size_t(i)] = true;
        for (const int64_t i : m_skipped)
            done[size_t(i)] = true;
        const auto plan = planNextTexts(m_settings, m_last ? m_last->scores : PoolScores{}, done, m_heldOut, m_shown, 1);
        return plan.empty() ? -1 : plan.front();
    }

    std::string suggestion(int64_t i) const
    {
        if (!m_last || m_last->predicted.empty())
            return {};
        return m_settings.label_names[size_t(m_last->predicted[size_t(i)])];
    }

    bool ask(int64_t i, const StopToken &stop);
    void retrain(const StopToken &stop);

    std::string m_dir;
    LabelSessionSettings m_settings;
    int m_threads;
    std::istream &m_in;
    std::ostream &m_out;
    LabelStore m_store;
    std::vector<PoolText> m_pool;
    std::vector<bool> m_heldOut;
    std::unique_ptr<LabelCycle> m_cycle;
    std::unique_ptr<CycleResult> m_last;
    std::set<int64_t> m_skipped;
    int64_t m_shown = 0, m_sinceModel = 0;
};

bool TerminalLabeller::ask(int64_t i, const StopToken &stop)
{
    const PoolText &t = m_pool[size_t(i)];
    const std::string suggested = suggestion(i);
    m_out << "\n--- " << poolTextKey(t) << (m_heldOut[size_t(i)] ? " (kept aside to measure the model)" : "")
          << " ---\n" << t.text << "\n";
    if (!suggested.empty())
        m_out << "model suggests: " << suggested << "\n";
    m_out << "> " << std::flush;
    std::string answer;
    if (!std::getline(m_in, answer))
        return false;
    answer = trimmed(answer);
    ++m_shown;
    if (answer == "q")
        return false;
    if (answer == "s") {
        m_skipped.insert(i);
        return true;
    }
    if (answer == "u") {
        if (m_store.labels().empty())
            m_out << "nothing to undo\n";
        else
            m_out << "undone: " << m_store.undoLast().label << "\n";
        return true;
    }
    const std::string chosen = answer.empty() ? suggested : answer;
    char *end = nullptr;
    const long k = std::strtol(chosen.c_str(), &end, 10);
    std::string label = chosen;
    if (end && *end == '\0' && k >= 1 && size_t(k) <= m_settings.label_names.size())
        label = m_settings.label_names[size_t(k - 1)];
    if (std::find(m_settings.label_names.begin(), m_settings.label_names.end(), label) == m_settings.label_names.end()) {
        m_out << "'" << answer << "' is not a key: type a label's number, s, u or q\n";
        return true;
    }
    m_store.append({t.text, label, t.file, t.line, labelTimeNow(), suggested, 0});
    if (++m_sinceModel >= m_settings.batch_size && labelKinds() >= 2)
        retrain(stop);
    return true;
}

void TerminalLabeller::retrain(const StopToken &stop)
{
    m_sinceModel = 0;
    std::vector<CycleText> train, eval;
    for (const PoolLabel &l : m_store.labels())
        (heldOut(l) ? eval : train).push_back({l.text, l.label});
    if (eval.size() < 2)
        eval.clear();
    if (!m_cycle) {
        LabelCycleSettings cs;
        cs.bert_config_file = m_settings.bert_config_file;
        cs.init_checkpoint = m_settings.init_checkpoint;
        cs.vocab_file = m_settings.vocab_file;
        cs.do_lower_case = m_settings.do_lower_case;
        cs.max_seq_length = m_settings.max_seq_length;
        cs.label_names = m_settings.label_names;
        cs.seed = m_settings.seed;
        cs.num_threads = m_threads;
        std::vector<std::string> texts;
        for (const PoolText &p : m_pool)
            texts.push_back(p.text);
        m_cycle = std::make_unique<LabelCycle>(cs, texts);
    }
    const int64_t n = int64_t(m_store.labels().size());
    m_out << "retraining on " << train.size() << " labels…\n" << std::flush;
    char name[32];
    std::snprintf(name, sizeof name, "/labels-%05lld", static_cast<long long>(n));
    m_last = std::make_unique<CycleResult>(m_cycle->run(labelSessionCyclesDir(m_dir) + name, train, eval, stop));
    CurvePoint p;
    p.labels = n;
    p.train_labels = int64_t(train.size());
    p.eval_examples = int64_t(eval.size());
    p.eval_source = eval.empty() ? "none" : "held_out";
    p.accuracy = m_last->eval_accuracy;
    p.bag_of_words_accuracy = m_last->bag_of_words_accuracy;
    p.strategy = m_settings.strategy;
    p.seed = m_settings.seed;
    p.seconds = m_last->seconds_prepare + m_last->seconds_train + m_last->seconds_baseline + m_last->seconds_score;
    p.seconds_train = m_last->seconds_train;
    p.seconds_score = m_last->seconds_score;
    p.model_dir = m_last->model_dir;
    appendCurvePoint(labelSessionCurvePath(m_dir), p);
    char line[160];
    if (std::isfinite(p.accuracy))
        std::snprintf(line, sizeof line, "model of %lld labels: %.1f %% right on the %lld texts kept aside "
                                         "(bag of words %.1f %%), %.1f s\n",
                      static_cast<long long>(p.train_labels), 100 * p.accuracy,
                      static_cast<long long>(p.eval_examples), 100 * p.bag_of_words_accuracy, p.seconds);
    else
        std::snprintf(line, sizeof line, "model of %lld labels (%.1f s); no accuracy yet: fewer than 2 texts kept aside\n",
                      static_cast<long long>(p.train_labels), p.seconds);
    m_out << line;
}

} // namespace

int cmdLabelWithInput(const std::vector<std::string> &args, std::istream &in, std::ostream &out, std::ostream &err)
{
    CLI::App app("Label to learn in a terminal: label the texts of a pool one by one (a label's number and\n"
                 "Enter; Enter alone takes the model's suggestion; s skips, u undoes, q quits). Each label is\n"
                 "saved at once in <label_dir>/labels.csv; after every --batch_size labels a model is retrained\n"
                 "and picks what comes next (docs/label-to-learn.md).",
                 "bert-workbench-cli label");
    LabelFlags f;
    if (const auto done = parseCommandFlags(app, f, addLabelFlags, args, out, err))
        return *done;
    StopToken stop;
    try {
        TerminalLabeller labeller(f, in, out);
        return labeller.run(stop);
    } catch (...) {
        return reportCommandException(err, "label");
    }
}

int cmdLabel(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    return cmdLabelWithInput(args, std::cin, out, err);
}

} // namespace wb::cli
