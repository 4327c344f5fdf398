#pragma once
// Which sanitizer this file is built with, on GCC (which defines __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__) and on clang (which answers __has_feature instead): HCASIM_UNDER_ASAN and
// HCASIM_UNDER_TSAN are defined to 1 under AddressSanitizer and ThreadSanitizer.
#if defined(__SANITIZE_ADDRESS__)
#define HCASIM_UNDER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define HCASIM_UNDER_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(HCASIM_UNDER_ASAN)
#define HCASIM_UNDER_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(HCASIM_UNDER_TSAN)
#define HCASIM_UNDER_TSAN 1
#endif
#endif
