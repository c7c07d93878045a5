# Data layer (issue 3): TFRecord, Example codec, dataset, tokenizer, data preparation.
wb_add_test(tst_tfrecord NAME core.tfrecord SOURCES core/tst_tfrecord.cpp LIBS wb_data)
wb_add_test(tst_classifierdataset NAME core.classifierdataset SOURCES core/tst_classifierdataset.cpp LIBS wb_data)
wb_add_test(tst_tokenizer NAME core.tokenizer SOURCES core/tst_tokenizer.cpp LIBS wb_data)
wb_add_test(tst_dataprep NAME core.dataprep SOURCES core/tst_dataprep.cpp LIBS wb_data)
# Multi-label data (issue 45): the four readings, the iterative split, the report, the errors.
wb_add_test(tst_dataprepmultilabel NAME core.dataprep.multilabel SOURCES core/tst_dataprepmultilabel.cpp LIBS wb_data)
# A run's data files are hashed once while unchanged (run_config.json data_files).
wb_add_test(tst_sha256cache NAME core.sha256cache SOURCES core/tst_sha256cache.cpp LIBS wb_data)
wb_add_test(tst_cliprepare NAME cli.prepare SOURCES cli/tst_cliprepare.cpp LIBS wb_cli)
wb_add_test(tst_textrows NAME core.textrows SOURCES core/tst_textrows.cpp LIBS wb_data)
wb_add_test(tst_preparerows NAME core.preparerows SOURCES core/tst_preparerows.cpp LIBS wb_data)
# One column reader for prepare and classify (issue 23, kind 2): csv, tsv, jsonl, json, lines.
wb_add_test(tst_textinput NAME core.textinput SOURCES core/tst_textinput.cpp LIBS wb_data)
wb_add_test(tst_datapaths NAME core.datapaths SOURCES core/tst_datapaths.cpp LIBS wb_data)
add_dependencies(tst_cliprepare bert-workbench-cli)
# Errors never escape the CLI (issue 11): example with an unwritable cache, exception conversion.
wb_add_test(tst_cliexample NAME cli.example SOURCES cli/tst_cliexample.cpp LIBS wb_cli TIMEOUT 60)
# Pretraining data (issue 24): masking, records, the streaming prepare_pretraining.
wb_add_test(tst_mlmmasking NAME core.mlmmasking SOURCES core/tst_mlmmasking.cpp LIBS wb_data)
wb_add_test(tst_pretrainingdata NAME core.pretrainingdata SOURCES core/tst_pretrainingdata.cpp LIBS wb_data)
# Lines longer than the reader's 1 MiB limit are cut between tokens, counted and reported (issue 41, kind 3).
wb_add_test(tst_pretraininglonglines NAME core.pretraininglonglines SOURCES core/tst_pretraininglonglines.cpp LIBS wb_data)
wb_add_test(tst_clipreparepretraining NAME cli.preparepretraining SOURCES cli/tst_clipreparepretraining.cpp LIBS wb_cli)
add_dependencies(tst_clipreparepretraining bert-workbench-cli)
# The pretraining lesson of the example (issue 24): its data, and the lesson command end to end.
wb_add_test(tst_pretraininglesson NAME core.pretraininglesson SOURCES core/tst_pretraininglesson.cpp LIBS wb_data)
wb_add_test(tst_clilesson NAME cli.lesson SOURCES cli/tst_clilesson.cpp LIBS wb_cli TIMEOUT 120)
# The bag-of-words baseline (issue 25: TF-IDF + liblinear logistic regression, prepare_report.json).
wb_add_test(tst_bagofwords NAME core.bagofwords SOURCES core/tst_bagofwords.cpp LIBS wb_data)
# Issue 27 "Data": e-mail bodies; the stratified, recorded and reusable split; labels inside the text.
wb_add_test(tst_emailbody NAME core.emailbody SOURCES core/tst_emailbody.cpp LIBS wb_data)
wb_add_test(tst_preparesplit NAME core.preparesplit SOURCES core/tst_preparesplit.cpp LIBS wb_data)
