// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/hftokenizerjson.h"

#include <algorithm>
#include <map>
#include <string>

namespace wb {

namespace {

using Json = nlohmann::ordered_json;

Json special(const char *token, int typeId)
{
    return Json{{"SpecialToken", Json{{"id", token}, {"type_id", typeId}}}};
}

Json sequence(const char *id, int typeId)
{
    return Json{{"Sequence", Json{{"id", id}, {"type_id", typeId}}}};
}

} // namespace

nlohmann::ordered_json huggingFaceTokenizerJson(const Vocab &vocab, bool doLowerCase, int64_t maxSeqLength,
                                                int maxInputCharsPerWord)
{
    // Throws naming the vocab file when one is missing (classify and prepare need them too).
    const int32_t unk = vocab.id("[UNK]"), cls = vocab.id("[CLS]"), sep = vocab.id("[SEP]");
    (void)unk;
    Json j;
    j["version"] = "1.0";
    j["truncation"] = Json{{"direction", "Right"}, {"max_length", maxSeqLength}, {"strategy", "LongestFirst"},
                           {"stride", 0}};
    j["padding"] = nullptr;
    Json added = Json::array();
    for (const char *t : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
        const int32_t id = vocab.find(t);
        if (id < 0)
            continue;
        added.push_back(Json{{"id", id}, {"content", t}, {"single_word", false}, {"lstrip", false}, {"rstrip", false},
                             {"normalized", false}, {"special", true}});
    }
    // In id order, as the tokenizers library writes them.
    std::sort(added.begin(), added.end(), [](const Json &a, const Json &b) { return a["id"] < b["id"]; });
    j["added_tokens"] = added;
    j["normalizer"] = Json{{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
                           {"strip_accents", doLowerCase}, {"lowercase", doLowerCase}};
    j["pre_tokenizer"] = Json{{"type", "BertPreTokenizer"}};
    j["post_processor"] = Json{
        {"type", "TemplateProcessing"},
        {"single", Json::array({special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)})},
        {"pair", Json::array({special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
                              special("[SEP]", 1)})},
        {"special_tokens",
         Json{{"[CLS]", Json{{"id", "[CLS]"}, {"ids", Json::array({cls})}, {"tokens", Json::array({"[CLS]"})}}},
              {"[SEP]", Json{{"id", "[SEP]"}, {"ids", Json::array({sep})}, {"tokens", Json::array({"[SEP]"})}}}}}};
    j["decoder"] = Json{{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}};
    Json v = Json::object();
    for (int64_t id = 0; id < vocab.size(); ++id)
        v[vocab.token(int32_t(id))] = vocab.find(vocab.token(int32_t(id))); // a repeated token: its last line
    j["model"] = Json{{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
                      {"max_input_chars_per_word", maxInputCharsPerWord}, {"vocab", v}};
    return j;
}

nlohmann::ordered_json huggingFaceSpecialTokensMap(const Vocab &vocab)
{
    // Throws naming the vocab file when one is missing.
    for (const char *required : {"[UNK]", "[CLS]", "[SEP]"})
        (void)vocab.id(required);
    Json j;
    j["cls_token"] = "[CLS]";
    if (vocab.find("[MASK]") >= 0)
        j["mask_token"] = "[MASK]";
    j["pad_token"] = vocab.find("[PAD]") >= 0 ? std::string("[PAD]") : vocab.token(0);
    j["sep_token"] = "[SEP]";
    j["unk_token"] = "[UNK]";
    return j;
}

nlohmann::ordered_json huggingFaceTokenizerConfig(const Vocab &vocab, bool doLowerCase, int64_t maxSeqLength)
{
    const Json special = huggingFaceSpecialTokensMap(vocab);
    // added_tokens_decoder: keyed by the id as text, sorted as Python's json.dumps(sort_keys=True) sorts them.
    std::map<std::string, Json> decoder;
    for (const auto &[role, token] : special.items()) {
        const std::string text = token.get<std::string>();
        decoder[std::to_string(vocab.find(text))] =
            Json{{"content", text}, {"lstrip", false}, {"normalized", false}, {"rstrip", false},
                 {"single_word", false}, {"special", true}};
    }
    Json added = Json::object();
    for (const auto &[id, entry] : decoder)
        added[id] = entry;
    Json j;
    j["added_tokens_decoder"] = added;
    j["clean_up_tokenization_spaces"] = true;
    j["cls_token"] = special["cls_token"];
    j["do_basic_tokenize"] = true;
    j["do_lower_case"] = doLowerCase;
    if (special.contains("mask_token"))
        j["mask_token"] = special["mask_token"];
    j["max_seq_length"] = maxSeqLength;
    j["model_max_length"] = maxSeqLength;
    j["never_split"] = nullptr;
    j["pad_token"] = special["pad_token"];
    j["sep_token"] = special["sep_token"];
    j["strip_accents"] = nullptr;
    j["tokenize_chinese_chars"] = true;
    j["tokenizer_class"] = "BertTokenizer";
    j["unk_token"] = special["unk_token"];
    return j;
}

} // namespace wb
