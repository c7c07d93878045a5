# SPDX-License-Identifier: Apache-2.0
# Training core (issue 4): model, init checkpoint, optimizer, metrics, checkpoints, trainer, CLI.
wb_add_test(tst_bertmodel NAME core.bertmodel SOURCES core/tst_bertmodel.cpp LIBS wb_core torch)
wb_add_test(tst_adamw NAME core.adamw SOURCES core/tst_adamw.cpp LIBS wb_core torch)
# Fused kernels of the training step (issue 28) against their plain formulas.
wb_add_test(tst_fusedops NAME core.fusedops SOURCES core/tst_fusedops.cpp LIBS wb_core torch)
wb_add_test(tst_fusedrows NAME core.fusedrows SOURCES core/tst_fusedrows.cpp LIBS wb_core torch)
# The inference forward pass on raw buffers gives the module's logits bit for bit (issue 49).
wb_add_test(tst_classifierinference NAME core.classifierinference SOURCES core/tst_classifierinference.cpp LIBS wb_core torch)
# Every instruction-set variant of the own vector loops gives the baseline's bits (any x86-64).
wb_add_test(tst_cpuvariants NAME core.cpuvariants SOURCES core/tst_cpuvariants.cpp LIBS wb_core torch)
wb_add_test(tst_evaluation NAME core.evaluation SOURCES core/tst_evaluation.cpp LIBS wb_core torch)
wb_add_test(tst_checkpointstate NAME core.checkpointstate SOURCES core/tst_checkpointstate.cpp LIBS wb_rundir)
wb_add_test(tst_metricswriter NAME core.metricswriter SOURCES core/tst_metricswriter.cpp LIBS wb_io)
wb_add_test(tst_initcheckpoint NAME core.initcheckpoint SOURCES core/tst_initcheckpoint.cpp LIBS wb_core torch)
# Weights as the Hub has them (issue 22): pytorch_model.bin read without running it, sharded checkpoints.
wb_add_test(tst_torchcheckpoint NAME core.torchcheckpoint SOURCES core/tst_torchcheckpoint.cpp LIBS wb_core torch)
# The one training loop (issue 42): a task of its own plugs in and gets checkpoints, resume, reports, stops.
wb_add_test(tst_trainingloop NAME core.trainingloop SOURCES core/tst_trainingloop.cpp LIBS wb_core torch TIMEOUT 120)
wb_add_test(tst_trainer NAME core.trainer SOURCES core/tst_trainer.cpp LIBS wb_core torch TIMEOUT 240)
# Multi-label classification (issue 45): sklearn's metrics, per-label thresholds, multi-hot records, a run end to end.
wb_add_test(tst_multilabel NAME core.multilabel SOURCES core/tst_multilabel.cpp LIBS wb_core torch TIMEOUT 240)
wb_add_test(tst_clitrain NAME cli.train SOURCES cli/tst_clitrain.cpp LIBS wb_cli TIMEOUT 120)
wb_add_test(tst_clirunreaders NAME cli.runreaders SOURCES cli/tst_clirunreaders.cpp LIBS wb_cli TIMEOUT 120)
# Issue 27: sweeps (the plan, sweep.json, resuming a sweep from the command line).
wb_add_test(tst_clisweep NAME cli.sweep SOURCES cli/tst_clisweep.cpp LIBS wb_cli TIMEOUT 180)
add_dependencies(tst_clisweep bert-workbench-cli) # --max_concurrent_runs starts it
# sweep.json holds only what the writer and the run flags can hold (found by fuzz_sweepfile).
wb_add_test(tst_sweepfile NAME core.sweepfile SOURCES core/tst_sweepfile.cpp LIBS wb_rundir)
# The one loop of a sweep (SweepDriver), its event lines, the seed groups it records, the
# in-process executor's stop rules.
wb_add_test(tst_sweepdriver NAME core.sweepdriver SOURCES core/tst_sweepdriver.cpp LIBS wb_rundir wb_launch)
# Number formats and gradient accumulation (issue 17).
wb_add_test(tst_precision NAME core.precision SOURCES core/tst_precision.cpp LIBS wb_core torch TIMEOUT 240)
wb_add_test(tst_memoryestimate NAME core.memoryestimate SOURCES core/tst_memoryestimate.cpp LIBS wb_config)
wb_add_test(tst_activationcheckpointing NAME core.activationcheckpointing SOURCES core/tst_activationcheckpointing.cpp LIBS wb_core torch TIMEOUT 240)
# A run owns its random state (issue 21 §2): resume continues the stream; other jobs on other
# threads (Try it, lr_find, the default generator) change nothing in a run.
wb_add_test(tst_runrandomness NAME core.runrandomness SOURCES core/tst_runrandomness.cpp LIBS wb_core torch TIMEOUT 240)
wb_add_test(tst_rundirformats NAME core.rundirformats SOURCES core/tst_rundirformats.cpp LIBS wb_rundir)
# Training dynamics (issue 46): the record-keeper and model_dir/training_dynamics.jsonl.
wb_add_test(tst_trainingdynamics NAME core.trainingdynamics SOURCES core/tst_trainingdynamics.cpp LIBS wb_rundir)
wb_add_test(tst_dynamicsrecording NAME core.dynamicsrecording SOURCES core/tst_dynamicsrecording.cpp LIBS wb_core torch TIMEOUT 240)
wb_add_test(tst_padding NAME core.padding SOURCES core/tst_padding.cpp LIBS wb_core torch TIMEOUT 240)
# The coach (issue 25 §3): each rule on a crafted metric stream, the note event's formats.
wb_add_test(tst_coach NAME core.coach SOURCES core/tst_coach.cpp LIBS wb_rundir)
# The learning-rate finder must not mislead (issue 25 §3): valley, min/10, flat/noisy curves.
wb_add_test(tst_lrfindanalysis NAME core.lrfindanalysis SOURCES core/tst_lrfindanalysis.cpp LIBS wb_rundir)
# Multi-label precision-recall curves and average precision against scikit-learn's numbers (issue 45).
wb_add_test(tst_prcurve NAME core.prcurve SOURCES core/tst_prcurve.cpp LIBS wb_rundir)
# Masked-LM pretraining (issue 24): heads, loss, records, both name schemes, the checkpoint format.
wb_add_test(tst_pretraining NAME core.pretraining SOURCES core/tst_pretraining.cpp LIBS wb_core torch TIMEOUT 120)
wb_add_test(tst_clipretrain NAME cli.pretrain SOURCES cli/tst_clipretrain.cpp LIBS wb_cli wb_core torch TIMEOUT 180)
# pretrain as a drop-in for run_pretraining.py (issue 41): create_pretraining_data.py's records, no meta file.
wb_add_test(tst_clirunpretraining NAME cli.runpretraining SOURCES cli/tst_clirunpretraining.cpp LIBS wb_cli wb_core torch
            TIMEOUT 120)
# Fill-in-the-blank (FillMaskPredictor, `fill_mask`) on a briefly pretrained tiny model.
wb_add_test(tst_fillmask NAME core.fillmask SOURCES core/tst_fillmask.cpp LIBS wb_cli wb_core torch TIMEOUT 180)
# The embedding view's data (issue 25): PCA, embeddings/step-N.safetensors, TensorBoard projector files.
wb_add_test(tst_embeddings NAME core.embeddings SOURCES core/tst_embeddings.cpp LIBS wb_rundir)
wb_add_test(tst_cliembeddings NAME cli.embeddings SOURCES cli/tst_cliembeddings.cpp LIBS wb_cli)
wb_add_test(tst_embeddingsrun NAME core.embeddingsrun SOURCES core/tst_embeddingsrun.cpp LIBS wb_core torch TIMEOUT 120)
