# Sharing a model (issue 26): the export folder (whole or not at all, model card, tokenizer.json).
wb_add_test(tst_hftokenizerjson NAME core.hftokenizerjson SOURCES core/tst_hftokenizerjson.cpp LIBS wb_data TIMEOUT 600)
wb_add_test(tst_cliexport NAME cli.export SOURCES cli/tst_cliexport.cpp LIBS wb_cli TIMEOUT 180)
add_dependencies(tst_cliexport bert-workbench-cli)
wb_add_test(tst_exportfolder NAME core.exportfolder SOURCES core/tst_exportfolder.cpp LIBS wb_core torch TIMEOUT 60)
# onnx/model.onnx: ONNX Runtime and transformers.js (npm, cached like the tokenizers test's) run the export.
wb_add_test(tst_onnxexport NAME cli.onnxexport SOURCES cli/tst_onnxexport.cpp LIBS wb_cli torch TIMEOUT 900)
# Multi-label (issue 45): classify, ONNX Runtime, transformers.js and the demo page agree on sigmoids and label sets.
wb_add_test(tst_multilabelexport NAME cli.multilabelexport SOURCES cli/tst_multilabelexport.cpp LIBS wb_cli torch TIMEOUT 900)
# export --demo: onnxruntime-web's files from a loopback npm registry serving the real tarball (npm pack).
wb_add_test(tst_onnxruntimeweb NAME core.onnxruntimeweb SOURCES core/tst_onnxruntimeweb.cpp LIBS wb_core torch TIMEOUT 300)
# --onnx_dtype int8 (issue 48): the graph's int8 initialisers against the documented rule, ONNX Runtime and classify against fp32.
wb_add_test(tst_onnxint8 NAME cli.onnxint8 SOURCES cli/tst_onnxint8.cpp LIBS wb_cli torch onnx onnx_proto protobuf::libprotobuf TIMEOUT 600)
