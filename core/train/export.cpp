// SPDX-License-Identifier: Apache-2.0
#include "core/train/export.h"

#include "core/config/jsonfile.h"
#include "core/model/initcheckpoint.h"
#include "core/train/checkpointio.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

std::string floatText(float v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return buf;
}

std::string labelsText(const InputMetaData &meta, const std::string &metaDataPath)
{
    // `prepare` writes the label names to labels.txt beside the meta data: prefer them.
    const fs::path preparedLabels = fs::path(metaDataPath).parent_path() / "labels.txt";
    if (std::ifstream in{preparedLabels}; in) {
        std::string line, text;
        int64_t count = 0;
        while (std::getline(in, line))
            if (!line.empty()) {
                text += line + "\n";
                ++count;
            }
        if (count == meta.num_labels)
            return text;
    }
    for (const char *k : {"labels", "label_list", "label_names"})
        if (meta.extra.contains(k) && meta.extra[k].is_array()) {
            std::string text;
            for (const auto &l : meta.extra[k])
                text += (l.is_string() ? l.get<std::string>() : l.dump()) + "\n";
            return text;
        }
    std::string text;
    for (int64_t k = 0; k < meta.num_labels; ++k)
        text += std::to_string(k) + "\n";
    return text;
}

} // namespace

void exportModelFiles(const std::string &dir, nn::BertForSequenceClassification &model, const BertConfig &cfg,
                      const InputMetaData &meta, const std::string &metaDataPath)
{
    const fs::path d = dir;
    saveSafetensors((d / "model.safetensors").string(), namedParameters(model));
    writeFileAtomic((d / "bert_config.json").string(), cfg.toJson().dump(2) + "\n");
    writeFileAtomic((d / "input_meta_data.json").string(), meta.toJson().dump(2) + "\n");
    writeFileAtomic((d / "labels.txt").string(), labelsText(meta, metaDataPath));
}

std::string writePredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs)
{
    std::string text;
    for (const auto &row : outputs) {
        for (size_t k = 0; k < row.size(); ++k)
            text += (k ? "\t" : "") + floatText(row[k]);
        text += "\n";
    }
    const std::string path = (fs::path(modelDir) / "test_results.tsv").string();
    writeFileAtomic(path, text);
    return path;
}

} // namespace wb
