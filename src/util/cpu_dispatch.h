// SPDX-License-Identifier: MIT
// Attributes that pick an instruction-set variant of a function at load
// time, where the platform supports it, and vanish elsewhere.
#pragma once

// On x86-64 ELF targets (GCC and clang), the function is compiled twice,
// with and without the POPCNT instruction, and the loader picks the one the
// CPU runs. Elsewhere (aarch64, other architectures, macOS and Windows, where
// target_clones is unsupported) popcount compiles to the target's own
// instruction or the compiler's portable sequence.
//
// Not under ThreadSanitizer: the loader calls the picking function (an ifunc
// resolver, instrumented like any other) while relocating a program, before
// TSan's runtime has started, and the program dies at startup (sql_tests,
// which links the bucket codec, did so). Only the module, loaded later, was
// safe.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIMHASH_NO_TARGET_CLONES
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SIMHASH_NO_TARGET_CLONES
#endif
#if defined(__x86_64__) && defined(__ELF__) && !defined(__APPLE__) && \
    !defined(SIMHASH_NO_TARGET_CLONES)
#define SIMHASH_POPCNT_CLONES [[gnu::target_clones("popcnt", "default")]]
#else
#define SIMHASH_POPCNT_CLONES
#endif

// Where a function may carry [[gnu::target("avx2")]] and intrinsics, called
// only after __builtin_cpu_supports said the CPU runs them (x86-64 with GCC
// or clang; no ifunc, so sanitizers are no obstacle). 0 elsewhere.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIMHASH_X86_64_TARGETS 1
#else
#define SIMHASH_X86_64_TARGETS 0
#endif

// Where NEON intrinsics compile (aarch64, where every CPU has them: no run
// time check). 0 elsewhere.
#if defined(__aarch64__) && defined(__ARM_NEON)
#define SIMHASH_AARCH64_NEON 1
#else
#define SIMHASH_AARCH64_NEON 0
#endif
