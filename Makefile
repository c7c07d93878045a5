# BERT Workbench — the two commands: `make run` and `make test`.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test bench package clean fuzz

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# Opens the GUI with the spam-detection example (without a display: trains the example
# through the CLI and writes the loss plot as PNG).
run: build
	@./scripts/run-example.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) --timeout 900

bench: deps
	@WB_WITH_BENCH=1 ./scripts/install-deps.sh
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD_DIR) -j$(JOBS) --target benchmarks
	@./scripts/run-benchmarks.sh $(BUILD_DIR)

# libFuzzer targets (clang; build-fuzz), FUZZ_SECONDS per target from fuzz/corpus/<target>;
# not part of `make test` (docs/reliability.md, "Fuzzing").
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) ./fuzz/run-fuzzers.sh $(FUZZ_TARGETS)

package: build
	cd $(BUILD_DIR) && cpack

clean:
	rm -rf $(BUILD_DIR)
