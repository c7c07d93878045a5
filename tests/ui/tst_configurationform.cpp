// SPDX-License-Identifier: Apache-2.0
// The form shows and keeps exactly the values it was given (issue 21, offscreen): the mouse wheel
// changes a field only after the user focused it (in the form and in the dialogs), and a loaded
// value comes back bit-identical from options() until the user edits its field.
#include "core/config/optiontable.h"
#include "ui/form/configurationform.h"
#include "ui/dialogs/lrfinddialog.h"
#include "ui/dialogs/preparedatadialog.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSignalSpy>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtTest>

#include <cstring>
#include <limits>

using namespace wb;

namespace {

/// Sends `notches` notches of the mouse wheel (negative: down, towards smaller values) to the
/// centre of `w`, as the window system does with the pointer over it. Returns whether the event
/// ended accepted (false: Qt hands it on to the parent, e.g. the scroll area).
bool sendWheel(QWidget *w, int notches = -1)
{
    const QPointF pos(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
    return e.isAccepted();
}

/// Every option of `o` as "flag=text" in the table's order. text() writes reals in their shortest
/// round-trip form, so two lists are equal exactly when every value is bit-identical.
QStringList allText(const TrainingOptions &o)
{
    QStringList list;
    for (const OptionSpec &spec : optionTable())
        list << QStringLiteral("%1=%2").arg(QLatin1String(spec.flag), QString::fromStdString(spec.text(o)));
    return list;
}

uint64_t bits(double v)
{
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// What a field shows: a spin box's or line edit's text, a combo box's current text.
QString shown(const QWidget *field)
{
    if (auto *spin = qobject_cast<const QAbstractSpinBox *>(field))
        return spin->text();
    if (auto *combo = qobject_cast<const QComboBox *>(field))
        return combo->currentText();
    if (auto *edit = qobject_cast<const QLineEdit *>(field))
        return edit->text();
    return QStringLiteral("<not a field>");
}

} // namespace

class tst_ConfigurationForm : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wheelNeedsFocus_data();
    void wheelNeedsFocus();
    void windowFocusIsNotTheUsers();
    void dialogWheelNeedsFocus();
    void lrFindDialogShowsExactValues();
    void rebuiltFieldsAreGuarded();
    void loadedValuesComeBackExactly();
    void editedFieldGivesItsValue();
    void startFromOffersTheCatalogue();
};

void tst_ConfigurationForm::wheelNeedsFocus_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("afterWheel"); // the option's text after one notch down with focus
    QTest::newRow("seed (spin box)") << QStringLiteral("seed") << QStringLiteral("41");
    QTest::newRow("train_batch_size (spin box)") << QStringLiteral("train_batch_size") << QStringLiteral("31");
    QTest::newRow("num_train_epochs (spin box)") << QStringLiteral("num_train_epochs") << QStringLiteral("2");
    QTest::newRow("warmup_fraction (real spin box)") << QStringLiteral("warmup_fraction") << QStringLiteral("0.05");
    QTest::newRow("dtype (choice box)") << QStringLiteral("dtype") << QStringLiteral("bf16");
    QTest::newRow("distribution_strategy (choice box)") << QStringLiteral("distribution_strategy")
                                                        << QStringLiteral("mirrored");
}

/// Scrolling the form over a field that has no focus changes nothing and leaves the wheel to
/// the scroll area; after a click (focus) the same notch changes the field.
void tst_ConfigurationForm::wheelNeedsFocus()
{
    QFETCH(QString, flag);
    QFETCH(QString, afterWheel);
    auto *form = new ConfigurationForm;
    QScrollArea scroll; // as in the window: the form scrolls
    scroll.setWidget(form);
    scroll.setWidgetResizable(true);
    scroll.resize(520, 400);
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    form->setOptions(o);
    scroll.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroll));
    QSignalSpy edited(form, &ConfigurationForm::edited);

    QWidget *field = form->findChild<QWidget *>(flag);
    QVERIFY(field);
    const QStringList before = allText(form->options());
    const QString shownBefore = shown(field);
    const bool accepted = sendWheel(field);
    sendWheel(field, 3);
    QCOMPARE(allText(form->options()), before);
    QCOMPARE(shown(field), shownBefore);
    QCOMPARE(edited.count(), 0); // the window is not marked modified
    QVERIFY2(!accepted, "an unfocused field must leave the wheel to the scroll area");
    QCOMPARE(field->focusPolicy(), Qt::StrongFocus); // a wheel over it does not focus it either

    scroll.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&scroll));
    form->findChild<QWidget *>(QStringLiteral("resetDefaults"))->setFocus(Qt::TabFocusReason);
    field->setFocus(Qt::TabFocusReason); // the user tabs into the field
    QVERIFY(field->hasFocus());
    QVERIFY(sendWheel(field));
    const OptionSpec *spec = findOption(flag.toStdString());
    QVERIFY(spec);
    QCOMPARE(QString::fromStdString(spec->text(form->options())), afterWheel);
    QVERIFY(edited.count() >= 1);
}

/// The first field gets focus when the window is shown; the user has not chosen it, so the
/// wheel scrolls past it too (a new project's strategy stayed unset only until the first scroll).
void tst_ConfigurationForm::windowFocusIsNotTheUsers()
{
    auto *form = new ConfigurationForm;
    QScrollArea scroll;
    scroll.setWidget(form);
    scroll.setWidgetResizable(true);
    scroll.show();
    scroll.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&scroll));
    QSignalSpy edited(form, &ConfigurationForm::edited);
    // The first field, the task, has the focus the window gave: the wheel scrolls past it.
    auto *task = form->findChild<QComboBox *>(QStringLiteral("task"));
    QCOMPARE(QApplication::focusWidget(), task); // given by the window, not by a click
    QVERIFY(!sendWheel(task));
    QCOMPARE(form->task(), FormTask::Classify);
    QComboBox *strategy = form->strategyPicker();
    QCOMPARE(strategy->currentIndex(), -1);
    const bool accepted = sendWheel(strategy);
    QCOMPARE(strategy->currentIndex(), -1);
    QCOMPARE(form->options().distribution_strategy, std::string());
    QCOMPARE(edited.count(), 0);
    QVERIFY(!accepted);

    // A click into the field that already has focus is the user's choice.
    QMouseEvent press(QEvent::MouseButtonPress, QPointF(2, 2), strategy->mapToGlobal(QPointF(2, 2)), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(strategy, &press);
    QApplication::processEvents();
    if (QWidget *popup = QApplication::activePopupWidget())
        popup->close();
    strategy->setFocus(Qt::MouseFocusReason);
    QVERIFY(strategy->hasFocus());
    QVERIFY(sendWheel(strategy));
    QCOMPARE(strategy->currentIndex(), 0);
    QCOMPARE(form->options().distribution_strategy, std::string("one_device"));
}

/// The same rule in a dialog: Prepare Data's fields and the range test's step count.
void tst_ConfigurationForm::dialogWheelNeedsFocus()
{
    PrepareDataDialog d;
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    for (const char *name : {"format", "maxSeqLength", "evalFraction"}) {
        QWidget *field = d.findChild<QWidget *>(QLatin1String(name));
        QVERIFY2(field, name);
        const QString before = shown(field);
        const bool accepted = sendWheel(field);
        QCOMPARE(shown(field), before);
        QVERIFY2(!accepted, name);
        QCOMPARE(field->focusPolicy(), Qt::StrongFocus);
    }
    d.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&d));
    auto *maxSeq = d.findChild<QAbstractSpinBox *>(QStringLiteral("maxSeqLength"));
    maxSeq->setFocus(Qt::MouseFocusReason);
    QVERIFY(maxSeq->hasFocus());
    QVERIFY(sendWheel(maxSeq));
    QCOMPARE(maxSeq->text(), QStringLiteral("127"));

    ConfigurationForm form;
    LrFindDialog lr(&form);
    lr.show();
    QVERIFY(QTest::qWaitForWindowExposed(&lr));
    QWidget *steps = lr.findChild<QWidget *>(QStringLiteral("lr_find_steps"));
    QVERIFY(steps);
    const QString before = shown(steps);
    const bool accepted = sendWheel(steps);
    QCOMPARE(shown(steps), before);
    QVERIFY(!accepted);
    QCOMPARE(steps->focusPolicy(), Qt::StrongFocus);
}

/// The range test's fields show the form's values as they are: a start rate with 17 digits
/// (was 'g', 6), a step count above the field's range (was clamped to 100000).
void tst_ConfigurationForm::lrFindDialogShowsExactValues()
{
    ConfigurationForm form;
    TrainingOptions o;
    o.lr_find_start = 1.2345678901234567e-7;
    o.lr_find_end = 0.33333333333333331;
    o.lr_find_steps = 250000;
    form.setOptions(o);
    LrFindDialog lr(&form);
    // The shortest text that reads back to the same double (Python's repr() gives the same).
    QCOMPARE(shown(lr.findChild<QWidget *>(QStringLiteral("lr_find_start"))), QStringLiteral("1.2345678901234566e-07"));
    QCOMPARE(shown(lr.findChild<QWidget *>(QStringLiteral("lr_find_end"))), QStringLiteral("0.3333333333333333"));
    QCOMPARE(shown(lr.findChild<QWidget *>(QStringLiteral("lr_find_steps"))), QStringLiteral("250000"));
}

/// A field created after the form or dialog was built (a panel rebuilt later) is guarded too.
void tst_ConfigurationForm::rebuiltFieldsAreGuarded()
{
    auto *form = new ConfigurationForm;
    QScrollArea scroll;
    scroll.setWidget(form);
    scroll.setWidgetResizable(true);
    scroll.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroll));
    auto *later = new QComboBox;
    later->addItems({QStringLiteral("a"), QStringLiteral("b")});
    form->panelLayout()->addWidget(later);
    later->show();
    const bool accepted = sendWheel(later);
    QCOMPARE(later->currentIndex(), 0);
    QVERIFY(!accepted);
    QCOMPARE(later->focusPolicy(), Qt::StrongFocus);
}

/// Values no widget could show before: a seed above INT_MAX (was 0), reals with more digits
/// than 'g', 6 (the learning rate) or than the spin boxes' decimals (weight decay, warmup).
void tst_ConfigurationForm::loadedValuesComeBackExactly()
{
    ConfigurationForm form;
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.seed = 5000000000;
    o.learning_rate = 2.123456789e-5;
    o.weight_decay_rate = 0.0123456789;
    o.warmup_fraction = 0.123456789;
    o.end_lr = 1.2345678901234567e-7;
    o.train_data_size = int64_t(9000000000);
    form.setOptions(o);

    const TrainingOptions back = form.options();
    QCOMPARE(back.seed, int64_t(5000000000));
    QCOMPARE(bits(*back.learning_rate), bits(2.123456789e-5));
    QCOMPARE(bits(back.weight_decay_rate), bits(0.0123456789));
    QCOMPARE(bits(back.warmup_fraction), bits(0.123456789));
    QCOMPARE(bits(back.end_lr), bits(1.2345678901234567e-7));
    QCOMPARE(back.train_data_size, std::optional<int64_t>(9000000000));
    QCOMPARE(allText(back), allText(o));

    // And the fields show them, digit for digit.
    QCOMPARE(shown(form.findChild<QWidget *>(QStringLiteral("seed"))), QStringLiteral("5000000000"));
    QCOMPARE(shown(form.findChild<QWidget *>(QStringLiteral("learning_rate"))), QStringLiteral("2.123456789e-05"));
    QCOMPARE(shown(form.findChild<QWidget *>(QStringLiteral("weight_decay_rate"))), QStringLiteral("0.0123456789"));
    QCOMPARE(shown(form.findChild<QWidget *>(QStringLiteral("warmup_fraction"))), QStringLiteral("0.123456789"));
    QCOMPARE(shown(form.findChild<QWidget *>(QStringLiteral("train_data_size"))), QStringLiteral("9000000000"));

    // A value outside the form's range (a project written by hand) is shown and kept as is;
    // validation, not the widget, reports it.
    o.num_train_epochs = 123456;
    o.seed = std::numeric_limits<int64_t>::max();
    form.setOptions(o);
    QCOMPARE(form.options().num_train_epochs, int64_t(123456));
    QCOMPARE(form.options().seed, std::numeric_limits<int64_t>::max());
    QCOMPARE(shown(form.findChild<QWidget *>(QStringLiteral("num_train_epochs"))), QStringLiteral("123456"));
}

/// An edited field gives exactly what the user typed or stepped to; the others keep theirs.
void tst_ConfigurationForm::editedFieldGivesItsValue()
{
    ConfigurationForm form;
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.learning_rate = 2.123456789e-5;
    o.warmup_fraction = 0.123456789;
    o.seed = 5000000000;
    form.setOptions(o);
    QSignalSpy edited(&form, &ConfigurationForm::edited);

    auto *lr = form.findChild<QLineEdit *>(QStringLiteral("learning_rate"));
    QVERIFY(lr);
    lr->selectAll();
    QTest::keyClicks(lr, QStringLiteral("3.0000000000000001e-5"));
    auto *seed = form.findChild<QAbstractSpinBox *>(QStringLiteral("seed"));
    seed->stepUp();
    auto *epochs = form.findChild<QAbstractSpinBox *>(QStringLiteral("num_train_epochs"));
    epochs->selectAll();
    QTest::keyClicks(epochs, QStringLiteral("12"));
    auto *keep = form.findChild<QAbstractSpinBox *>(QStringLiteral("keep_checkpoint_max"));
    keep->selectAll();
    QTest::keyClicks(keep, QStringLiteral("all")); // the text 0 shows
    auto *warmup = form.findChild<QAbstractSpinBox *>(QStringLiteral("warmup_fraction"));
    warmup->stepUp(); // 0.123456789 + 0.05, rounded to the field's 2 decimals (as the box always did)
    QVERIFY(edited.count() >= 5);

    const TrainingOptions back = form.options();
    QCOMPARE(bits(*back.learning_rate), bits(3.0000000000000001e-5));
    QCOMPARE(back.seed, int64_t(5000000001));
    QCOMPARE(bits(back.warmup_fraction), bits(0.17));
    QCOMPARE(back.num_train_epochs, int64_t(12));
    QCOMPARE(back.keep_checkpoint_max, 0);
    QCOMPARE(epochs->text(), QStringLiteral("12"));
    TrainingOptions expected = o;
    expected.learning_rate = back.learning_rate;
    expected.seed = back.seed;
    expected.warmup_fraction = back.warmup_fraction;
    expected.num_train_epochs = 12;
    expected.keep_checkpoint_max = 0;
    QCOMPARE(allText(back), allText(expected));
}

/// "Start from" (issue 22): random weights, a model of the catalogue, or any Hub id or folder typed.
void tst_ConfigurationForm::startFromOffersTheCatalogue()
{
    ConfigurationForm form;
    auto *combo = form.findChild<QComboBox *>(QStringLiteral("pretrained_model"));
    QVERIFY(combo);
    QVERIFY(combo->isEditable());
    QCOMPARE(combo->itemText(0), QStringLiteral("random weights"));
    QCOMPARE(combo->count(), 31); // random weights + the 30 models of the catalogue
    QVERIFY(combo->findData(QStringLiteral("google-bert/bert-base-uncased")) > 0);

    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.pretrained_model = "google/bert_uncased_L-2_H-128_A-2";
    form.setOptions(o);
    QCOMPARE(combo->currentText(), QStringLiteral("BERT-Tiny (google/bert_uncased_L-2_H-128_A-2)"));
    QCOMPARE(form.options().pretrained_model, o.pretrained_model);
    // The line under the picker says what the choice fills; the fields themselves stay as given.
    auto *note = form.findChild<QLabel *>(QStringLiteral("startFromNote"));
    QVERIFY(note);
    QCOMPARE(note->text(), QStringLiteral("config, vocab, casing and weights from google/bert_uncased_L-2_H-128_A-2"));
    form.setPath(QStringLiteral("bert_config_file"), QStringLiteral("/data/my_config.json"));
    QCOMPARE(note->text(), QStringLiteral("vocab, casing and weights from google/bert_uncased_L-2_H-128_A-2; as given: BERT config"));
    form.setPath(QStringLiteral("vocab_file"), QStringLiteral("/data/my_vocab.txt"));
    QCOMPARE(note->text(), QStringLiteral("casing and weights from google/bert_uncased_L-2_H-128_A-2; as given: BERT config, "
                                          "Vocabulary"));
    const TrainingOptions shown = form.options();
    QCOMPARE(shown.bert_config_file, std::string("/data/my_config.json"));
    QCOMPARE(shown.vocab_file, std::string("/data/my_vocab.txt"));
    QCOMPARE(shown.init_checkpoint, std::string()); // filled at Train (applyPretrainedModel), never in the form
    QCOMPARE(shown.do_lower_case, std::string());
    form.setOptions(o);
    QCOMPARE(note->text(), QStringLiteral("config, vocab, casing and weights from google/bert_uncased_L-2_H-128_A-2"));
    // An empty learning rate follows the start; its placeholder says which rate that is.
    auto *lr = form.findChild<QLineEdit *>(QStringLiteral("learning_rate"));
    QVERIFY(lr);
    QCOMPARE(lr->text(), QString());
    QCOMPARE(lr->placeholderText(), QStringLiteral("5e-05 (pretrained)"));
    QVERIFY(!form.options().learning_rate);

    // The user picks random weights: the option is empty.
    combo->setFocus(Qt::TabFocusReason);
    combo->setCurrentIndex(0);
    QCOMPARE(form.options().pretrained_model, std::string());
    QCOMPARE(note->text(), QStringLiteral("Random weights: the model config and the vocabulary are the files below."));
    QCOMPARE(lr->placeholderText(), QStringLiteral("5e-04 (from scratch)"));
    QVERIFY(!form.options().learning_rate); // the form never fills it in
    // A Hub id of the user's own is kept as typed.
    combo->setEditText(QStringLiteral("my-org/my-bert@v2"));
    QCOMPARE(form.options().pretrained_model, std::string("my-org/my-bert@v2"));
    // A project's own id, not in the catalogue, is shown and given back as it is.
    o.pretrained_model = "/data/models/bert-legal";
    form.setOptions(o);
    QCOMPARE(combo->currentText(), QStringLiteral("/data/models/bert-legal"));
    QCOMPARE(form.options().pretrained_model, o.pretrained_model);
}

QTEST_MAIN(tst_ConfigurationForm)
#include "tst_configurationform.moc"
