// SPDX-License-Identifier: Apache-2.0
// The core names options in the words of the front-end that shows its messages
// (core/config/optionwords.h): flags on the command line, the fields' labels in the window.
#include "core/config/commandoptions.h"
#include "core/config/optiontable.h"
#include "core/config/optionwords.h"

#include <QtTest>

#include <map>

using namespace wb;

namespace {

/// Restores the command line's wording when a test function ends, whatever it checked.
struct WordingScope
{
    explicit WordingScope(OptionWording w) { setOptionWording(w); }
    ~WordingScope() { setOptionWording(OptionWording::CommandLine); }
};

std::string labelOf(const std::vector<FlagRow> &table, const char *flag) { return flagRow(table, flag).label; }

} // namespace

class tst_OptionWords : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void commandLineIsTheDefault()
    {
        QCOMPARE(int(optionWording()), int(OptionWording::CommandLine));
        QCOMPARE(optionName("learning_rate"), std::string("--learning_rate"));
        QCOMPARE(passOption("learning_rate", "2e-05"), std::string("pass --learning_rate=2e-05"));
        QCOMPARE(PassOption("skip_bad_rows"), std::string("Pass --skip_bad_rows"));
        QCOMPARE(passOption("text_a_column", "NAME"), std::string("pass --text_a_column=NAME"));
        QCOMPARE(optionSetting("max_seq_length", "128"), std::string("--max_seq_length=128"));
        QCOMPARE(commandName("prepare"), std::string("'bert-workbench-cli prepare'"));
    }

    void windowNamesTheFields()
    {
        WordingScope scope(OptionWording::Window);
        const std::string lr = "\u201c" + std::string(findOption("learning_rate")->label) + "\u201d";
        QCOMPARE(optionName("learning_rate"), lr);
        QCOMPARE(passOption("learning_rate", "2e-05"), "set " + lr + " to 2e-05");
        QCOMPARE(PassOption("learning_rate", "2e-05"), "Set " + lr + " to 2e-05");
        QCOMPARE(optionSetting("learning_rate", "2e-05"), lr + " = 2e-05");
        // A switch is ticked; a placeholder for the user's own value is filled in.
        const std::string skip = "\u201c" + labelOf(prepareFlagTable(), "skip_bad_rows") + "\u201d";
        QCOMPARE(passOption("skip_bad_rows"), "tick " + skip);
        QCOMPARE(passOption("skip_bad_rows", "true"), "tick " + skip);
        const std::string column = "\u201c" + labelOf(prepareFlagTable(), "label_column") + "\u201d";
        QCOMPARE(passOption("label_column", "NAME"), "fill in " + column);
        QCOMPARE(passOption("label_column", "<column>"), "fill in " + column);
        QCOMPARE(passOption("skip_bad_rows", "false"), "untick " + skip);
        QCOMPARE(optionSetting("skip_bad_rows", "true"), skip + " ticked");
        // A path without a value is filled in, never ticked.
        const std::string vocab = "\u201c" + labelOf(prepareFlagTable(), "vocab_file") + "\u201d";
        QCOMPARE(passOption("vocab_file"), "fill in " + vocab);
        QCOMPARE(commandName("prepare"), std::string("File \u2192 Prepare Data\u2026"));
        // Issue 44 item 8: the window never shows a command line's flag. A flag without a field
        // is named bare (no dashes); every option of the tables by its label, also those outside
        // the form (the range test's, the export dialog's), and the Sweep dialog's flags by its fields.
        QCOMPARE(optionName("no_such_flag"), std::string("\u201cno_such_flag\u201d"));
        QCOMPARE(passOption("no_such_flag", "1"), std::string("set \u201cno_such_flag\u201d to 1"));
        QCOMPARE(optionSetting("no_such_flag", "1"), std::string("\u201cno_such_flag\u201d = 1"));
        QCOMPARE(commandName("models"), std::string("'bert-workbench-cli models'"));
        for (const OptionSpec &spec : optionTable()) {
            const std::string label = optionLabel(spec.flag);
            QVERIFY2(!label.empty(), spec.flag);
            QCOMPARE(optionName(spec.flag), "\u201c" + label + "\u201d");
        }
        QCOMPARE(optionName("lr_find_start"), "\u201c" + std::string(findOption("lr_find_start")->label) + "\u201d");
        QCOMPARE(optionName("param"), std::string("\u201cSweep \u2192 values of an option\u201d"));
        for (const char *flag : {"param", "method", "num_runs", "max_concurrent_runs", "do_lower_case", "masked_lm_prob",
                                 "task_index", "worker_hosts", "predict_checkpoint_path"}) {
            QVERIFY2(optionName(flag).rfind("--", 0) == std::string::npos, flag);
            QVERIFY2(passOption(flag, "1").find("--") == std::string::npos, flag);
            QVERIFY2(optionSetting(flag, "1").find("--") == std::string::npos, flag);
        }
    }

    /// A flag the window shows in several places has one label, so a message names its field the
    /// same wherever it is shown (optionLabel does not know which dialog shows the message).
    void oneLabelPerFlag()
    {
        std::map<std::string, std::string> labels;
        QStringList clashes;
        const auto see = [&](const std::string &flag, const std::string &label) {
            if (label.empty())
                return;
            auto [it, fresh] = labels.emplace(flag, label);
            if (!fresh && it->second != label)
                clashes << QString::fromStdString(flag + ": " + it->second + " / " + label);
        };
        for (const OptionSpec &spec : optionTable())
            see(spec.flag, spec.label);
        for (const std::vector<FlagRow> *table :
             {&prepareFlagTable(), &preparePretrainingFlagTable(), &classifyFlagTable(), &exampleFlagTable()})
            for (const FlagRow &row : *table)
                see(row.flag, row.label);
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join(QStringLiteral("; "))));
        for (const auto &[flag, label] : labels)
            QCOMPARE(optionLabel(flag), label);
    }
};

QTEST_APPLESS_MAIN(tst_OptionWords)
#include "tst_optionwords.moc"
