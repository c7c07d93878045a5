// SPDX-License-Identifier: Apache-2.0
#include "core/hub/hubsettings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

namespace wb {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string trimmed(std::string s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    const auto e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string expandHome(const std::string &path)
{
    if (path.size() >= 1 && path[0] == '~' && (path.size() == 1 || path[1] == '/')) {
        const std::string home = env("HOME");
        if (!home.empty())
            return home + path.substr(1);
    }
    return path;
}

std::string firstLineOf(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line))
        return trimmed(line);
    return {};
}

} // namespace

bool isTruthyEnvValue(const std::string &value)
{
    std::string v = trimmed(value);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

HubSettings HubSettings::fromEnvironment()
{
    HubSettings s;
    if (std::string e = trimmed(env("HF_ENDPOINT")); !e.empty()) {
        while (!e.empty() && e.back() == '/')
            e.pop_back();
        s.endpoint = e;
    }
    const std::string xdg = env("XDG_CACHE_HOME");
    const std::string cacheBase = !xdg.empty() ? xdg : expandHome("~/.cache");
    s.hf_home = !env("HF_HOME").empty() ? expandHome(env("HF_HOME")) : cacheBase + "/huggingface";
    if (!env("HF_HUB_CACHE").empty())
        s.cache_dir = expandHome(env("HF_HUB_CACHE"));
    else if (!env("HUGGINGFACE_HUB_CACHE").empty())
        s.cache_dir = expandHome(env("HUGGINGFACE_HUB_CACHE"));
    else
        s.cache_dir = s.hf_home + "/hub";
    s.offline = isTruthyEnvValue(env("HF_HUB_OFFLINE")) || isTruthyEnvValue(env("TRANSFORMERS_OFFLINE"));
    if (std::string t = trimmed(env("HF_TOKEN")); !t.empty()) {
        s.token = t;
        s.token_source = "HF_TOKEN";
    } else if (std::string t2 = trimmed(env("HUGGING_FACE_HUB_TOKEN")); !t2.empty()) {
        s.token = t2;
        s.token_source = "HUGGING_FACE_HUB_TOKEN";
    } else {
        const std::string path = !env("HF_TOKEN_PATH").empty() ? expandHome(env("HF_TOKEN_PATH")) : s.hf_home + "/token";
        s.token = firstLineOf(path);
        if (!s.token.empty())
            s.token_source = path;
    }
    return s;
}

} // namespace wb
