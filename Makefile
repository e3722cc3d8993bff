# The two set-up commands are `make run` and `make test`; the rest are for developers.
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PORT ?= 9100
WORKERS ?= 2

.PHONY: deps venv build debug asan clang test run clean

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
	rm -rf build build-debug build-asan build-clang
