// SPDX-License-Identifier: Apache-2.0
// The CLI's subcommands come from one registry (app/cli/commandregistry.h, issue 42): the usage
// text, the dispatch, the unknown-command hint and the man page's COMMANDS section list the
// same commands in the same order, and a mistyped command gets "did you mean" (as git does).
#include "clirun.h"

#include "app/cli/commandregistry.h"

#include <QtTest>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> registryNames()
{
    std::vector<std::string> names;
    for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry())
        names.emplace_back(c.name);
    return names;
}

/// The "Commands:" block of the usage text: (name, summary) per line, until the blank line.
std::vector<std::pair<std::string, std::string>> usageCommands(const std::string &usage)
{
    std::vector<std::pair<std::string, std::string>> rows;
    std::istringstream in(usage);
    std::string line;
    while (std::getline(in, line) && line != "Commands:") {
    }
    while (std::getline(in, line) && !line.empty()) {
        const size_t nameAt = line.find_first_not_of(' ');
        const size_t nameEnd = line.find(' ', nameAt);
        const size_t summaryAt = line.find_first_not_of(' ', nameEnd);
        if (nameAt != 2 || nameEnd == std::string::npos || summaryAt == std::string::npos)
            return {{"<malformed line>", line}};
        rows.emplace_back(line.substr(nameAt, nameEnd - nameAt), line.substr(summaryAt));
    }
    return rows;
}

std::string joined(const std::vector<std::string> &names)
{
    std::string s;
    for (const std::string &n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

std::string hintLine(const std::vector<std::string> &names)
{
    return "  hint: use one of " + joined(names) + "\n";
}

/// The long flag names of the option lines of a `--help` text (CLI11's "  --a,--b TYPE  …", and
/// sweep's "  --name VALUE  …"): every name a command accepts, aliases and negations included.
std::set<std::string> helpFlagNames(const std::string &help)
{
    std::set<std::string> names;
    std::istringstream in(help);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("  -", 0) != 0)
            continue;
        const std::string column = line.substr(2, line.find(' ', 2) - 2); // "--a,--b{false}"
        for (size_t at = column.find("--"); at != std::string::npos; at = column.find("--", at + 2)) {
            size_t end = at + 2;
            while (end < column.size() && (std::islower(static_cast<unsigned char>(column[end])) || column[end] == '_'
                                           || std::isdigit(static_cast<unsigned char>(column[end]))))
                ++end;
            const std::string name = column.substr(at + 2, end - at - 2);
            if (!name.empty() && name != "help")
                names.insert(name);
        }
    }
    return names;
}

/// Whether the man page (roff) names `--flag` ("\-\-flag" not followed by more of a name).
bool pageNamesFlag(const std::string &page, const std::string &flag)
{
    const std::string needle = "\\-\\-" + flag;
    for (size_t at = page.find(needle); at != std::string::npos; at = page.find(needle, at + 1)) {
        const size_t end = at + needle.size();
        if (end >= page.size() || !(std::isalnum(static_cast<unsigned char>(page[end])) || page[end] == '_'))
            return true;
    }
    return false;
}

} // namespace

class tst_CliCommands : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// Names are unique, summaries one line, and every entry has a function.
    void registryIsWellFormed()
    {
        const auto &registry = wb::cli::commandRegistry();
        QVERIFY(registry.size() >= 15);
        std::set<std::string> seen;
        for (const wb::cli::CommandSpec &c : registry) {
            QVERIFY2(seen.insert(c.name).second, c.name);
            QVERIFY2(c.run != nullptr, c.name);
            const std::string summary = c.summary;
            QVERIFY2(!summary.empty() && summary.find('\n') == std::string::npos, c.name);
        }
    }

    /// The usage text lists exactly the registry, in its order, with its summaries; no
    /// arguments print the same text on stderr with exit code 2.
    void usageListsTheRegistry()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"--help"}, out, err), 0);
        QVERIFY(err.empty());
        QCOMPARE(out, wb::cli::usageText());
        const auto rows = usageCommands(out);
        const auto &registry = wb::cli::commandRegistry();
        QCOMPARE(rows.size(), registry.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].first, std::string(registry[i].name));
            QCOMPARE(rows[i].second, std::string(registry[i].summary));
            // Summaries start in column 12, or two spaces after a longer name.
            const std::string line = "  " + rows[i].first;
            QVERIFY2(out.find(line + std::string(line.size() < 12 ? 12 - line.size() : 2, ' ') + rows[i].second + "\n") !=
                         std::string::npos,
                     rows[i].first.c_str());
        }
        QVERIFY(out.rfind("bert-workbench-cli ", 0) == 0);
        QVERIFY(out.find("Exit codes: 0 success, 1 runtime failure, 2 invalid input, 130 stopped by the user.\n") !=
                std::string::npos);

        std::string out2, err2;
        QCOMPARE(wbtest::runCli({}, out2, err2), 2);
        QVERIFY(out2.empty());
        QCOMPARE(err2, out);
    }

    /// Every registered command is dispatched to: its --help exits 0 with its own text (not the
    /// top-level usage, not the unknown-command error).
    void everyCommandHelpExitsZero_data()
    {
        QTest::addColumn<QString>("command");
        for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry())
            QTest::newRow(c.name) << QString::fromLatin1(c.name);
    }

    void everyCommandHelpExitsZero()
    {
        QFETCH(QString, command);
        std::string out, err;
        const int code = wbtest::runCli({command.toStdString(), "--help"}, out, err);
        QVERIFY2(code == 0, (out + err).c_str());
        const std::string help = out + err;
        QVERIFY2(help.size() > 40, help.c_str());
        QVERIFY2(help.find("unknown command") == std::string::npos, help.c_str());
        QVERIFY2(help.find("Commands:\n") == std::string::npos, help.c_str());
    }

    /// Usage and dispatch are one list: findCommand knows exactly the registry's names (each
    /// to its own entry), and anything else is an unknown command with exit code 2.
    void dispatchIsTheRegistry()
    {
        const auto &registry = wb::cli::commandRegistry();
        for (const wb::cli::CommandSpec &c : registry)
            QCOMPARE(wb::cli::findCommand(c.name), &c);
        for (const char *notACommand : {"help", "version", "--help", "Train", "train ", "", "frobnicate", "cmdTrain"})
            QVERIFY2(wb::cli::findCommand(notACommand) == nullptr, notACommand);
        std::vector<std::string> usageNames;
        for (const auto &row : usageCommands(wb::cli::usageText()))
            usageNames.push_back(row.first);
        QCOMPARE(usageNames, registryNames());
        for (const std::string &name : usageNames)
            QVERIFY2(wb::cli::findCommand(name) != nullptr, name.c_str());

        std::string out, err;
        QCOMPARE(wbtest::runCli({"frobnicate", "--help"}, out, err), 2);
        QVERIFY(out.empty());
        QCOMPARE(err, "error: command: unknown command 'frobnicate'\n" + hintLine(registryNames()));
    }

    /// The hint names every command, in the usage text's order (it once listed lr_find before sweep).
    void hintListsEveryCommand()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"xyz"}, out, err), 2);
        QCOMPARE(err, "error: command: unknown command 'xyz'\n" + hintLine(registryNames()));
        for (const std::string &name : registryNames())
            QVERIFY2(err.find(name) != std::string::npos, name.c_str());
        QCOMPARE(wb::cli::unknownCommandText("xyz"), err);
    }

    void didYouMean_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("suggestion"); // "" = no suggestion
        QTest::newRow("swap") << "trian" << "'train'";
        QTest::newRow("missing underscore") << "lrfind" << "'lr_find'";
        QTest::newRow("hyphen for underscore") << "prepare-pretraining" << "'prepare_pretraining'";
        QTest::newRow("hyphen") << "fill-mask" << "'fill_mask'";
        QTest::newRow("capital") << "Train" << "'train'";
        QTest::newRow("plural") << "examples" << "'example'";
        QTest::newRow("two edits") << "tra" << "'train'";
        QTest::newRow("swap in models") << "mdoels" << "'models'";
        QTest::newRow("nearest wins") << "retrain" << "'pretrain'";
        QTest::newRow("two at once") << "prepain" << "'pretrain' or 'prepare'";
        QTest::newRow("far") << "xyz" << "";
        QTest::newRow("three edits") << "lr" << "";
        QTest::newRow("empty") << "" << "";
    }

    void didYouMean()
    {
        QFETCH(QString, typed);
        QFETCH(QString, suggestion);
        std::string out, err;
        QCOMPARE(wbtest::runCli({typed.toStdString()}, out, err), 2);
        QVERIFY(out.empty());
        std::string expected = "error: command: unknown command '" + typed.toStdString() + "'\n";
        if (!suggestion.isEmpty())
            expected += "  hint: did you mean " + suggestion.toStdString() + "?\n";
        expected += hintLine(registryNames());
        QCOMPARE(err, expected);
    }

    void editDistance()
    {
        using wb::cli::editDistance;
        QCOMPARE(editDistance("", ""), size_t(0));
        QCOMPARE(editDistance("", "abc"), size_t(3));
        QCOMPARE(editDistance("abc", ""), size_t(3));
        QCOMPARE(editDistance("train", "train"), size_t(0));
        QCOMPARE(editDistance("trian", "train"), size_t(1)); // one swap
        QCOMPARE(editDistance("ab", "ba"), size_t(1));
        QCOMPARE(editDistance("kitten", "sitting"), size_t(3));
        QCOMPARE(editDistance("lrfind", "lr_find"), size_t(1));
        QCOMPARE(editDistance("ca", "abc"), size_t(3)); // optimal string alignment, not unrestricted
        QCOMPARE(editDistance("sweep", "swap"), editDistance("swap", "sweep"));
    }

    /// The built man page's COMMANDS section has one paragraph per registered command, in
    /// registry order (it once lacked fill_mask, sweep and example).
    void manPageListsTheRegistry()
    {
        const std::string path = std::string(WB_BINARY_DIR) + "/packaging/bert-workbench-cli.1";
        std::ifstream in(path);
        QVERIFY2(in, (path + ": not built (target wb_manpage)").c_str());
        std::string line;
        while (std::getline(in, line) && line != ".SH COMMANDS") {
        }
        QCOMPARE(line, std::string(".SH COMMANDS"));
        std::vector<std::string> headings;
        std::vector<size_t> paragraphLines;
        std::string previous;
        while (std::getline(in, line) && line.rfind(".SH ", 0) != 0) {
            QVERIFY2(line.find("{{") == std::string::npos, line.c_str()); // no marker left
            if (previous == ".TP") {
                QVERIFY2(line.rfind(".B ", 0) == 0, line.c_str());
                headings.push_back(line.substr(3));
                paragraphLines.push_back(0);
            } else if (line != ".TP" && !paragraphLines.empty()) {
                ++paragraphLines.back();
            }
            previous = line;
        }
        QCOMPARE(headings, registryNames());
        for (size_t i = 0; i < headings.size(); ++i)
            QVERIFY2(paragraphLines[i] > 0, headings[i].c_str());
    }

    /// The man page documents every flag of every command: each long name (aliases and
    /// negations too) that a registered command's --help lists, its subcommands' included
    /// (the page once listed only the training flags, not prepare's, classify's or example's).
    void manPageDocumentsEveryFlag()
    {
        const std::string path = std::string(WB_BINARY_DIR) + "/packaging/bert-workbench-cli.1";
        std::ifstream in(path);
        QVERIFY2(in, (path + ": not built (target wb_manpage)").c_str());
        std::ostringstream text;
        text << in.rdbuf();
        const std::string page = text.str();
        std::vector<std::vector<std::string>> invocations;
        for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry()) {
            invocations.push_back({c.name});
            for (const char *sub : c.subcommands)
                invocations.push_back({c.name, sub});
        }
        std::string missing;
        size_t checked = 0;
        for (std::vector<std::string> args : invocations) {
            const std::string command = args.size() > 1 ? args[0] + " " + args[1] : args[0];
            args.push_back("--help");
            std::string out, err;
            QCOMPARE(wbtest::runCli(args, out, err), 0);
            for (const std::string &flag : helpFlagNames(out)) {
                ++checked;
                if (!pageNamesFlag(page, flag))
                    missing += " " + command + ":--" + flag;
            }
        }
        QVERIFY2(missing.empty(), ("the man page lacks" + missing).c_str());
        QVERIFY2(checked > 300, std::to_string(checked).c_str()); // every command's flags were read
    }
};

QTEST_GUILESS_MAIN(tst_CliCommands)
#include "tst_clicommands.moc"
