# SPDX-License-Identifier: Apache-2.0
# GUI: adapters (wb_uicore, QTEST_GUILESS_MAIN / APPLESS) and widgets (wb_ui, QTEST_MAIN, offscreen).
if(WB_BUILD_GUI)
  wb_add_test(tst_smoothing NAME ui.smoothing SOURCES ui/tst_smoothing.cpp LIBS wb_uicore)
  wb_add_test(tst_classmetrics NAME ui.classmetrics SOURCES ui/tst_classmetrics.cpp LIBS wb_uicore)
  # Issue 21: every option round-trips through the CLI, the form and the project file.
  wb_add_test(tst_projectfile NAME ui.projectfile SOURCES ui/tst_projectfile.cpp LIBS wb_ui wb_cli CLI11::CLI11 GUI)
  wb_add_test(tst_trainingcontroller NAME ui.trainingcontroller SOURCES ui/tst_trainingcontroller.cpp
              LIBS wb_uicore TIMEOUT 240)
  # Issue 6: "Local workers: N" runs bert-workbench-cli workers and plots the chief's curves.
  wb_add_test(tst_localworkers NAME ui.localworkers SOURCES ui/tst_localworkers.cpp LIBS wb_uicore TIMEOUT 300)
  add_dependencies(tst_localworkers bert-workbench-cli)
  # Issue 25: the embedding view (PCA points by label, mistakes, hover/click, step slider).
  wb_add_test(tst_embeddingview NAME ui.embeddingview SOURCES ui/tst_embeddingview.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 60)
  # Issue 46: the data map (confidence against variability per training example, regions, hover, slider, Try it).
  wb_add_test(tst_datamapview NAME ui.datamapview SOURCES ui/tst_datamapview.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 60)
  # Issue 46: the Suspects tab (rows, accept/reject/change into corrections.jsonl, Try it, Prepare with corrections).
  wb_add_test(tst_suspectstable NAME ui.suspectstable SOURCES ui/tst_suspectstable.cpp LIBS wb_ui GUI TIMEOUT 300)
  # Issue 47: the Label tab (20 texts labelled by key while the model retrains; a kill loses no label).
  wb_add_test(tst_labeltab NAME ui.labeltab SOURCES ui/tst_labeltab.cpp LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 120)
  wb_add_test(tst_lossplot NAME ui.lossplot SOURCES ui/tst_lossplot.cpp LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 120)
  wb_add_test(tst_mainwindow NAME ui.mainwindow SOURCES ui/tst_mainwindow.cpp LIBS wb_ui GUI TIMEOUT 180)
  # Issue 24: the task "Pretrain on text", its MLM curves and fill-in-the-blank Try it.
  wb_add_test(tst_pretrainwindow NAME ui.pretrainwindow SOURCES ui/tst_pretrainwindow.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 240)
  # Issue 16: the window asks before reusing a model_dir or dropping changes; a project knows its run.
  wb_add_test(tst_windowmanners NAME ui.windowmanners SOURCES ui/tst_windowmanners.cpp LIBS wb_ui GUI TIMEOUT 180)
  # Issue 27 "Runs": Resume after a restart, the form's model_dir is the run shown.
  wb_add_test(tst_windowruns NAME ui.windowruns SOURCES ui/tst_windowruns.cpp LIBS wb_ui GUI TIMEOUT 180)
  # Issue 27 "Help" and "Layout and polish": the tutorial in the window, What's This, the example as it was.
  wb_add_test(tst_windowhelp NAME ui.windowhelp SOURCES ui/tst_windowhelp.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 120)
  # The pretraining lesson from the start page (issue 24).
  wb_add_test(tst_lessonbutton NAME ui.lesson SOURCES ui/tst_lessonbutton.cpp LIBS wb_ui GUI TIMEOUT 180)
  # Issue 14: Try it classifies typed texts with the latest checkpoint, off the GUI thread.
  wb_add_test(tst_tryitpanel NAME ui.tryitpanel SOURCES ui/tst_tryitpanel.cpp LIBS wb_ui GUI TIMEOUT 300)
  # Issue 14: label names in the Evaluation tab, top losses and most-confused pairs.
  wb_add_test(tst_evaluationview NAME ui.evaluationview SOURCES ui/tst_evaluationview.cpp LIBS wb_ui GUI TIMEOUT 120)
  # Issue 45: Top losses of a multi-label run, all labels or one label's binary cross-entropy.
  wb_add_test(tst_toplossesmultilabel NAME ui.toplossesmultilabel SOURCES ui/tst_toplossesmultilabel.cpp LIBS wb_ui GUI
              TIMEOUT 60)
  # Issue 45: a multi-label run's label chooser, precision-recall curve with its two marks, per-label confusion at 0.5 and tuned.
  wb_add_test(tst_multilabelview NAME ui.multilabelview SOURCES ui/tst_multilabelview.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 120)
  # Issue 21: the wheel changes only a focused field; a loaded value comes back bit-identical.
  wb_add_test(tst_configurationform NAME ui.configurationform SOURCES ui/tst_configurationform.cpp LIBS wb_ui GUI
              TIMEOUT 60)
  # Issue 44: Start from fills the form from the chosen model; downloads with progress and Cancel; cached marks.
  wb_add_test(tst_startfrom NAME ui.startfrom SOURCES ui/tst_startfrom.cpp LIBS wb_ui OpenSSL::Crypto Threads::Threads GUI
              TIMEOUT 180)
  wb_add_test(tst_preparedatadialog NAME ui.preparedatadialog SOURCES ui/tst_preparedatadialog.cpp LIBS wb_ui GUI
              TIMEOUT 120)
  # Issue 44: Prepare Data's Start from and pretraining text reach the form; the example and the lesson in Recent projects.
  wb_add_test(tst_preparewindow NAME ui.preparewindow SOURCES ui/tst_preparewindow.cpp LIBS wb_ui GUI TIMEOUT 180)
  # Issue 14: Training → Find Learning Rate…, and the best-model / early-stopping fields of the form.
  wb_add_test(tst_lrfinddialog NAME ui.lrfinddialog SOURCES ui/tst_lrfinddialog.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 300)
  # Issue 26: File → Export Model… exports a tiny run off the GUI thread and says what it wrote, the
  # files `export` (wb_cli, in-process) writes of the same run.
  wb_add_test(tst_exportdialog NAME ui.exportdialog SOURCES ui/tst_exportdialog.cpp LIBS wb_ui wb_cli GUI
              TIMEOUT 300)
  # Issue 48: File → Distil Model… distils a tiny finished run (the teacher's pass off the GUI thread,
  # the form filled with the student's options, the student trained as Train trains).
  wb_add_test(tst_distildialog NAME ui.distildialog SOURCES ui/tst_distildialog.cpp LIBS wb_ui wb_cli GUI
              TIMEOUT 400)
  # One plan for every front-end: the CLI's train and the window's Train plan the same run (planRun).
  wb_add_test(tst_planrun NAME ui.planrun SOURCES ui/tst_planrun.cpp LIBS wb_ui wb_cli OpenSSL::Crypto Threads::Threads
              GUI TIMEOUT 180)
  # Issue 21 §2: a run trained while Try it classifies and the range test runs is the run alone.
  wb_add_test(tst_windowrandomness NAME ui.windowrandomness SOURCES ui/tst_windowrandomness.cpp
              LIBS wb_ui torch GUI TIMEOUT 300)
  # Issue 44 items 6, 10, 11: 1024×700 and first start, compared runs' colours, the empty plot,
  # the range test's buttons, the Log's end, the Embeddings' mistakes.
  wb_add_test(tst_windowfit NAME ui.windowfit SOURCES ui/tst_windowfit.cpp
              LIBS wb_ui QCustomPlotQt6::QCustomPlotQt6 GUI TIMEOUT 120)
  # Issue 27 "Runs": Compare runs, the run queue, seed groups.
  wb_add_test(tst_compareruns NAME ui.compareruns SOURCES ui/tst_compareruns.cpp LIBS wb_ui GUI TIMEOUT 120)
  add_dependencies(tst_compareruns bert-workbench-cli) # the Sweep dialog's runs at once
  # Issue 44 items 4 and 5: the Sweep view after a sweep, a sweep followed live, Group seeds.
  wb_add_test(tst_sweepwindow NAME ui.sweepwindow SOURCES ui/tst_sweepwindow.cpp LIBS wb_ui GUI TIMEOUT 300)
  add_dependencies(tst_sweepwindow bert-workbench-cli)
  # Issue 44 item 7: an early-stopped run that keeps its best says its end once, live and reopened.
  wb_add_test(tst_runendwindow NAME ui.runendwindow SOURCES ui/tst_runendwindow.cpp LIBS wb_ui GUI TIMEOUT 120)
  # Issue 44 item 8: no flag, cache folder or snapshot commit on screen after a class's first actions.
  wb_add_test(tst_windowwords NAME ui.windowwords SOURCES ui/tst_windowwords.cpp LIBS wb_ui OpenSSL::Crypto Threads::Threads
              GUI TIMEOUT 120)
endif()
