# SPDX-License-Identifier: Apache-2.0
# Pretrained models (issue 22): the Hub client and cache (core/hub) against a local stand-in for
# the Hub (tests/support/hubtestserver.h, loopback only), and the CLI's models command.
wb_add_test(tst_hub NAME core.hub SOURCES core/tst_hub.cpp LIBS wb_hub OpenSSL::Crypto Threads::Threads TIMEOUT 120)
wb_add_test(tst_climodels NAME cli.models SOURCES cli/tst_climodels.cpp LIBS wb_cli OpenSSL::Crypto Threads::Threads
            TIMEOUT 120)
# "Start from" a pretrained model: prepareRun + fetchPretrainedModel + a run from its weights.
wb_add_test(tst_pretrainedstart NAME core.pretrainedstart SOURCES core/tst_pretrainedstart.cpp
            LIBS wb_core OpenSSL::Crypto Threads::Threads TIMEOUT 180)
