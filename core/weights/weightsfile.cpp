// SPDX-License-Identifier: Apache-2.0
#include "core/weights/weightsfile.h"

#include "core/config/optionwords.h"
#include "core/util/error.h"

namespace wb {

std::ifstream openWeightsFile(const std::string &path, const std::string &what, uint64_t *size)
{
    std::ifstream in(path, size ? std::ios::binary | std::ios::ate : std::ios::binary);
    if (!in)
        throw Error(path, "cannot open " + what, "check the path of " + optionName("init_checkpoint"));
    if (size) {
        const auto end = in.tellg();
        if (end < 0)
            throw Error(path, "cannot determine the file size (is it a directory?)");
        *size = uint64_t(end);
        in.seekg(0);
    }
    return in;
}

} // namespace wb
