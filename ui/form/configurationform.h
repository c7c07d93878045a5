// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "ui/form/formtask.h"

#include <QWidget>

#include <QStringList>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QComboBox;
class QLabel;
class QFormLayout;
class QLineEdit;
class QResizeEvent;
class QVBoxLayout;

namespace wb {

class ModelDownloadPanel;
struct OptionSpec;
struct PretrainedModel;

/// The configuration form: one widget per option of optionTable() whose form group is not
/// None, in the table's order, grouped "1. Where to train", "2. Model and data",
/// "3. Hyperparameters", each with the table's label, tooltip and "?" help. Each editor's
/// object name is the option's flag name. options() returns the last setOptions() value with
/// the fields the user edited since on top: options without a widget, and fields not touched,
/// give back exactly what was set (a seed above INT_MAX, a rate with 17 digits). Integers are
/// NumberSpinBox fields over the member's whole type, reals show their shortest round-trip text.
/// The wheel changes a field only when it has focus (ui/form/wheelguard.h). Above the groups,
/// the task (combo box "task"): Classify text, or Pretrain on text, which hides what means
/// nothing for masked-LM pretraining (local workers; the classifier metrics eval_f1 and
/// eval_mcc of "Keep best model by" are disabled) and says what the run does ("taskNote").
/// GUI thread only.
class ConfigurationForm : public QWidget
{
    Q_OBJECT
public:
    explicit ConfigurationForm(QWidget *parent = nullptr);
    ~ConfigurationForm() override;

    /// Where a file dialog for an empty field starts: the folder of the first existing one of
    /// the meta data, training data, eval data, BERT config, vocabulary, init checkpoint and
    /// model_dir (its parent folder) named in the form, else the home folder (never the
    /// program's working directory).
    QString startFolder() const;
    /// A message above the line under Start from ("startFromNote") until the next choice there,
    /// e.g. why the example starts from random weights. GUI thread.
    void setStartFromMessage(const QString &message);

    /// Returns the options shown, over those last set (options without a widget keep
    /// their values). Local workers count only with multi_worker_mirrored. A number field
    /// that does not parse gives NaN, which validation reports.
    TrainingOptions options() const;
    /// Shows `o`; emits nothing.
    void setOptions(const TrainingOptions &o);
    /// Sets every Hyperparameters option back to its default (files and strategy are kept)
    /// and emits edited().
    void resetToDefaults();
    /// Sets the path field `flag` (e.g. "train_data_path") as if typed; emits edited().
    void setPath(const QString &flag, const QString &path);
    /// Sets the field of the option `flag` (e.g. "learning_rate") to `text` (the option's
    /// text form, as on the command line) as if typed; emits edited(). Returns false, and
    /// changes nothing, when the option has no field or `text` does not parse.
    /// "pretrained_model" is chosen as chooseStartModel() does.
    bool setValue(const QString &flag, const QString &text);
    /// Chooses `value` under "Start from" as the user does from its list ("" random weights, a
    /// Hub id, a catalogue name or a local model folder) and applies it, as Hugging Face's
    /// from_pretrained does: a model's config, vocabulary and casing become the run's. BERT
    /// config, Vocabulary, the casing and Init checkpoint are emptied at once (Train would fill
    /// them from the model), then BERT config, Vocabulary and the casing get the model's files
    /// once they are on disk: found in the Hugging Face cache or downloaded, with the progress
    /// bar and Cancel of startModelDownload() under the picker; startModelFilled() follows.
    /// The line under the picker ("startFromNote") says which fields are the model's. Random
    /// weights keep the files shown (the same shape, trained from scratch). Emits edited().
    void chooseStartModel(const QString &value);
    /// The download under "Start from" (object name "modelDownload"; hidden when idle).
    ModelDownloadPanel *startModelDownload() const { return m_download; }
    /// Adds every non-empty path field to its recent-files list.
    void rememberPaths();

    /// The task shown (Classify text / Pretrain on text).
    FormTask task() const;
    /// Shows `task` and the fields it uses; emits taskChanged() (not edited()).
    void setTask(FormTask task);

    /// Shows `text` beside "Checkpoints kept" (the disk use of model_dir's checkpoints).
    void setCheckpointDiskUse(const QString &text);
    /// Marks the rows of the options `flags` (e.g. those named in a validation error) in red
    /// until the next edit; an empty list clears the marks.
    void highlightFields(const QStringList &flags);
    QStringList highlightedFields() const { return m_highlighted; }

    QComboBox *strategyPicker() const { return m_strategy; }
    /// The layout under the three groups, for panels that follow the form.
    QVBoxLayout *panelLayout() const { return m_layout; }

    /// The recent values stored under `key` in QSettings (newest first).
    static QStringList recentValues(const QString &key);
    /// Puts `value` first in the recent list `key` (at most 8 entries).
    static void addRecentValue(const QString &key, const QString &value);

protected:
    void resizeEvent(QResizeEvent *event) override;

Q_SIGNALS:
    /// The user changed a value (not emitted by setOptions()).
    void edited();
    /// bert_config_file or input_meta_data_path changed (also from setOptions()).
    void inputFilesChanged();
    /// The task changed (by the user, then edited() follows, or by setTask()).
    void taskChanged();
    /// BERT config, Vocabulary and the casing now hold the files of the model chosen under
    /// "Start from" (chooseStartModel or the list); edited() came before.
    void startModelFilled();

private:
    struct Binding
    {
        const OptionSpec *spec;
        std::function<void(const TrainingOptions &)> show;
        std::function<void(TrainingOptions &)> read;
        bool edited = false; ///< changed by the user since setOptions(): options() reads the widget
    };
    /// `index`: the binding's place in m_bindings (its editor's signals mark it edited).
    QWidget *createEditor(const OptionSpec &spec, Binding &binding, size_t index);
    // createEditor's kinds: an on/off check box, a choice box, a text field, an integer
    // field (NumberSpinBox over the member's type), a real field (spin box or text).
    QWidget *createCheckBox(const OptionSpec &spec, Binding &binding, size_t index);
    QWidget *createChoiceBox(const OptionSpec &spec, Binding &binding, size_t index);
    QWidget *createTextEdit(const OptionSpec &spec, Binding &binding, size_t index);
    QWidget *createIntegerEditor(const OptionSpec &spec, Binding &binding, size_t index);
    QWidget *createRealEditor(const OptionSpec &spec, Binding &binding, size_t index);
    QWidget *createPathEditor(const OptionSpec &spec, Binding &binding, size_t index);
    /// "Start from" (pretrained_model): an editable list of the catalogue's models.
    QWidget *createModelPicker(const OptionSpec &spec, Binding &binding, size_t index);
    void addRow(QFormLayout *form, const OptionSpec &spec, QWidget *editor);
    /// The line under "Start from": what the choice fills (startFromText of options()).
    void updateStartFromNote();

    /// A "Start from" choice: the fields it replaces and the fetch of the model's files.
    void applyStartModel(const QString &value);
    /// The chosen model's files are on disk: they fill BERT config, Vocabulary and the casing.
    void fillFromStartModel(const QString &source, const PretrainedModel &model);
    /// After setOptions: the loaded model's files from the cache only (never a download), for
    /// the line under the picker.
    void lookUpStartModel();
    /// Sets option `flag` to `text` ("" = not given) as loaded, not as edited: its field (if it
    /// has one) shows it and options() gives exactly `text`.
    void putValue(const char *flag, const std::string &text);
    /// A field changed: marks it edited (not while setOptions() fills the form) and emits edited().
    void fieldEdited(size_t index);
    /// Puts the file rows' fields under their labels when the pane is too narrow for a path.
    void updateFilesLayout();
    /// The task picker above the groups and its note.
    void buildTaskRow();
    /// Shows and enables the fields of the task chosen.
    void applyTask();

    std::vector<Binding> m_bindings;
    std::vector<QLineEdit *> m_pathEdits;
    TrainingOptions m_base;
    QComboBox *m_strategy = nullptr;
    QLabel *m_diskUse = nullptr;
    QLineEdit *m_learningRateEdit = nullptr; ///< learning_rate: empty follows the start (placeholder)
    QLabel *m_startFromNote = nullptr; ///< "startFromNote", under the "Start from" picker
    QComboBox *m_modelPicker = nullptr;  ///< "pretrained_model"
    ModelDownloadPanel *m_download = nullptr;
    QString m_pickerValue;             ///< the picker's value last seen (a cache mark changes only its text)
    QString m_appliedStartModel;       ///< the choice whose files fill the form (or are being fetched)
    std::shared_ptr<const PretrainedModel> m_startFiles; ///< m_appliedStartModel's files, once known
    QString m_startFromMessage;        ///< what the last choice did (downloaded, cancelled, failed)
    int m_startLookup = 0;             ///< the latest cache lookup; older answers are dropped
    std::vector<std::pair<QString, QLabel *>> m_labels; ///< flag → its row label
    QStringList m_highlighted;
    QVBoxLayout *m_layout = nullptr;
    QFormLayout *m_filesForm = nullptr;
    QComboBox *m_task = nullptr;       ///< "task"
    QLabel *m_taskNote = nullptr;      ///< "taskNote"
    QFormLayout *m_strategyForm = nullptr;
    QWidget *m_localWorkersRow = nullptr;
    bool m_loading = false;
};

} // namespace wb
