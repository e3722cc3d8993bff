// Shared by the fuzz targets (fuzz/*_fuzzer.cc): the libFuzzer entry point's declaration and an
// invariant check that aborts (a crash libFuzzer reports, with the input saved) in every build,
// also in the Release replay binaries where assert() is compiled out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Aborts with `what` when `condition` is false.
#define FUZZ_CHECK(condition, what)                                                  \
  do {                                                                               \
    if (!(condition)) {                                                              \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, \
                   what);                                                            \
      std::abort();                                                                  \
    }                                                                                \
  } while (false)
