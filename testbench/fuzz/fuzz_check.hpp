#pragma once
// What a harness asserts, as a check that stays on in every build: a broken
// promise prints what was expected and aborts, which libFuzzer reports as a
// crash and saves the input (docs/fuzzing.md).

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, what)                                                          \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "fuzz check failed at %s:%d: %s (%s)\n", __FILE__, __LINE__, \
                   what, #cond);                                                         \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
