// SPDX-License-Identifier: Apache-2.0
#include "core/formats/checkpointstate.h"

#include "core/config/jsonfile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

std::string CheckpointState::toText() const
{
    std::string s = "model_checkpoint_path: \"" + model_checkpoint_path + "\"\n";
    for (const auto &p : all_model_checkpoint_paths)
        s += "all_model_checkpoint_paths: \"" + p + "\"\n";
    return s;
}

std::optional<CheckpointState> CheckpointState::parse(const std::string &text)
{
    CheckpointState st;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        const auto q1 = line.find('"');
        const auto q2 = line.rfind('"');
        if (colon == std::string::npos || q1 == std::string::npos || q2 <= q1)
            continue;
        const std::string key = line.substr(0, colon);
        const std::string value = line.substr(q1 + 1, q2 - q1 - 1);
        if (key == "model_checkpoint_path")
            st.model_checkpoint_path = value;
        else if (key == "all_model_checkpoint_paths")
            st.all_model_checkpoint_paths.push_back(value);
    }
    if (st.model_checkpoint_path.empty())
        return std::nullopt;
    return st;
}

std::optional<CheckpointState> CheckpointState::read(const std::string &modelDir)
{
    std::ifstream in(fs::path(modelDir) / "checkpoint");
    if (!in)
        return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return parse(ss.str());
}

void CheckpointState::write(const std::string &modelDir) const
{
    writeFileAtomic((fs::path(modelDir) / "checkpoint").string(), toText());
}

int64_t checkpointStep(const std::string &name)
{
    const std::string base = fs::path(name).filename().string();
    if (base.rfind("ckpt-", 0) != 0 || base.size() <= 5)
        return -1;
    const std::string digits = base.substr(5);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 18)
        return -1;
    return std::stoll(digits);
}

std::string latestCheckpoint(const std::string &modelDir)
{
    std::error_code ec;
    if (auto st = CheckpointState::read(modelDir)) {
        const fs::path p = fs::path(modelDir) / st->model_checkpoint_path;
        if (fs::is_regular_file(p, ec))
            return p.string();
    }
    int64_t best = -1;
    std::string bestPath;
    for (fs::directory_iterator it(modelDir, ec), end; !ec && it != end; it.increment(ec)) {
        const int64_t step = checkpointStep(it->path().string());
        if (step > best && it->is_regular_file(ec)) {
            best = step;
            bestPath = it->path().string();
        }
    }
    return bestPath;
}

std::vector<std::string> recordCheckpoint(const std::string &modelDir, const std::string &name, int keepMax)
{
    CheckpointState st = CheckpointState::read(modelDir).value_or(CheckpointState{});
    auto &all = st.all_model_checkpoint_paths;
    all.erase(std::remove(all.begin(), all.end(), name), all.end());
    all.push_back(name);
    st.model_checkpoint_path = name;
    std::vector<std::string> deleted;
    if (keepMax > 0)
        while (int(all.size()) > keepMax) {
            deleted.push_back((fs::path(modelDir) / all.front()).string());
            all.erase(all.begin());
        }
    // The index first: when it cannot be written, every checkpoint it names still exists.
    st.write(modelDir);
    for (const auto &victim : deleted) {
        std::error_code ec;
        fs::remove(victim, ec);
    }
    return deleted;
}

} // namespace wb
