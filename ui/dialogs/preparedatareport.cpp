// SPDX-License-Identifier: Apache-2.0
// Prepare Data's report of a finished preparation: the classification report (label counts,
// warnings, the baseline) and the pretraining report, in the dialog's text box and table.
#include "ui/dialogs/preparedatadialog.h"
#include "ui/dialogs/preparedatamultilabel.h"
#include "ui/dialogs/preparedatasteps.h"
#include "ui/common/qtext.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTableWidgetItem>

namespace wb {

using preparedata::formLabel;
using preparedata::megabytes;

void PrepareDataDialog::showReport(const PrepareReport &r)
{
    m_labelCounts->setRowCount(int(r.labels.size()));
    for (int i = 0; i < int(r.labels.size()); ++i) {
        const std::string &l = r.labels[size_t(i)];
        const auto t = r.train_label_counts.find(l);
        const auto e = r.eval_label_counts.find(l);
        m_labelCounts->setItem(i, 0, new QTableWidgetItem(q(l)));
        m_labelCounts->setItem(i, 1, new QTableWidgetItem(QString::number(t == r.train_label_counts.end() ? 0 : t->second)));
        m_labelCounts->setItem(i, 2, new QTableWidgetItem(QString::number(e == r.eval_label_counts.end() ? 0 : e->second)));
    }
    m_labelCounts->setVisible(!r.labels.empty());
    // Tall enough for every label up to 8 rows (more scroll), so the counts read at a glance.
    m_labelCounts->resizeColumnsToContents();
    m_labelCounts->horizontalHeader()->setStretchLastSection(true);
    const int rowsShown = std::min<int>(8, int(r.labels.size()));
    const int rowHeight = m_labelCounts->verticalHeader()->defaultSectionSize();
    m_labelCounts->setFixedHeight(m_labelCounts->horizontalHeader()->sizeHint().height() + rowHeight * rowsShown
                                  + 2 * m_labelCounts->frameWidth() + 2);
    QStringList lines;
    auto column = [&](const QString &what, const std::string &name, bool recognised) {
        if (!name.empty())
            lines << tr("%1: %2 (%3)").arg(what, q(name), recognised ? tr("recognised from the header") : tr("as given"));
    };
    column(tr("Text column"), r.text_a_column, r.text_columns_recognised);
    column(tr("Second text column"), r.text_b_column, r.text_columns_recognised);
    column(tr("Label column"), r.label_column, r.label_column_recognised);
    lines << tr("Tokens per example: mean %1, max %2%3; %4 truncated to max_seq_length.")
                 .arg(r.mean_tokens, 0, 'f', 1)
                 .arg(r.max_tokens_capped ? QStringLiteral("≥ ") : QString())
                 .arg(r.max_tokens)
                 .arg(r.truncated_examples);
    lines << preparedata::multiLabelReportLines(r); // with its own baseline line
    if (r.bag_of_words && r.bag_of_words->fitted() && !r.bag_of_words->multi_label) {
        const BagOfWordsBaseline &b = *r.bag_of_words;
        QString line = tr("Bag-of-words baseline (TF-IDF + logistic regression on the same wordpieces): eval accuracy "
                          "%1, macro-F1 %2.")
                           .arg(b.eval_accuracy, 0, 'f', 3)
                           .arg(b.eval_macro_f1, 0, 'f', 3);
        if (!b.C_chosen_by.empty() && b.C_chosen_by != "given")
            line += QLatin1Char(' ') + tr("Its regularisation (C = %1) was chosen by %2.").arg(b.C).arg(q(b.C_chosen_by));
        if (b.constant_label >= 0)
            line += QLatin1Char(' ')
                    + tr("It answers one label for every eval example: it is itself a constant classifier, no better "
                         "than the majority label.");
        else
            line += QLatin1Char(' ') + tr("A fine-tuned BERT should beat it; the plot shows it as a dashed line.");
        lines << line;
    } else if (r.bag_of_words && !r.bag_of_words->fitted())
        lines << tr("No bag-of-words baseline: %1.").arg(q(r.bag_of_words->error));
    if (!r.corrections_file.empty()) { // issue 46: what the corrections file relabelled
        lines << tr("Corrections (%1): %n row(s) relabelled, the input files unchanged.", nullptr,
                    int(r.corrected_rows.size())).arg(q(r.corrections_file));
        for (const CorrectedRow &c : r.corrected_rows)
            lines << tr("  %1: %2 → %3 (%4)").arg(q(c.where), q(c.label), q(c.corrected_label), q(c.decision));
        if (!r.removed_rows.empty())
            lines << tr("Corrections: %n row(s) removed (left out of the prepared data).", nullptr,
                        int(r.removed_rows.size()));
        for (const CorrectedRow &c : r.removed_rows)
            lines << tr("  %1: %2 removed").arg(q(c.where), q(c.label));
    }
    for (const SkippedRow &s : r.skipped)
        if (!s.removed_by_correction) // listed with the corrections above
            lines << tr("skipped %1: %2").arg(q(s.where), q(s.reason));
    for (const std::string &w : r.warnings)
        lines << tr("warning: %1").arg(q(w));
    lines << tr("Full report: %1").arg(q(r.report_path));
    m_warnings->setPlainText(lines.join(QLatin1Char('\n')));
    m_warnings->setVisible(true);
}

void PrepareDataDialog::showPretrainingReport(const PretrainingDataReport &r)
{
    // What `bert-workbench-cli prepare_pretraining` prints (cmd_preparepretraining.cpp), in the
    // dialog's words.
    QStringList lines;
    QString input = tr("Input: %n file(s), %1, read as %2", nullptr, int(r.input_files)).arg(megabytes(r.input_bytes), q(r.input_format));
    if (!r.text_column.empty())
        input += tr(", text from the column “%1” (%2)")
                     .arg(q(r.text_column), r.text_column_recognised ? tr("recognised from the header") : tr("as given"));
    if (r.email_body_only)
        input += tr(", e-mail bodies only (%1 without body text left out)").arg(r.empty_rows);
    else if (r.empty_rows > 0)
        input += tr(", %1 empty row(s) left out").arg(r.empty_rows);
    lines << input + QLatin1Char('.');
    lines << tr("Documents: %1 (%2 training and %3 evaluation pieces); %4 longer than a sequence.")
                 .arg(r.documents)
                 .arg(r.train_documents)
                 .arg(r.eval_documents)
                 .arg(r.documents_longer_than_a_sequence);
    lines << tr("Sentences: %1; tokens: %2, of them [UNK]: %3 (%4 %).")
                 .arg(r.sentences)
                 .arg(r.tokens)
                 .arg(r.unk_tokens)
                 .arg(100.0 * r.unk_rate, 0, 'f', 2);
    lines << tr("Sequences of up to %1 tokens: %2 training, %3 evaluation; %4.")
                 .arg(r.max_seq_length)
                 .arg(r.train_sequences)
                 .arg(r.eval_sequences)
                 .arg(r.next_sentence ? tr("sentence pairs with next-sentence labels") : tr("packed, no next-sentence pairs"));
    lines << (r.masking == "dynamic"
                  ? tr("Masking: dynamic (the records hold unmasked sequences; training draws new masks every epoch, "
                       "%1 masked positions per epoch).")
                        .arg(r.masked_positions)
                  : tr("Masking: static (%1 masked positions written into the records).").arg(r.masked_positions));
    if (r.duplicate_documents > 0 || r.train_eval_overlap_documents > 0)
        lines << tr("Repeated documents: %1 within a split, %2 in both training and evaluation.")
                     .arg(r.duplicate_documents)
                     .arg(r.train_eval_overlap_documents);
    for (const std::string &w : r.warnings)
        lines << tr("warning: %1").arg(q(w));
    for (const std::string &f : r.train_files)
        lines << tr("%1: %2").arg(formLabel("train_data_path"), q(f));
    if (!r.eval_file.empty())
        lines << tr("%1: %2").arg(formLabel("eval_data_path"), q(r.eval_file));
    lines << tr("%1: %2 (%3 tokens), %4.")
                 .arg(formLabel("vocab_file"), q(r.vocab_file))
                 .arg(r.vocab_size)
                 .arg(r.do_lower_case ? tr("lower-cased") : tr("cased"));
    lines << tr("%1: %2").arg(formLabel("input_meta_data_path"), q(r.meta_path));
    lines << tr("Full report: %1").arg(q(r.report_path));
    m_warnings->setPlainText(lines.join(QLatin1Char('\n')));
    m_warnings->setVisible(true);
}

} // namespace wb
