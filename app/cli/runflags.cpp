// SPDX-License-Identifier: Apache-2.0
#include "app/cli/runflags.h"

#include "app/cli/commands.h"
#include "core/config/optiontable.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace wb::cli {

void addRunFlags(CLI::App &app, TrainingOptions &o)
{
    for (const OptionSpec &spec : optionTable()) {
        std::string names = std::string("--") + spec.flag;
        for (const std::string &alias : spec.aliases)
            names += ",--" + alias;
        CLI::Option *opt = app.add_option_function<std::string>(
            names,
            [&spec, &o](const std::string &value) {
                const std::string error = spec.setText(o, value);
                if (!error.empty())
                    throw CLI::ValidationError(std::string("--") + spec.flag, error);
            },
            spec.summary);
        opt->type_name(optionTypeName(spec.type()));
        // A flag given twice takes the last value, as absl flags do for run_classifier.
        opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
        if (spec.strict_choices)
            opt->check(CLI::IsMember(spec.choices));
        const std::string def = spec.defaultText();
        if (!def.empty())
            opt->default_str(def);
    }
}

namespace {

/// Where parseFlags records an app's flags instead of parsing (collectCommandFlags), else null.
thread_local std::vector<FlagDoc> *t_collecting = nullptr;

std::vector<FlagDoc> flagDocs(const CLI::App &app)
{
    std::vector<FlagDoc> docs;
    for (const CLI::Option *opt : app.get_options()) {
        if (opt->get_lnames().empty() || opt->get_lnames().front() == "help")
            continue; // positionals and -h,--help
        FlagDoc d;
        d.names = opt->get_lnames();
        d.type = opt->get_type_name();
        d.description = opt->get_description();
        d.default_text = opt->get_default_str();
        d.group = opt->get_group();
        d.required = opt->get_required();
        docs.push_back(std::move(d));
    }
    return docs;
}

} // namespace

std::vector<FlagDoc> collectCommandFlags(int (*command)(const std::vector<std::string> &, std::ostream &, std::ostream &),
                                         std::vector<std::string> args)
{
    std::vector<FlagDoc> docs;
    std::vector<FlagDoc> *const outer = t_collecting;
    t_collecting = &docs;
    args.push_back("--help");
    std::ostringstream out, err;
    try {
        command(args, out, err);
    } catch (...) {
        t_collecting = outer;
        throw;
    }
    t_collecting = outer;
    return docs;
}

bool parseFlags(CLI::App &app, const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
                int &exitCode)
{
    if (t_collecting) {
        *t_collecting = flagDocs(app);
        exitCode = kExitOk;
        return false;
    }
    // CLI11 would take the *next* argument as the value of "--flag=" (an empty value), so
    // "--model_dir= --learning_rate=1e-3" trained into a directory named "--learning_rate=1e-3".
    std::vector<std::string> checked;
    for (size_t k = 0; k < args.size(); ++k) {
        std::string a = args[k];
        // A bare boolean flag means true, as absl's --flag does (--activation_checkpointing);
        // "--flag true|false" still reads the value.
        if (a.size() > 2 && a.compare(0, 2, "--") == 0 && a.find('=') == std::string::npos) {
            const OptionSpec *spec = findOption(std::string_view(a).substr(2));
            if (spec && spec->isBoolean()) {
                const bool valueFollows = k + 1 < args.size() && (args[k + 1] == "true" || args[k + 1] == "false");
                a += "=" + (valueFollows ? args[++k] : std::string("true"));
            }
        }
        if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=') {
            const std::string flag = a.substr(2, a.size() - 3);
            const OptionSpec *spec = findOption(flag);
            if (spec && std::string_view(spec->flag) == "distribution_strategy")
                continue; // an empty strategy is "not specified": validation reports the seed's error
            err << "error: " << flag << ": the flag has an empty value\n"
                << "  hint: write --" << flag << "=<value>, or leave the flag out to use its default\n";
            exitCode = kExitInvalid;
            return false;
        }
        checked.push_back(a);
    }
    std::vector<std::string> reversed(checked.rbegin(), checked.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp &) {
        out << app.help();
        exitCode = kExitOk;
        return false;
    } catch (const CLI::ParseError &e) {
        err << "error: " << app.get_name() << ": " << e.what() << "\n";
        err << "  hint: run '" << app.get_name() << " --help' for the list of flags\n";
        exitCode = kExitInvalid;
        return false;
    }
    return true;
}

std::optional<int> parseCommandFlags(CLI::App &app, const std::vector<std::string> &args, std::ostream &out,
                                     std::ostream &err)
{
    int code = kExitOk;
    if (!parseFlags(app, args, out, err, code))
        return code;
    return std::nullopt;
}

} // namespace wb::cli
