# BERT Workbench — the two commands: `make run` and `make test`.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test bench package clean fuzz sanitize

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# Opens the GUI with the spam-detection example (without a display: trains the example
# through the CLI and writes the loss plot as PNG). Builds only what that runs: the window and
# the CLI (not the tests and benchmarks, which `make test` and `make bench` build).
run: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target bert-workbench bert-workbench-cli
	@./scripts/run-example.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) --timeout 900

bench: deps
	@WB_WITH_BENCH=1 ./scripts/install-deps.sh
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD_DIR) -j$(JOBS) --target benchmarks
	@./scripts/run-benchmarks.sh $(BUILD_DIR)

# The product and every test built with AddressSanitizer and UndefinedBehaviorSanitizer in a build
# folder of its own, then the whole suite run; any sanitizer report fails its test
# (docs/reliability.md, "Sanitizers"). -O1 without NDEBUG: assertions stay on.
SANITIZE_DIR ?= build-sanitize
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/tests/sanitizers/ubsan.supp \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0
sanitize: deps
	@cmake -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
	    -DWB_SANITIZE=ON -DWB_BUILD_BENCH=OFF -DWB_TEST_TIMEOUT_SCALE=4 $(CMAKE_FLAGS) >/dev/null
	cmake --build $(SANITIZE_DIR) -j$(JOBS)
	cd $(SANITIZE_DIR) && $(SANITIZE_ENV) QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) --timeout 3600

# libFuzzer targets (clang; build-fuzz), FUZZ_SECONDS per target from fuzz/corpus/<target>;
# not part of `make test` (docs/reliability.md, "Fuzzing").
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) ./fuzz/run-fuzzers.sh $(FUZZ_TARGETS)

package: build
	cd $(BUILD_DIR) && cpack

clean:
	rm -rf $(BUILD_DIR)
