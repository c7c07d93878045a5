// SPDX-License-Identifier: Apache-2.0
#include "core/config/hostinfo.h"

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace wb {

int64_t physicalMemoryBytes()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return 0;
    return int64_t(pages) * int64_t(pageSize);
}

std::set<std::string> cpuFlags(const std::string &cpuinfoPath)
{
    std::ifstream in(cpuinfoPath);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = line.substr(0, colon);
        while (!key.empty() && (key.back() == ' ' || key.back() == '\t'))
            key.pop_back();
        if (key != "flags" && key != "Features")
            continue;
        std::set<std::string> flags;
        std::istringstream words(line.substr(colon + 1));
        for (std::string w; words >> w;)
            flags.insert(w);
        return flags;
    }
    return {};
}

std::optional<bool> cpuHasNativeBf16(const std::string &cpuinfoPath)
{
    const auto flags = cpuFlags(cpuinfoPath);
    if (flags.empty())
        return std::nullopt;
    return flags.count("avx512_bf16") || flags.count("amx_bf16") || flags.count("bf16");
}

} // namespace wb
