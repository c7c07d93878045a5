// SPDX-License-Identifier: Apache-2.0
#include "core/hub/hubsettings.h"

#include "core/util/asciitext.h"
#include "core/util/environment.h"

#include <fstream>

namespace wb {

namespace {

std::string expandHome(const std::string &path)
{
    if (path.size() >= 1 && path[0] == '~' && (path.size() == 1 || path[1] == '/')) {
        const std::string home = environmentValue("HOME");
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
    const std::string v = lowerAscii(trimmed(value));
    return v == "1" || v == "on" || v == "yes" || v == "true";
}

HubSettings HubSettings::fromEnvironment()
{
    HubSettings s;
    if (std::string e = trimmed(environmentValue("HF_ENDPOINT")); !e.empty()) {
        while (!e.empty() && e.back() == '/')
            e.pop_back();
        s.endpoint = e;
    }
    const std::string xdg = environmentValue("XDG_CACHE_HOME");
    const std::string cacheBase = !xdg.empty() ? xdg : expandHome("~/.cache");
    const std::string hfHome = environmentValue("HF_HOME");
    s.hf_home = !hfHome.empty() ? expandHome(hfHome) : cacheBase + "/huggingface";
    if (!environmentValue("HF_HUB_CACHE").empty())
        s.cache_dir = expandHome(environmentValue("HF_HUB_CACHE"));
    else if (!environmentValue("HUGGINGFACE_HUB_CACHE").empty())
        s.cache_dir = expandHome(environmentValue("HUGGINGFACE_HUB_CACHE"));
    else
        s.cache_dir = s.hf_home + "/hub";
    s.offline = isTruthyEnvValue(environmentValue("HF_HUB_OFFLINE"))
                || isTruthyEnvValue(environmentValue("TRANSFORMERS_OFFLINE"));
    if (std::string t = trimmed(environmentValue("HF_TOKEN")); !t.empty()) {
        s.token = t;
        s.token_source = "HF_TOKEN";
    } else if (std::string t2 = trimmed(environmentValue("HUGGING_FACE_HUB_TOKEN")); !t2.empty()) {
        s.token = t2;
        s.token_source = "HUGGING_FACE_HUB_TOKEN";
    } else {
        const std::string tokenPath = environmentValue("HF_TOKEN_PATH");
        const std::string path = !tokenPath.empty() ? expandHome(tokenPath) : s.hf_home + "/token";
        s.token = firstLineOf(path);
        if (!s.token.empty())
            s.token_source = path;
    }
    return s;
}

} // namespace wb
