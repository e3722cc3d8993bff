# The two set-up commands are `make run` and `make test`; the rest are for developers.
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PORT ?= 9100
WORKERS ?= 2

.PHONY: deps venv build debug asan clang test run clean fuzz fuzz-build fuzz-coverage fuzz-sql asan-test tsan-test

deps:
	@bash scripts/install-deps.sh

venv: deps
	@bash scripts/make-venv.sh --bench

build: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build -j $(JOBS)

debug: deps
	cmake -S . -B build-debug -G Ninja -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build build-debug -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer; jemalloc is off because ASan replaces malloc.
asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGRANITE_SANITIZE=address,undefined \
	  -DGRANITE_JEMALLOC=OFF $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)

# The binaries the sanitizer phases of .ci/run test: the server and every unit-test binary.
SANITIZER_TARGETS = granite core_tests storage_tests coordinator_tests worker_tests client_tests \
  tools_tests $(addprefix fuzz_replay_,$(FUZZ_TARGETS))
# ASan+UBSan at -O1 (Debug's -O0 makes the SQL tests' clusters too slow): the unit tests and the
# SQL logic tests (sql/*: each file on a 1- and a 3-worker cluster of the ASan granite) and the
# fuzz corpora. Any
# report aborts the process (halt_on_error), so it fails its test.
SAN_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:strict_string_checks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
asan-test: deps venv
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGRANITE_SANITIZE=address,undefined \
	  -DGRANITE_JEMALLOC=OFF $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS) --target $(SANITIZER_TARGETS)
	cd build-asan && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) --timeout 900 \
	  -LE 'integration|observability|deploy|bench|harness|fuzz_sql' -E '^(client/python|bench/)'

# TSan over the concurrency-heavy unit tests only (thread pool, locks, parts registry, caches,
# merges, schedulers, admission, readers, the query registry, shuffle exchanges, spilling
# joins). Suppressions (third-party code only) in tsan.supp.
TSAN_TARGETS = core_tests storage_tests coordinator_tests worker_tests
TSAN_SUITES = ThreadPool LockStats ThreadCounters Histogram PartsRegistry UncompressedCache Merge \
  Table QueryScheduler AdmissionQueue BucketedMerger ReaderThreads QueryRegistry QueryContext \
  CancellationPoller Membership ExchangeInbox ExchangeRegistry GraceHashJoin ParallelInsert \
  InsertExecutor
empty :=
space := $(empty) $(empty)
TSAN_FILTER = $(subst $(space),:,$(addsuffix *,$(TSAN_SUITES)))
tsan-test: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGRANITE_SANITIZE=thread \
	  -DGRANITE_JEMALLOC=OFF $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TARGETS)
	for t in $(TSAN_TARGETS); do \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tsan.supp" \
	    build-tsan/$$(echo $$t | sed 's/_tests//')/$$t --gtest_filter='$(TSAN_FILTER)' || exit 1; \
	done

# libFuzzer targets (fuzz/README.md): clang 14, ASan+UBSan, FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= sql_parser sql_values sql_bind query_local query_info input_csv input_tsv input_tsv_raw \
  input_json_each_row input_arrow input_parquet block_codec part_reader
fuzz-build: deps
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCMAKE_C_COMPILER=clang-14 -DGRANITE_FUZZ=ON $(CMAKE_FLAGS)
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
fuzz: fuzz-build
	bash fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
# Source coverage the corpora reach (fuzz/coverage.sh): a clang build without sanitizers in
# build-cov/, only the fuzz replays, run over fuzz/corpus/ and build-fuzz/fuzz-corpus/. Not part
# of `make test`.
COV_FLAGS = -fprofile-instr-generate -fcoverage-mapping
fuzz-coverage: deps
	cmake -S . -B build-cov -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1" -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_FLAGS="$(COV_FLAGS)" -DCMAKE_C_FLAGS="$(COV_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" -DGRANITE_JEMALLOC=OFF $(CMAKE_FLAGS)
	cmake --build build-cov -j $(JOBS) --target $(addprefix fuzz_replay_,$(FUZZ_TARGETS))
	bash fuzz/coverage.sh build-cov build-fuzz/fuzz-corpus $(FUZZ_TARGETS)

# Differential SQL fuzzer against ClickHouse (chdb): MINUTES of random queries.
MINUTES ?= 5
SEED ?= $(shell date +%s)
fuzz-sql: build venv
	.venv/bin/python tests/fuzz_sql/fuzz_sql.py --granite build/granite --minutes $(MINUTES) \
	  --seed $(SEED)

# clang 14 with thread-safety analysis as errors.
clang: deps
	cmake -S . -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCMAKE_C_COMPILER=clang-14 $(CMAKE_FLAGS)
	cmake --build build-clang -j $(JOBS)

test: build venv
	cd build && ctest --output-on-failure -j $(JOBS) --timeout 900

run: build
	bash scripts/run-local.sh build/granite $(PORT) $(WORKERS)

clean:
	rm -rf build build-debug build-asan build-clang build-tsan build-fuzz build-cov
