// SPDX-License-Identifier: Apache-2.0
// Every command's --help is clean text: valid UTF-8, no control bytes but newlines, and each
// typed flag names its own value type (issue 41: --learning_rate's type name once indexed past
// the end of a four-entry table and printed whatever followed it in memory).
#include "app/cli/commandregistry.h"
#include "clirun.h"
#include "core/config/optiontable.h"

#include <QtTest>

#include <sstream>
#include <string>
#include <vector>

namespace {

/// Empty when `s` is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF)
/// and holds no control character but '\n'; else where and what the first bad byte is.
std::string textProblem(const std::string &s)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const size_t n = s.size();
    for (size_t i = 0; i < n;) {
        const unsigned c = p[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n') || c == 0x7f)
                return "control byte 0x" + std::to_string(c) + " at offset " + std::to_string(i);
            ++i;
            continue;
        }
        int len = 0;
        unsigned cp = 0;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return "invalid UTF-8 lead byte " + std::to_string(c) + " at offset " + std::to_string(i);
        }
        if (i + size_t(len) > n)
            return "truncated UTF-8 sequence at offset " + std::to_string(i);
        for (int k = 1; k < len; ++k) {
            const unsigned cc = p[i + size_t(k)];
            if ((cc & 0xc0) != 0x80)
                return "invalid UTF-8 continuation at offset " + std::to_string(i + size_t(k));
            cp = (cp << 6) | (cc & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return "overlong or out-of-range UTF-8 at offset " + std::to_string(i);
        if (cp >= 0x80 && cp < 0xa0)
            return "C1 control character at offset " + std::to_string(i);
        i += size_t(len);
    }
    return {};
}

/// The line of `help` that declares `--flag` (CLI11 lists "--flag TYPE ..."), or "".
std::string flagLine(const std::string &help, const std::string &flag)
{
    size_t at = 0;
    const std::string needle = "--" + flag;
    while ((at = help.find(needle, at)) != std::string::npos) {
        const size_t end = at + needle.size();
        if (end < help.size() && (help[end] == ' ' || help[end] == ','))
            break;
        at = end;
    }
    if (at == std::string::npos)
        return {};
    const size_t begin = help.rfind('\n', at);
    const size_t stop = help.find('\n', at);
    return help.substr(begin == std::string::npos ? 0 : begin + 1, stop == std::string::npos ? std::string::npos
                                                                                              : stop - begin - 1);
}

/// The description `help` gives `--flag` on its option line (CLI11 writes it from column 30, on
/// the next line when the names and type fill the column), or "" when no option line names it.
std::string flagDescription(const std::string &help, const std::string &flag)
{
    constexpr size_t kColumn = 30;
    std::vector<std::string> lines;
    std::istringstream in(help);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &line = lines[i];
        if (line.rfind("  -", 0) != 0)
            continue;
        const std::string names = line.substr(2, line.find(' ', 2) - 2) + ",";
        if (names.find("--" + flag + ",") == std::string::npos && names.find("--" + flag + "{") == std::string::npos)
            continue;
        // Names and type of 28 characters or more end the line; the description follows, indented.
        const bool nextLine = i + 1 < lines.size() && lines[i + 1].rfind(std::string(kColumn, ' '), 0) == 0;
        if (nextLine)
            return lines[i + 1].substr(kColumn);
        return line.size() > kColumn ? line.substr(kColumn) : std::string();
    }
    return {};
}

} // namespace

class tst_CliHelp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void helpIsCleanText_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("top level") << QStringList{QStringLiteral("--help")};
        for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry())
            QTest::newRow(c.name) << QStringList{QString::fromLatin1(c.name), QStringLiteral("--help")};
        for (const char *sub : {"list", "info", "download"})
            QTest::newRow((std::string("models ") + sub).c_str())
                << QStringList{QStringLiteral("models"), QString::fromLatin1(sub), QStringLiteral("--help")};
    }

    void helpIsCleanText()
    {
        QFETCH(QStringList, args);
        std::vector<std::string> argv;
        for (const QString &a : args)
            argv.push_back(a.toStdString());
        std::string out, err;
        const int code = wbtest::runCli(argv, out, err);
        const std::string help = out + err;
        QVERIFY2(help.size() > 40, help.c_str());
        const std::string problem = textProblem(help);
        QVERIFY2(problem.empty(), (problem + " in:\n" + help).c_str());
        // --help of a command is a success; the top level's usage too.
        QCOMPARE(code, 0);
    }

    /// Each option of the run table declares the value type of its own kind in train's --help.
    void typeNamesFollowTheOptionTable()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"train", "--help"}, out, err), 0);
        int checked = 0;
        for (const wb::OptionSpec &spec : wb::optionTable()) {
            const std::string line = flagLine(out, spec.flag);
            QVERIFY2(!line.empty(), (std::string("--") + spec.flag + " missing from train --help").c_str());
            if (spec.strict_choices)
                continue; // CLI11 shows the choices instead
            const std::string type = wb::optionTypeName(spec.type());
            QVERIFY2(line.find(" " + type) != std::string::npos, (spec.flag + (": expected " + type + " in: " + line)).c_str());
            ++checked;
        }
        QVERIFY(checked > 20);
        // The optional rate names FLOAT (it once printed bytes past the table's end).
        QVERIFY2(flagLine(out, "learning_rate").find(" FLOAT") != std::string::npos, out.c_str());
        QCOMPARE(std::string(wb::optionTypeName(wb::OptionType::OptionalReal)), std::string("FLOAT"));
        QCOMPARE(std::string(wb::optionTypeName(wb::OptionType::OptionalInteger)), std::string("INT"));
    }

    /// A flag several commands take with one meaning has one help text: the same description
    /// in every command's --help (max_seq_length once had four texts in prepare,
    /// prepare_pretraining, classify and example).
    void sharedFlagsHaveOneHelpText()
    {
        std::vector<std::pair<std::string, std::string>> helps; // command, --help
        for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry()) {
            std::string out, err;
            QCOMPARE(wbtest::runCli({c.name, "--help"}, out, err), 0);
            helps.emplace_back(c.name, out);
        }
        for (const char *flag : {"max_seq_length", "vocab_file", "do_lower_case", "pretrained_model", "eval_fraction",
                                 "text_a_column", "text_b_column", "bert_config_file",
                                 "input_meta_data_path", "predict_checkpoint_path", "model_export_path"}) {
            std::string first, firstCommand;
            int commands = 0;
            for (const auto &[command, help] : helps) {
                if (command == "pretrain" && std::string(flag) == "max_seq_length")
                    continue; // run_pretraining.py's flag: the records' length, checked, not chosen
                const std::string description = flagDescription(help, flag);
                if (description.empty())
                    continue;
                ++commands;
                if (first.empty()) {
                    first = description;
                    firstCommand = command;
                    continue;
                }
                QVERIFY2(description == first, (std::string("--") + flag + ": " + firstCommand + " says '" + first
                                                + "', " + command + " says '" + description + "'")
                                                   .c_str());
            }
            QVERIFY2(commands >= 2, flag); // the flag is shared
        }
        // The texts are the rows' (core/config/commandoptions.h), in the commands that take them.
        std::string out, err;
        QCOMPARE(wbtest::runCli({"prepare", "--help"}, out, err), 0);
        QCOMPARE(flagDescription(out, "max_seq_length"),
                 std::string("tokens per sequence, [CLS] and [SEP] included; longer texts are cut (at most the "
                             "model's max_position_embeddings)"));
        QCOMPARE(flagDescription(out, "do_lower_case"),
                 std::string("lower-case and strip accents: true for uncased models, false for cased ones"));
    }
};

QTEST_GUILESS_MAIN(tst_CliHelp)
#include "tst_clihelp.moc"
