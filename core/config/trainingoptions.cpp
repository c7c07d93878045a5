// SPDX-License-Identifier: Apache-2.0
#include "core/config/trainingoptions.h"

#include "core/config/optiontable.h"

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

bool startsFromPretrainedWeights(const TrainingOptions &o)
{
    return !o.pretrained_model.empty() || !o.init_checkpoint.empty();
}

double learningRate(const TrainingOptions &o)
{
    if (o.learning_rate)
        return *o.learning_rate;
    return startsFromPretrainedWeights(o) ? kPretrainedLearningRate : kFromScratchLearningRate;
}

std::vector<std::string> toCommandLineFlags(const TrainingOptions &o)
{
    std::vector<std::string> flags;
    for (const OptionSpec &spec : optionTable())
        if (spec.isChanged(o) && std::string_view(spec.flag) != "mode")
            flags.push_back(std::string("--") + spec.flag + "=" + spec.text(o));
    return flags;
}

std::string shellJoin(const std::vector<std::string> &args)
{
    std::string out;
    for (const std::string &a : args) {
        if (!out.empty())
            out += ' ';
        const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=/.,:@%")
                                             == std::string::npos;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

} // namespace wb
