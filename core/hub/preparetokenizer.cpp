// SPDX-License-Identifier: Apache-2.0
#include "core/hub/preparetokenizer.h"

#include "core/config/bertconfig.h"
#include "core/config/optionwords.h"
#include "core/util/error.h"

namespace wb {

Diagnostics applyPretrainedTokenizer(const PretrainedModel &model, const std::string &name,
                                     const PrepareTokenizerGiven &given, PrepareTokenizer &t)
{
    Diagnostics said;
    if (!given.vocab_file)
        t.vocab_file = model.vocab_file;
    Diagnostics configDiag;
    if (const auto cfg = BertConfig::load(model.config_file, configDiag);
        cfg && t.max_seq_length > cfg->max_position_embeddings) {
        const std::string most = std::to_string(cfg->max_position_embeddings);
        if (given.max_seq_length)
            throw Error("max_seq_length",
                        std::to_string(t.max_seq_length) + " tokens is more than " + name
                            + " was trained for (max_position_embeddings " + most + ")",
                        "Set " + (optionWording() == OptionWording::Window ? optionName("max_seq_length") : "max_seq_length")
                            + " to " + most + " or less.");
        said.info("max_seq_length", std::to_string(t.max_seq_length) + " → " + most + ", the most " + name
                                        + " was trained for (max_position_embeddings)");
        t.max_seq_length = cfg->max_position_embeddings;
    }
    if (!given.do_lower_case)
        t.do_lower_case = model.do_lower_case;
    else if (t.do_lower_case != model.do_lower_case)
        said.warning("pretrained_model", name + " is " + (model.do_lower_case ? "uncased" : "cased")
                                             + " but the text is prepared "
                                             + (t.do_lower_case ? "lower-cased" : "cased")
                                             + " as asked; a run on it must read text the same way");
    return said;
}

} // namespace wb
