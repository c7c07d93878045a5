// SPDX-License-Identifier: Apache-2.0
#include "core/config/trainingoptions.h"

namespace wb {

std::string TrainingOptions::metricsPath() const
{
    if (!metrics_file.empty())
        return metrics_file;
    std::string dir = model_dir.empty() ? std::string(".") : model_dir;
    if (dir.back() != '/')
        dir += '/';
    return dir + "metrics.jsonl";
}

} // namespace wb
