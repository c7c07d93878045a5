// SPDX-License-Identifier: Apache-2.0
#include "core/hub/catalogue.h"
#include "core/util/asciitext.h"

#include "core/config/bertconfig.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace wb {

namespace {

constexpr int64_t kUncasedVocab = 30522;      // google-research/bert uncased vocab.txt
constexpr int64_t kCasedVocab = 28996;        // cased vocab.txt
constexpr int64_t kMultilingualVocab = 119547; // multi_cased_L-12_H-768_A-12
constexpr int64_t kChineseVocab = 21128;      // chinese_L-12_H-768_A-12
const char *kLicence = "apache-2.0";
const char *kMiniatureSource = "Google Research: Turc et al. 2019, \"Well-Read Students Learn Better\" "
                               "(github.com/google-research/bert)";
const char *kBertSource = "Google Research: Devlin et al. 2018, \"BERT: Pre-training of Deep Bidirectional "
                          "Transformers\" (github.com/google-research/bert)";

CatalogueEntry entry(std::string id, std::string shortName, int64_t layers, int64_t hidden, int64_t heads,
                     int64_t vocab, bool lower, std::string languages, const char *source)
{
    CatalogueEntry e;
    e.hub_id = std::move(id);
    e.short_name = std::move(shortName);
    e.layers = layers;
    e.hidden = hidden;
    e.heads = heads;
    e.intermediate = 4 * hidden;
    e.vocab_size = vocab;
    BertConfig c;
    c.vocab_size = vocab;
    c.hidden_size = hidden;
    c.num_hidden_layers = layers;
    c.num_attention_heads = heads;
    c.intermediate_size = 4 * hidden;
    c.max_position_embeddings = 512;
    c.type_vocab_size = 2;
    const ParameterCount p = c.parameterCount(2);
    e.parameters = p.embeddings + p.encoder + p.pooler;
    e.approx_bytes = 4 * e.parameters;
    e.do_lower_case = lower;
    e.languages = std::move(languages);
    e.licence = kLicence;
    e.source = source;
    return e;
}

std::vector<CatalogueEntry> build()
{
    std::vector<CatalogueEntry> out;
    for (int64_t layers : {2, 4, 6, 8, 10, 12}) {
        for (int64_t hidden : {128, 256, 512, 768}) {
            std::string shortName;
            if (layers == 2 && hidden == 128)
                shortName = "BERT-Tiny";
            else if (layers == 4 && hidden == 256)
                shortName = "BERT-Mini";
            else if (layers == 4 && hidden == 512)
                shortName = "BERT-Small";
            else if (layers == 8 && hidden == 512)
                shortName = "BERT-Medium";
            const int64_t heads = hidden / 64;
            out.push_back(entry("google/bert_uncased_L-" + std::to_string(layers) + "_H-" + std::to_string(hidden)
                                    + "_A-" + std::to_string(heads),
                                shortName, layers, hidden, heads, kUncasedVocab, true, "English", kMiniatureSource));
        }
    }
    out.push_back(entry("google-bert/bert-base-uncased", "", 12, 768, 12, kUncasedVocab, true, "English", kBertSource));
    out.push_back(entry("google-bert/bert-base-cased", "", 12, 768, 12, kCasedVocab, false, "English", kBertSource));
    out.push_back(entry("google-bert/bert-large-uncased", "", 24, 1024, 16, kUncasedVocab, true, "English", kBertSource));
    out.push_back(entry("google-bert/bert-large-cased", "", 24, 1024, 16, kCasedVocab, false, "English", kBertSource));
    out.push_back(entry("google-bert/bert-base-multilingual-cased", "", 12, 768, 12, kMultilingualVocab, false,
                        "104 languages", kBertSource));
    out.push_back(entry("google-bert/bert-base-chinese", "", 12, 768, 12, kChineseVocab, false, "Chinese", kBertSource));
    return out;
}

std::string oneDecimal(double v, const char *unit)
{
    char buf[32];
    if (v < 10)
        std::snprintf(buf, sizeof buf, "%.1f%s", v, unit);
    else
        std::snprintf(buf, sizeof buf, "%.0f%s", v, unit);
    return buf;
}

/// `n` with one decimal in thousands, millions or billions from 1000 up, with the suffix of
/// that scale (units[1], units[2], units[3]); below 1000 the whole number and units[0].
std::string withScale(int64_t n, const std::array<const char *, 4> &units)
{
    if (n >= 1000000000)
        return oneDecimal(double(n) / 1e9, units[3]);
    if (n >= 1000000)
        return oneDecimal(double(n) / 1e6, units[2]);
    if (n >= 1000)
        return oneDecimal(double(n) / 1e3, units[1]);
    return std::to_string(n) + units[0];
}

} // namespace

const std::vector<CatalogueEntry> &pretrainedCatalogue()
{
    static const std::vector<CatalogueEntry> catalogue = build();
    return catalogue;
}

const CatalogueEntry *findCatalogueEntry(const std::string &nameOrId)
{
    std::string key = lowerAscii(nameOrId);
    if (const auto at = key.find('@'); at != std::string::npos)
        key.resize(at);
    for (const auto &e : pretrainedCatalogue()) {
        const std::string id = lowerAscii(e.hub_id);
        const std::string bare = id.substr(id.find('/') + 1);
        if (key == id || (key == bare && e.hub_id.rfind("google-bert/", 0) == 0)
            || (!e.short_name.empty() && key == lowerAscii(e.short_name)))
            return &e;
    }
    return nullptr;
}

std::string formatCount(int64_t n) { return withScale(n, {"", "k", "M", "B"}); }

std::string formatBytes(int64_t bytes) { return withScale(bytes, {" B", " kB", " MB", " GB"}); }

} // namespace wb
