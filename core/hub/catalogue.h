// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// One official BERT checkpoint on the Hugging Face Hub (docs/pretrained-models.md).
/// A plain value.
struct CatalogueEntry
{
    std::string hub_id;        ///< "google/bert_uncased_L-2_H-128_A-2"
    std::string short_name;    ///< "BERT-Tiny", "BERT-Mini", "BERT-Small", "BERT-Medium"; else ""
    int64_t layers = 0;        ///< num_hidden_layers (L)
    int64_t hidden = 0;        ///< hidden_size (H)
    int64_t heads = 0;         ///< num_attention_heads (A = H/64)
    int64_t intermediate = 0;  ///< intermediate_size (4H)
    int64_t vocab_size = 0;    ///< 30522 (uncased English), 28996 (cased), 119547 (multilingual), 21128 (Chinese)
    int64_t parameters = 0;    ///< BertModel parameters with the pooler, without a classifier
    int64_t approx_bytes = 0;  ///< ≈ the float32 weights file: 4 bytes × parameters
    bool do_lower_case = true; ///< uncased checkpoints lower-case and strip accents
    std::string languages;     ///< "English", "104 languages", "Chinese"
    std::string licence;       ///< "apache-2.0" (the model cards' licence)
    std::string source;        ///< who trained it, and the paper
};

/// Returns the catalogue: Google's 24 BERT miniatures (google/bert_uncased_L-{2,4,6,8,10,12}_H-
/// {128,256,512,768}_A-{H/64}; Turc et al. 2019, "Well-Read Students Learn Better"), then
/// google-bert/bert-base-uncased, bert-base-cased, bert-large-uncased, bert-large-cased,
/// bert-base-multilingual-cased and bert-base-chinese (Devlin et al. 2018). Parameter counts
/// follow BertConfig::parameterCount (max_position_embeddings 512, type_vocab_size 2).
/// Built once; thread-safe.
const std::vector<CatalogueEntry> &pretrainedCatalogue();

/// Finds an entry by Hub id ("google-bert/bert-base-uncased"), by the id without its org
/// ("bert-base-uncased", the Hub's legacy spelling) or by short name ("bert-tiny", "BERT-Tiny"),
/// all case-insensitive; a trailing "@revision" is ignored. Returns nullptr when unknown.
const CatalogueEntry *findCatalogueEntry(const std::string &nameOrId);

/// Returns "4.4M" / "110M" / "1.2B" for a parameter count, "17 MB" / "1.3 GB" for bytes (SI units).
std::string formatCount(int64_t n);
std::string formatBytes(int64_t bytes);

} // namespace wb
