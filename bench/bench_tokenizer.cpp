// SPDX-License-Identifier: Apache-2.0
// Tokenizer throughput on a corpus (every regular file below a folder, raw bytes, invalid UTF-8
// ignored). Optionally writes the ids of every file as JSON lines for parity checks.
// Usage: bench_tokenizer VOCAB CORPUS_DIR [IDS_OUT.jsonl] [FILES_OUT.txt]
#include "core/tokenize/fulltokenizer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::cerr << "usage: bench_tokenizer VOCAB CORPUS_DIR [IDS_OUT.jsonl] [FILES_OUT.txt]\n";
        return 2;
    }
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto &e : fs::recursive_directory_iterator(argv[2]))
        if (e.is_regular_file())
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    std::vector<std::string> texts;
    size_t bytes = 0;
    for (const auto &f : files) {
        std::ifstream in(f, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        texts.push_back(ss.str());
        bytes += texts.back().size();
    }
    const wb::FullTokenizer tok(argv[1], true);
    std::vector<std::vector<int32_t>> ids(texts.size());
    const auto t0 = std::chrono::steady_clock::now();
    size_t tokens = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
        ids[i] = tok.tokenizeToIds(texts[i]);
        tokens += ids[i].size();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "{\"bench\":\"tokenizer\",\"files\":" << files.size() << ",\"bytes\":" << bytes
              << ",\"tokens\":" << tokens << ",\"seconds\":" << s << ",\"mb_per_s\":" << double(bytes) / 1e6 / s
              << "}\n";
    if (argc > 3) {
        std::ofstream out(argv[3]);
        for (const auto &v : ids) {
            out << "[";
            for (size_t k = 0; k < v.size(); ++k)
                out << (k ? "," : "") << v[k];
            out << "]\n";
        }
    }
    if (argc > 4) {
        std::ofstream out(argv[4]);
        for (const auto &f : files)
            out << f << "\n";
    }
    return 0;
}
