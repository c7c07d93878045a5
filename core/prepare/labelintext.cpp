// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/labelintext.h"

#include "core/util/error.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace wb::prep {

namespace {

// Thresholds of the label-in-the-text warning: the label's name in at least this share of its
// texts and at most kLeakOtherShare of the others; a markup tag, stricter (HTML mails are
// often one label's, without giving its name away).
constexpr double kLeakLabelShare = 0.5, kLeakOtherShare = 0.1;
constexpr double kLeakMarkupShare = 0.8, kLeakMarkupOtherShare = 0.05;
constexpr size_t kLeakExamples = 3;

// "file:line" of the first place `token` (lower-cased; "<d>" as "<d") is written in the folder
// file `path`, ignoring case; the file's name when it cannot be found.
std::string placeInFile(const std::string &path, std::string token)
{
    if (token.size() > 2 && token.front() == '<' && token.back() == '>')
        token.pop_back();
    std::string text;
    try {
        text = prep::readWholeFile(path);
    } catch (const Error &) {
        return path;
    }
    std::string low = text;
    for (char &ch : low)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    const size_t at = low.find(token);
    if (at == std::string::npos)
        return path;
    return path + ":" + std::to_string(1 + std::count(text.begin(), text.begin() + long(at), '\n'));
}

} // namespace

// Records in `c` which label names and markup tags ("<" name, "</" name) occur within the first
// `limit` lower-cased basic tokens of the texts.
void scanForLabels(const LabelNames &names, std::string_view a, std::string_view b, size_t limit, Converted &c)
{
    thread_local std::vector<std::string> toks;
    toks.clear();
    names.lowerCase.tokenize(a, toks, limit);
    if (!b.empty() && toks.size() < limit)
        names.lowerCase.tokenize(b, toks, limit - toks.size());
    for (size_t id = 0; id < names.tokens.size(); ++id) {
        const auto &t = names.tokens[id];
        if (t.empty() || toks.size() < t.size())
            continue;
        for (size_t i = 0; i + t.size() <= toks.size(); ++i)
            if (std::equal(t.begin(), t.end(), toks.begin() + long(i))) {
                c.label_names.push_back(int64_t(id));
                break;
            }
    }
    constexpr size_t kMaxTags = 64;
    for (size_t i = 0; i + 1 < toks.size() && c.markup.size() < kMaxTags; ++i) {
        if (toks[i] != "<")
            continue;
        size_t n = i + 1;
        if (toks[n] == "/" && n + 1 < toks.size())
            ++n;
        const std::string &name = toks[n];
        const bool word = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
        }) && std::isalpha(static_cast<unsigned char>(name[0]));
        if (word && std::find(c.markup.begin(), c.markup.end(), name) == c.markup.end())
            c.markup.push_back(name);
    }
}

// Labels given away by their texts (PrepareReport::label_in_text): each label's name, and each
// markup tag, counted in the train and eval texts of that label and of the others.
void findLabelsInText(const prep::SourceSplits &src, const Sorted &d, PrepareReport &rep)
{
    if (src.regression || src.multi_label || src.labels.size() < 2) // multi-label: one label_id per text does not hold
        return;
    const size_t L = src.labels.size();
    std::vector<int64_t> texts(L, 0), names(L, 0), nameElsewhere(L, 0);
    std::map<std::string, std::vector<int64_t>> tags; // tag → texts per label holding it
    std::vector<const Job *> all(d.train.begin(), d.train.end());
    all.insert(all.end(), d.eval.begin(), d.eval.end());
    std::sort(all.begin(), all.end()); // file order, for the examples
    for (const Job *j : all) {
        const size_t l = size_t(j->ex->label_id);
        ++texts[l];
        for (int64_t id : j->out.label_names)
            ++(size_t(id) == l ? names[l] : nameElsewhere[size_t(id)]);
        for (const std::string &t : j->out.markup) {
            auto &v = tags[t];
            v.resize(L, 0);
            ++v[l];
        }
    }
    const int64_t total = int64_t(all.size());
    auto examples = [&](size_t label, const std::string &token, bool markup, int64_t id) {
        std::vector<std::string> out;
        for (const Job *j : all) {
            if (out.size() >= kLeakExamples)
                break;
            if (size_t(j->ex->label_id) != label)
                continue;
            const bool has = markup ? std::find(j->out.markup.begin(), j->out.markup.end(), token.substr(1, token.size() - 2))
                                          != j->out.markup.end()
                                    : std::find(j->out.label_names.begin(), j->out.label_names.end(), id)
                                          != j->out.label_names.end();
            if (has)
                out.push_back(j->ex->path.empty() ? j->ex->where : placeInFile(j->ex->path, token));
        }
        return out;
    };
    auto share = [](int64_t n, int64_t of) { return of > 0 ? double(n) / double(of) : 0.0; };
    for (size_t l = 0; l < L; ++l) {
        const int64_t others = total - texts[l];
        if (texts[l] == 0 || others == 0)
            continue;
        if (share(names[l], texts[l]) >= kLeakLabelShare && share(nameElsewhere[l], others) <= kLeakOtherShare)
            rep.label_in_text.push_back({src.labels[l], src.labels[l], false, texts[l], names[l], others,
                                         nameElsewhere[l], examples(l, src.labels[l], false, int64_t(l))});
        for (const auto &[tag, perLabel] : tags) {
            int64_t elsewhere = 0;
            for (size_t k = 0; k < L; ++k)
                elsewhere += k == l ? 0 : perLabel[k];
            if (share(perLabel[l], texts[l]) >= kLeakMarkupShare && share(elsewhere, others) <= kLeakMarkupOtherShare) {
                const std::string token = "<" + tag + ">";
                rep.label_in_text.push_back(
                    {src.labels[l], token, true, texts[l], perLabel[l], others, elsewhere, examples(l, token, true, -1)});
            }
        }
    }
    auto percent = [](int64_t n, int64_t of) { return std::to_string(int(100.0 * double(n) / double(of) + 0.5)) + "%"; };
    for (const LabelInText &x : rep.label_in_text) {
        std::string where;
        for (const std::string &e : x.examples)
            where += (where.empty() ? "" : ", ") + e;
        rep.warnings.push_back(
            std::string(x.markup ? "the markup tag " + x.token : "the label's name '" + x.token + "'") + " is in "
            + percent(x.label_texts_with, x.label_texts) + " of the texts labelled '" + x.label + "' and in "
            + percent(x.other_texts_with, x.other_texts) + " of the others, within the first max_seq_length tokens (e.g. "
            + where + "): the model can read the label from the text instead of learning it. Remove it from the texts "
            "(e.g. the element that holds the label) before preparing");
    }
}

} // namespace wb::prep
