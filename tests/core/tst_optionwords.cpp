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
        // The window has no field for these: they keep the command line's names.
        QCOMPARE(optionName("no_such_flag"), std::string("--no_such_flag"));
        QCOMPARE(passOption("no_such_flag", "1"), std::string("pass --no_such_flag=1"));
        QCOMPARE(commandName("models"), std::string("'bert-workbench-cli models'"));
        // A training option without a field in the form keeps its flag unless another dialog
        // has a field for it (prepare's, classify's, the example's).
        for (const OptionSpec &spec : optionTable()) {
            if (spec.group != FormGroup::None)
                continue;
            const std::string label = optionLabel(spec.flag);
            QCOMPARE(optionName(spec.flag), label.empty() ? "--" + std::string(spec.flag) : "\u201c" + label + "\u201d");
        }
        QCOMPARE(optionName("task_index"), std::string("--task_index"));
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
            see(spec.flag, spec.group == FormGroup::None ? std::string() : std::string(spec.label));
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
