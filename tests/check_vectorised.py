#!/usr/bin/env python3
"""Code-generation check: every compiled variant of the pair loop is vectorised.

The pair loop (src/sph/equations.cpp, `gather<Dim, ArtStress, Xsph, Loads, Prepass>`) is
compiled in 32 variants, one per combination of options. GCC vectorises its `omp simd` loop
over a block of partners in each, unless something in the variant stops it: the eight 3D
variants that collect loads once compiled to scalar code, 2.2 x slower, without any test
noticing (bench/README.md, "Seventeenth round"). This check disassembles the optimised core
library (`objdump -d`) and counts, in each variant, the packed double-precision arithmetic
(add, sub, mul, fused multiply-add on xmm, ymm or zmm registers, `...pd`) and the scalar
(`...sd`). In a vectorised variant a third or more are packed (0.35-0.61 with AVX-512 or
AVX2 here), in a scalar one under a fifth (0.12-0.19 with AVX-512, 0.09-0.10 with AVX2). It
fails for a variant whose packed share is below 0.25, naming it, and when it finds no variant
at all. A build without AVX (no ymm or zmm register anywhere in the pair
loops: a portable SSE2 build, where GCC's two-lane code mixes packed and scalar operations
and the share does not tell) is reported as skipped (exit status 77).

    /usr/bin/python3 tests/check_vectorised.py build/libregosph_core.a

Registered with CTest for optimised x86-64 builds for the build machine (REGOSPH_NATIVE,
CMakeLists.txt), not for the sanitizer's.
"""
import re
import subprocess
import sys

PACKED = re.compile(r"\bv?(?:fn?m(?:add|sub)\d{3}|add|sub|mul)pd\b")
SCALAR = re.compile(r"\bv?(?:fn?m(?:add|sub)\d{3}|add|sub|mul)sd\b")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.*)>:$")
VARIANT = re.compile(r"::gather<(\d, (?:true|false), (?:true|false), (?:true|false), (?:true|false))>")
MIN_PACKED_SHARE = 0.25


def count(library):
    """{variant: [packed, scalar]} over the library's pair-loop functions, and whether they use
    AVX registers (ymm or zmm) at all."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", library],
                         capture_output=True, text=True, check=True).stdout
    counts, current, avx = {}, None, False
    for line in out.splitlines():
        head = FUNCTION.match(line)
        if head:
            variant = VARIANT.search(head.group(1))
            current = counts.setdefault(variant.group(1), [0, 0]) if variant else None
            continue
        if current is None:
            continue
        avx = avx or "%ymm" in line or "%zmm" in line
        if PACKED.search(line):
            current[0] += 1
        elif SCALAR.search(line):
            current[1] += 1
    return counts, avx


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_vectorised.py LIBRARY (the core library, e.g. "
                 "build/libregosph_core.a)")
    counts, avx = count(sys.argv[1])
    if not counts:
        sys.exit(f"check_vectorised.py: no pair-loop variant (gather<...>) in {sys.argv[1]}")
    if not avx:
        print(f"RESULT skipped: the pair loops of {sys.argv[1]} use no AVX register (a build "
              "without AVX); the packed share does not tell vectorised from scalar there")
        return 77
    failed = []
    for variant, (packed, scalar) in sorted(counts.items()):
        share = packed / max(packed + scalar, 1)
        verdict = "ok" if share >= MIN_PACKED_SHARE else "NOT VECTORISED"
        print(f"gather<{variant}>: {packed} packed, {scalar} scalar operations, "
              f"packed share {share:.2f}: {verdict}")
        if verdict != "ok":
            failed.append(variant)
    if failed:
        print(f"RESULT fail: {len(failed)} of {len(counts)} pair-loop variants compiled to "
              f"scalar code: " + "; ".join(f"gather<{v}>" for v in failed))
        return 1
    print(f"RESULT ok: all {len(counts)} pair-loop variants vectorised")
    return 0


if __name__ == "__main__":
    sys.exit(main())
