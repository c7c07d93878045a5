// SPDX-License-Identifier: Apache-2.0
// Test helper: a tiny folder-per-label mail corpus, its vocabulary and a BERT config small
// enough that the pretraining lesson runs end to end in seconds.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace wbtest {

/// Writes under `root`: mails/ham/mail-NNN.txt (`ham` mails: words w0…w24) and mails/spam/…
/// (`spam` mails: w25…w49), each a header line, a blank line and two body lines of 12 words;
/// vocab.txt ([PAD] [UNK] [CLS] [SEP] [MASK], ':', "subject", w0…w49: 57 tokens) and
/// bert_config.json (L=1, H=32, A=2, I=64, vocab 57, 64 positions).
inline void writeLessonCorpus(const std::string &root, int ham, int spam)
{
    namespace fs = std::filesystem;
    for (int label = 0; label < 2; ++label) {
        const fs::path dir = fs::path(root) / "mails" / (label == 0 ? "ham" : "spam");
        fs::create_directories(dir);
        const int n = label == 0 ? ham : spam;
        for (int i = 0; i < n; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "mail-%03d.txt", i);
            std::ofstream f(dir / name);
            auto word = [&](int k) { return "w" + std::to_string(label * 25 + (i * 7 + k * 3) % 25); };
            f << "Subject: " << word(0) << " " << word(1) << "\n\n";
            for (int line = 0; line < 2; ++line) {
                for (int k = 0; k < 12; ++k)
                    f << (k ? " " : "") << word(2 + line * 12 + k);
                f << "\n";
            }
        }
    }
    std::ofstream v(fs::path(root) / "vocab.txt");
    v << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n:\nsubject\n";
    for (int k = 0; k < 50; ++k)
        v << "w" << k << "\n";
    std::ofstream(fs::path(root) / "bert_config.json")
        << R"({"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, )"
        << R"("hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64, "max_position_embeddings": 64, )"
        << R"("num_attention_heads": 2, "num_hidden_layers": 1, "type_vocab_size": 2, "vocab_size": 57})";
}

} // namespace wbtest
