# Foundation: configuration model, validation, CLI validate.
wb_add_test(tst_bertconfig NAME core.bertconfig SOURCES core/tst_bertconfig.cpp LIBS wb_config)
wb_add_test(tst_inputmetadata NAME core.inputmetadata SOURCES core/tst_inputmetadata.cpp LIBS wb_config)
wb_add_test(tst_distributionstrategy NAME core.distributionstrategy SOURCES core/tst_distributionstrategy.cpp LIBS wb_config)
wb_add_test(tst_schedule NAME core.schedule SOURCES core/tst_schedule.cpp LIBS wb_config)
# The core names options in the words of the front-end that shows its messages (issue 42).
wb_add_test(tst_optionwords NAME core.optionwords SOURCES core/tst_optionwords.cpp LIBS wb_config)
wb_add_test(tst_asciitext NAME core.asciitext SOURCES core/tst_asciitext.cpp LIBS wb_config)
wb_add_test(tst_trainingallocator NAME core.trainingallocator SOURCES core/tst_trainingallocator.cpp LIBS wb_config)
# One helper per job in core/util (issue 42): SHA-1/256/512 and git blob ids, hex encode/decode.
wb_add_test(tst_digest NAME core.digest SOURCES core/tst_digest.cpp LIBS wb_config)
wb_add_test(tst_validation NAME core.validation SOURCES core/tst_validation.cpp LIBS wb_core)
wb_add_test(tst_preparedrun NAME core.preparedrun SOURCES core/tst_preparedrun.cpp LIBS wb_core)
wb_add_test(tst_clivalidate NAME cli.validate SOURCES cli/tst_clivalidate.cpp LIBS wb_cli CLI11::CLI11)
# Every command's --help: valid UTF-8, no control bytes, each flag's type name from the option table.
wb_add_test(tst_clihelp NAME cli.help SOURCES cli/tst_clihelp.cpp LIBS wb_cli)
# The CLI's commands from one registry (issue 42): usage, dispatch, the unknown-command hint
# with "did you mean", and the man page's COMMANDS section.
wb_add_test(tst_clicommands NAME cli.commands SOURCES cli/tst_clicommands.cpp LIBS wb_cli)
add_dependencies(tst_clicommands wb_manpage)
