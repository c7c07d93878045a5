// SPDX-License-Identifier: Apache-2.0
#include "core/util/blaslibrary.h"

#include <dlfcn.h>

#include <fstream>

namespace wb {

std::string loadedBlas()
{
    std::ifstream maps("/proc/self/maps");
    std::string line;
    bool reference = false;
    while (std::getline(maps, line)) {
        if (line.find("openblas") != std::string::npos)
            return "openblas";
        if (line.find("libmkl") != std::string::npos)
            return "mkl";
        if (line.find("libblis") != std::string::npos)
            return "blis";
        if (line.find("/blas/libblas.so") != std::string::npos || line.find("libblas.so") != std::string::npos)
            reference = true;
    }
    return reference ? "reference" : "unknown";
}

bool setOpenBlasThreads(int threads)
{
    using SetThreads = void (*)(int);
    using GetThreads = int (*)();
    static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    static const auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    if (!set)
        return false;
    if (!get || get() != threads)
        set(threads);
    return true;
}

} // namespace wb
