// Attributes that pick an instruction-set variant of a function at load
// time, where the platform supports it, and vanish elsewhere.
#pragma once

// On x86-64 ELF targets (GCC and clang), the function is compiled twice,
// with and without the POPCNT instruction, and the loader picks the one the
// CPU runs. Elsewhere (aarch64, other architectures, macOS and Windows, where
// target_clones is unsupported) popcount compiles to the target's own
// instruction or the compiler's portable sequence.
#if defined(__x86_64__) && defined(__ELF__) && !defined(__APPLE__)
#define SIMHASH_POPCNT_CLONES [[gnu::target_clones("popcnt", "default")]]
#else
#define SIMHASH_POPCNT_CLONES
#endif
