# SPDX-License-Identifier: Apache-2.0
# The layering rule of core/ (see core/CMakeLists.txt): a folder includes only itself and
# folders of a lower rank; folders of the same rank do not include each other. Also: no Qt
# anywhere in core/, and no libtorch in the torch-free folders. A project header is always
# spelled from the repository root ("core/launch/trainer.h"), never relative ("../x.h").
# Above core: ui/ includes no libtorch header and no core header that pulls one in (directly
# or through other core headers), and nothing of app/; app/ includes no libtorch header
# (the CLI and the window use the torch-free facades), and app/cli nothing of ui/ or Qt
# Widgets; core/ includes nothing of ui/ or app/.
# Run: cmake -DWB_SOURCE_DIR=<repo root> -P tests/layering/check_layers.cmake
# Prints one line per violation ("core/io/x.h:3: core/io includes core/engine (rank 8 >= 5)")
# and fails when there is any.
cmake_minimum_required(VERSION 3.16)
if(NOT WB_SOURCE_DIR)
  message(FATAL_ERROR "pass -DWB_SOURCE_DIR=<repository root>")
endif()

# A folder per job (docs/architecture.md, "Folders by job"); equal ranks never include each other.
set(rank_util 0)
set(rank_events 1)
set(rank_config 2)
set(rank_tokenize 3)  # basic and WordPiece tokenizers, vocab, casing
set(rank_hub 3)       # the Hub client: util/events/config only (others read the files it leaves)
set(rank_kernels 3)   # fused ops, row kernels, oneDNN products
set(rank_weights 3)   # weights files without libtorch: safetensors, pickles, TF bundles, names
set(rank_distribute 3)
set(rank_data 4)      # records and datasets
set(rank_prepare 5)   # raw text to records, reports, the bag-of-words baseline, the example
set(rank_io 5)        # event files, metrics, TensorBoard
set(rank_corpus 6)    # raw text to pretraining records (prepare_pretraining), the pretraining lesson
set(rank_model 6)     # BertModel, its heads, loading an init checkpoint into it
set(rank_advice 6)    # RunFacts, the coach, lr_find's analysis
set(rank_label 6)     # label to learn: the labels file, the queue of what to label next (issue 47)
set(rank_formats 7)   # the files of a model_dir and of a sweep, the export folder
set(rank_engine 8)    # the loop and its tasks, pre-flight, prepareRun, checkpoints, lr_find
set(rank_export 9)    # the export folder's contents: weights, ONNX, model card, demo page
set(rank_infer 10)    # TextClassifier, fill-mask, attributions
set(rank_launch 11)   # Trainer, runPlanned, local workers, executors
set(rank_learn 12)    # label to learn's cycle (prepare, train, rescore) and the simulated annotator (issue 47)
set(rank_distil 12)   # distillation's data: the teacher's outputs on its records and the transfer texts (issue 48)
set(torch_free util events config tokenize hub weights data prepare corpus io advice label formats launch learn distil)

file(GLOB_RECURSE files RELATIVE ${WB_SOURCE_DIR} ${WB_SOURCE_DIR}/core/*.h ${WB_SOURCE_DIR}/core/*.cpp)
set(violations 0)
foreach(f ${files})
  string(REGEX MATCH "^core/([a-z]+)/" _m "${f}")
  set(dir "${CMAKE_MATCH_1}")
  if(NOT DEFINED rank_${dir})
    message("${f}: core/${dir} is not a known layer (add it to tests/layering/check_layers.cmake)")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  file(STRINGS ${WB_SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${lines})
    if(line MATCHES "#[ \t]*include[ \t]*\"core/([a-z]+)/")
      set(to "${CMAKE_MATCH_1}")
      if(NOT to STREQUAL dir)
        if(NOT DEFINED rank_${to})
          message("${f}: includes core/${to}, which is not a known layer")
          math(EXPR violations "${violations} + 1")
        elseif(NOT rank_${to} LESS rank_${dir})
          message("${f}: core/${dir} includes core/${to} (rank ${rank_${to}} >= ${rank_${dir}}): ${line}")
          math(EXPR violations "${violations} + 1")
        endif()
      endif()
    elseif(line MATCHES "#[ \t]*include[ \t]*<Q")
      message("${f}: core/ must not include Qt: ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(line MATCHES "#[ \t]*include[ \t]*<(torch|ATen|c10)/" AND dir IN_LIST torch_free)
      message("${f}: core/${dir} is torch-free: ${line}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH files n)

# --- relative spellings, and core/ reaching up into ui/ or app/ ----------------------------
file(GLOB_RECURSE all_files RELATIVE ${WB_SOURCE_DIR} ${WB_SOURCE_DIR}/core/*.h ${WB_SOURCE_DIR}/core/*.cpp
     ${WB_SOURCE_DIR}/ui/*.h ${WB_SOURCE_DIR}/ui/*.cpp ${WB_SOURCE_DIR}/app/*.h ${WB_SOURCE_DIR}/app/*.cpp)
foreach(f ${all_files})
  file(STRINGS ${WB_SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${lines})
    if(line MATCHES "#[ \t]*include[ \t]*\"\\.\\.?/")
      message("${f}: spell project headers from the repository root, not relative: ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(f MATCHES "^core/" AND line MATCHES "#[ \t]*include[ \t]*\"(ui|app)/")
      message("${f}: core/ must not include ${CMAKE_MATCH_1}/: ${line}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

# --- which core headers pull in libtorch (directly, or through other core headers) ---------
file(GLOB_RECURSE core_headers RELATIVE ${WB_SOURCE_DIR} ${WB_SOURCE_DIR}/core/*.h)
set(torch_headers "")
foreach(h ${core_headers})
  file(STRINGS ${WB_SOURCE_DIR}/${h} lines REGEX "^[ \t]*#[ \t]*include[ \t]*<(torch|ATen|c10)/")
  if(lines)
    list(APPEND torch_headers ${h})
  endif()
endforeach()
set(changed TRUE)
while(changed)
  set(changed FALSE)
  foreach(h ${core_headers})
    if(h IN_LIST torch_headers)
      continue()
    endif()
    file(STRINGS ${WB_SOURCE_DIR}/${h} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"core/")
    foreach(line ${lines})
      if(line MATCHES "\"(core/[^\"]+)\"" AND CMAKE_MATCH_1 IN_LIST torch_headers)
        list(APPEND torch_headers ${h})
        set(changed TRUE)
        break()
      endif()
    endforeach()
  endforeach()
endwhile()

# --- ui/ and app/ ----------------------------------------------------------------------------
# ui's rooms in ranks (docs/architecture.md, Layers): a room includes only rooms of a lower rank, so no two rooms
# include each other (the runs table tells the window what to overlay; it never holds the plot).
set(ui_rank_common 0)
set(ui_rank_form 1)
set(ui_rank_runs 2)
set(ui_rank_evaluation 2)
set(ui_rank_tryit 2)
set(ui_rank_dialogs 2)
set(ui_rank_label 2)   # the Label tab (issue 47): includes common and form
set(ui_rank_plot 3)
set(ui_rank_window 9)
file(GLOB_RECURSE front_files RELATIVE ${WB_SOURCE_DIR} ${WB_SOURCE_DIR}/ui/*.h ${WB_SOURCE_DIR}/ui/*.cpp
     ${WB_SOURCE_DIR}/app/*.h ${WB_SOURCE_DIR}/app/*.cpp)
foreach(f ${front_files})
  set(from "") # the ui room of f, when it has a rank
  if(f MATCHES "^ui/([a-z]+)/")
    if(DEFINED ui_rank_${CMAKE_MATCH_1})
      set(from ${CMAKE_MATCH_1})
    else()
      message("${f}: ui/${CMAKE_MATCH_1}/ is a room without a rank: give it one above")
      math(EXPR violations "${violations} + 1")
    endif()
  endif()
  file(STRINGS ${WB_SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${lines})
    if(line MATCHES "#[ \t]*include[ \t]*<(torch|ATen|c10)/")
      message("${f}: the front-ends include no libtorch header (use a torch-free core facade): ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(line MATCHES "\"(core/[^\"]+)\"" AND CMAKE_MATCH_1 IN_LIST torch_headers)
      message("${f}: ${CMAKE_MATCH_1} pulls in libtorch; the front-ends use torch-free core headers only: ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(f MATCHES "^ui/common/" AND line MATCHES "#[ \t]*include[ \t]*\"ui/([a-z]+)/" AND NOT CMAKE_MATCH_1 STREQUAL "common")
      message("${f}: ui/common/ is shared plumbing and includes no other room: ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(f MATCHES "^ui/" AND NOT f MATCHES "^ui/window/" AND line MATCHES "#[ \t]*include[ \t]*\"ui/window/")
      message("${f}: only app/gui includes the window (ui/window/): ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(from AND line MATCHES "#[ \t]*include[ \t]*\"ui/([a-z]+)/")
      set(to ${CMAKE_MATCH_1})
      if(NOT to STREQUAL from AND (NOT DEFINED ui_rank_${to} OR NOT ui_rank_${to} LESS ui_rank_${from}))
        message("${f}: ui/${from}/ includes only rooms below it, not ui/${to}/: ${line}")
        math(EXPR violations "${violations} + 1")
      endif()
    elseif(f MATCHES "^ui/" AND line MATCHES "#[ \t]*include[ \t]*\"app/")
      message("${f}: ui/ must not include app/: ${line}")
      math(EXPR violations "${violations} + 1")
    elseif(f MATCHES "^app/cli/" AND line MATCHES "#[ \t]*include[ \t]*(\"ui/|<QtWidgets|<QWidget|<QApplication|<QMainWindow|<QDialog)")
      message("${f}: the CLI never uses the window or Qt Widgets: ${line}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH front_files nf)
list(LENGTH torch_headers nt)

if(violations GREATER 0)
  message(FATAL_ERROR "${violations} layering violation(s) in ${n} files of core/ and ${nf} of ui/ and app/")
endif()
message("layering: ${n} files of core/ (${nt} headers pull in libtorch), ${nf} of ui/ and app/, no violations")
