/* sanitized.h — SANITIZED: 1 in the sanitizer build (ASan + UBSan, unoptimised; gcc's
 * __SANITIZE_ADDRESS__ or clang's __has_feature), else 0. Tests whose work or host-time
 * rules meet its slowness, or that hook its allocator, ask it. */
#ifndef RTM_TEST_SANITIZED_H
#define RTM_TEST_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#endif
