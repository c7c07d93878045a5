# SPDX-License-Identifier: Apache-2.0
# Teaching (issue 14): label names, eval examples, best model and early stopping, lr_find,
# classify and the stand-alone (Hugging Face-loadable) export.
wb_add_test(tst_teaching NAME core.teaching SOURCES core/tst_teaching.cpp LIBS wb_core)
wb_add_test(tst_teachrun NAME cli.teachrun SOURCES cli/tst_teachrun.cpp LIBS wb_cli torch TIMEOUT 300)
# Try-out findings: classify --input_file with a folder, a binary or an empty file.
wb_add_test(tst_cliclassifyinput NAME cli.classifyinput SOURCES cli/tst_cliclassifyinput.cpp LIBS wb_cli)
# Issue 23 (kinds 2, 3): a run's casing recorded, inferred, exported and compared on resume;
# classify reads .jsonl/.json records by key.
wb_add_test(tst_clitextcasing NAME cli.textcasing SOURCES cli/tst_clitextcasing.cpp LIBS wb_cli torch TIMEOUT 120)
# Issue 46: the suspects (probably mislabelled training examples), the corrections file, and the
# relabel loop on the command line (suspects --accept, then prepare --corrections_file --split_file).
wb_add_test(tst_suspects NAME core.suspects SOURCES core/tst_suspects.cpp LIBS wb_rundir)
wb_add_test(tst_corrections NAME core.corrections SOURCES core/tst_corrections.cpp LIBS wb_data)
wb_add_test(tst_clisuspects NAME cli.suspects SOURCES cli/tst_clisuspects.cpp LIBS wb_cli TIMEOUT 60)
# Issue 47 (label to learn): the labels file (saved as made, surviving a kill; read by prepare) and the
# queue of what to label next (margin sampling + greedy k-centre; the seeded random order).
wb_add_test(tst_labelstore NAME core.labelstore SOURCES core/tst_labelstore.cpp LIBS wb_data)
wb_add_test(tst_labelqueue NAME core.labelqueue SOURCES core/tst_labelqueue.cpp LIBS wb_data)
# The curve's drawn points and when more labels stopped helping (the Label tab's note).
wb_add_test(tst_labelcurve NAME core.labelcurve SOURCES core/tst_labelcurve.cpp LIBS wb_data)
# The pool (reading texts, ids, the held-out rule), label_session.json, curve.jsonl and the plan of
# what is shown next; one cycle (prepare, train, rescore) and the simulated annotator on a tiny BERT.
wb_add_test(tst_labelsession NAME core.labelsession SOURCES core/tst_labelsession.cpp LIBS wb_data)
wb_add_test(tst_labelcycle NAME cli.labelcycle SOURCES cli/tst_labelcycle.cpp LIBS wb_cli TIMEOUT 300)
# Distillation (issue 48): teacher_logits records, the loss formula, `distil` end to end on a tiny BERT.
wb_add_test(tst_distil NAME cli.distil SOURCES cli/tst_distil.cpp LIBS wb_cli torch TIMEOUT 300)
add_dependencies(tst_distil bert-workbench-cli)
