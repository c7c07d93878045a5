// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/infer/textclassifier.h"
#include "ui/common/backgroundjob.h"
#include "ui/tryit/livemodelpanel.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QVBoxLayout;

namespace wb {

class AttributionLegend;
struct TryItModelCache;
struct TryItOutcome;

/// "Try it": the user types a text (and a second segment for pair tasks) and sees its
/// WordPiece tokens as chips with their input_ids ([CLS]/[SEP] shown, [UNK] marked, the cut
/// at max_seq_length) and one bar per label with the softmax probability, as
/// TextClassifier::classify() computes them (google-research/bert run_classifier.py's
/// features). The model is the form's model_dir (setFormSource()): its best checkpoint when
/// the run kept one ("Keep best model by"), else its latest, named on the model line ("best,
/// step 42 (eval_accuracy 0.6667)"); or a checkpoint / export folder the user chose
/// (setChosenModel()). A chosen model lasts until the form's model changes (File → Open
/// Project, another model directory or meta data) or a run of the form's model saves a
/// checkpoint; a chosen model whose label names are not the project's is said so.
///
/// Typing restarts a ~300 ms debounce timer; then tokenize + classify run on the global
/// thread pool (runBackgroundJob). Each request has a generation number: a result that
/// arrives after a newer request was started is dropped (LiveModelPanel, which
/// fill-in-the-blank shares). The loaded TextClassifier is cached across requests (shared
/// with the jobs, guarded by a mutex, so jobs run one at a time) and reloaded only when the
/// source, the latest checkpoint or the reload epoch (checkpointSaved()) changes. While hidden
/// the panel does no work; it catches up when shown.
/// Load errors are shown inline in the form's words; a model_dir without a checkpoint is a
/// plain message.
///
/// "Which words decided" (issue 25; off until ticked): the same job also computes token
/// attributions (TextClassifier::explain: Integrated Gradients with m steps, or gradient ×
/// input) for the predicted class or the class picked (a multi-label model: the most probable
/// label or the label picked, each label's own log-odds, headed "Words that raised P(urgent)");
/// the chips are shaded by them
/// (attributionColour: blue for, red against, white at 0, scaled by the text's max |a|; a
/// legend), the top words for and against are listed with the completeness check, which
/// says when m is too small. A new checkpoint recomputes them like the probabilities.
/// GUI thread only.
class TryItPanel : public LiveModelPanel
{
    Q_OBJECT
public:
    explicit TryItPanel(QWidget *parent = nullptr);

    /// The form's model: model_dir (its latest checkpoint), bert_config_file,
    /// input_meta_data_path, vocab_file, do_lower_case. Used unless a model was chosen.
    void setFormSource(const ClassifierSource &source);
    ClassifierSource formSource() const { return m_formSource; }
    /// A model the user picked: a folder with model.safetensors (an export, used as
    /// model_export_path), else a checkpoint file or folder (checkpoint_path, with the form's
    /// config, meta data and vocab). An empty path goes back to the form's latest checkpoint.
    void setChosenModel(const QString &path);
    QString chosenModel() const { return m_chosen; }
    /// The source the next request uses (the chosen model or the form's).
    ClassifierSource effectiveSource() const;

    /// Another project (New Project, Open Project, the example): both texts emptied, the chosen
    /// model, the explanation and its class forgotten ("the predicted class"), no answer shown.
    void startOver();
    /// Sets both text boxes (restarts the debounce like typing does).
    void setTexts(const QString &text, const QString &textB = QString());
    QPlainTextEdit *textEdit() const { return m_text; }
    QPlainTextEdit *secondTextEdit() const { return m_textB; }

    /// The message line: no checkpoint yet, a load error in form words, or a hint.
    QString messageText() const;
    /// Label names and probabilities as shown in the bars (empty before a result).
    QStringList shownLabels() const;
    std::vector<double> shownProbabilities() const;
    /// The tokenization shown as chips (empty before a result).
    const TokenizedText &shownTokens() const { return m_tokens; }
    /// The text of the cut line ("✂ cut here: …"), empty when the text fit.
    QString cutText() const;

    /// "Which words decided": whether requests also compute token attributions.
    void setExplainEnabled(bool on);
    bool explainEnabled() const;
    /// The method, Integrated Gradients steps m (clamped to kIgStepsMinimum…kIgStepsMaximum)
    /// and class (−1: the predicted one) of the next requests.
    void setExplainOptions(AttributionMethod method, int steps, int64_t classId);
    ExplainOptions explainOptions() const;
    /// Shows `text` (and `textB`) explained for `classId` (−1: the predicted class) at once:
    /// what a Top losses row opens.
    void explainText(const QString &text, const QString &textB, int64_t classId);
    /// The explanation shown now (nullopt without one).
    const std::optional<Explanation> &shownExplanation() const { return m_explanation; }
    /// The lines under the chips: top words for and against, the completeness check.
    QString explanationText() const;
    /// Shades the chips of `t` by `e` and shows its lists (what a finished request does).
    void showExplanation(const TokenizedText &t, const Explanation &e);

private:
    JobHandle startRequest(uint64_t generation) override;
    std::string formModelDir() const override { return m_formSource.model_dir; }
    /// A checkpoint of the form's run: the panel follows it, whatever model was chosen before.
    void followFormRun() override { m_chosen.clear(); }

    // The constructor's steps: the two text fields, the model row (model line, Choose…),
    // the answer area (message, busy mark, wordpiece chips, probability bars).
    void buildTextFields();
    QHBoxLayout *buildModelRow();
    void buildAnswerArea();
    QWidget *buildExplainRow();
    /// The class box's items: "the predicted class" (multi-label: "the most probable label"),
    /// then one per label; multi-label with a result `c`: the predicted labels first, marked
    /// "(predicted)", then the others, each in id order.
    void updateClassChoice(const std::vector<std::string> &labels, bool regression, bool multiLabel = false,
                           const Classification *c = nullptr);
    void clearExplanation(const QString &why = QString());
    void chooseModel();
    void applyOutcome(const JobOutcome<TryItOutcome> &outcome);
    void showMessage(const QString &text, bool isError) override;
    void showModel(const TryItOutcome &o);
    void showChips(const TokenizedText &t);
    void showBars(const std::vector<std::string> &labels, const Classification *c, bool regression);
    void clearResult() override;

    ClassifierSource m_formSource;
    QString m_chosen;
    std::shared_ptr<TryItModelCache> m_cache;
    TokenizedText m_tokens;
    std::vector<std::string> m_labels;

    QPlainTextEdit *m_text;
    QPlainTextEdit *m_textB;
    QPushButton *m_choose;
    QLabel *m_message;
    QLabel *m_busy;
    QWidget *m_chips;
    QScrollArea *m_chipScroll;
    QWidget *m_bars;
    QVBoxLayout *m_barLayout;
    std::vector<QProgressBar *> m_barWidgets;

    // "Which words decided"
    std::optional<Explanation> m_explanation;
    int64_t m_explainClass = -1;
    QCheckBox *m_explain;
    QComboBox *m_explainMethod;
    QSpinBox *m_igSteps;
    QComboBox *m_explainClassBox;
    AttributionLegend *m_legend;
    QLabel *m_explainLines;
};

} // namespace wb
