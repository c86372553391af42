#!/usr/bin/env python3
"""Code-generation check: the pair loop's variants, the stage update and the per-particle
sweeps of the staging and the signal speeds are vectorised.

The pair loop (src/sph/equations.cpp, `gather<Dim, ArtStress, Xsph, Loads, Prepass, Walls>`)
is compiled in 48 variants, one per combination of options (runs with loads always have
walls). In each, the first pass over a block of partners is an `omp simd` loop and the
second is written on 8-lane vectors (GCC's vector extensions); either can end up scalar when
something in the variant stops GCC (a helper left out of line, a select it cannot vectorise): the eight 3D variants that collect loads once compiled to scalar
code, 2.2 x slower, and in an AVX2 build all of them and the stage update
(src/sph/integrator.cpp, the per-particle sweep of `AdaptiveHeun::stage_update`) did,
without any test noticing (bench/README.md, "Seventeenth round"); in the eighteenth round
a change that left 24 first passes scalar was caught here. This check disassembles the optimised core library (`objdump -d`) and counts, in each
variant and in the stage update's sweep, the packed double-precision arithmetic
(add, sub, mul, fused multiply-add on xmm, ymm or zmm registers, `...pd`) and the scalar
(`...sd`). In a vectorised variant a third or more are packed (0.35-0.61 with AVX-512 or
AVX2 here; the stage update 0.82), in a scalar one under a fifth (0.12-0.19 with AVX-512,
0.09-0.10 with AVX2; the stage update 0.03). It fails for a function whose packed share is
below 0.25, naming it, and when it does not find the 48 variants and the stage update. A
build without AVX (no ymm or zmm register anywhere in the pair loops: a portable SSE2 build,
where GCC's two-lane code mixes packed and scalar operations and the share does not tell) is
reported as skipped (exit status 77). The per-particle sweeps (SWEEPS below) must in
addition have at least as many packed square roots as scalar ones.

    /usr/bin/python3 tests/check_vectorised.py build/libregosph_core.a

Registered with CTest for optimised x86-64 builds for the build machine (REGOSPH_NATIVE,
CMakeLists.txt), not for the sanitizer's.
"""
import re
import subprocess
import sys

SQRT_PACKED = re.compile(r"\bv?sqrtpd\b")
SQRT_SCALAR = re.compile(r"\bv?sqrtsd\b")
PACKED = re.compile(r"\bv?(?:fn?m(?:add|sub)\d{3}|add|sub|mul)pd\b")
SCALAR = re.compile(r"\bv?(?:fn?m(?:add|sub)\d{3}|add|sub|mul)sd\b")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.*)>:$")
VARIANT = re.compile(r"::gather<(\d(?:, (?:true|false)){5})>")
STAGE_UPDATE = re.compile(r"AdaptiveHeun::stage_update\(.*\)::\{lambda\(unsigned long, unsigned long\)#1\}")
STAGE_UPDATE_NAME = "AdaptiveHeun::stage_update, per-particle sweep"
# The per-particle sweeps of the twenty-third round: the staging's 2D artificial stress and
# the elastic solid's wave speeds (bench/README.md). Their square roots must be packed too
# (at least as many vsqrtpd as vsqrtsd; the scalar ones are loop remainders): the wave speeds'
# last loop once compiled to scalar code while the sweeps before it kept the packed share
# above 0.25.
SWEEPS = {
    "stage_artificial_stress<2>": re.compile(r"\bstage_artificial_stress<2>\("),
    "wave_speeds<ElasticSolid>": re.compile(r"\bwave_speeds\(.*operator\(\)<regosph::ElasticSolid>"),
}
N_VARIANTS = 48
MIN_PACKED_SHARE = 0.25


def count(library):
    """{function: [packed, scalar, AVX lines, packed sqrt, scalar sqrt]} over the pair-loop
    variants ("gather<...>"), the stage update's sweep and SWEEPS; AVX lines: instructions on
    ymm or zmm registers."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", library],
                         capture_output=True, text=True, check=True).stdout
    counts, current = {}, None
    for line in out.splitlines():
        head = FUNCTION.match(line)
        if head:
            variant = VARIANT.search(head.group(1))
            sweep = [k for k, pattern in SWEEPS.items() if pattern.search(head.group(1))]
            name = (f"gather<{variant.group(1)}>" if variant
                    else STAGE_UPDATE_NAME if STAGE_UPDATE.search(head.group(1))
                    else sweep[0] if sweep else None)
            current = counts.setdefault(name, [0, 0, 0, 0, 0]) if name else None
        elif current is not None:
            current[0] += bool(PACKED.search(line))
            current[1] += bool(SCALAR.search(line))
            current[2] += "%ymm" in line or "%zmm" in line
            current[3] += bool(SQRT_PACKED.search(line))
            current[4] += bool(SQRT_SCALAR.search(line))
    return counts


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_vectorised.py LIBRARY (the core library, e.g. "
                 "build/libregosph_core.a)")
    counts = count(sys.argv[1])
    variants = sum(1 for name in counts if name.startswith("gather<"))
    avx = any(c[2] for name, c in counts.items() if name.startswith("gather<"))
    missing = [name for name in (STAGE_UPDATE_NAME, *SWEEPS) if name not in counts]
    if variants != N_VARIANTS or missing:
        sys.exit(f"check_vectorised.py: {variants} pair-loop variants (gather<...>, expected "
                 f"{N_VARIANTS}) in {sys.argv[1]}; missing: {', '.join(missing) or 'nothing'}")
    if not avx:
        print(f"RESULT skipped: the pair loops of {sys.argv[1]} use no AVX register (a build "
              "without AVX); the packed share does not tell vectorised from scalar there")
        return 77
    failed = []
    for name, (packed, scalar, _, sqrt_packed, sqrt_scalar) in sorted(counts.items()):
        share = packed / max(packed + scalar, 1)
        roots_ok = name not in SWEEPS or sqrt_packed >= max(1, sqrt_scalar)
        verdict = "ok" if share >= MIN_PACKED_SHARE and roots_ok else "NOT VECTORISED"
        roots = f", square roots {sqrt_packed} packed / {sqrt_scalar} scalar" if name in SWEEPS else ""
        print(f"{name}: {packed} packed, {scalar} scalar operations, packed share {share:.2f}"
              f"{roots}: {verdict}")
        if verdict != "ok":
            failed.append(name)
    if failed:
        print(f"RESULT fail: {len(failed)} of {len(counts)} functions compiled to scalar code: "
              + "; ".join(failed))
        return 1
    print(f"RESULT ok: the {N_VARIANTS} pair-loop variants, the stage update and the "
          f"{len(SWEEPS)} per-particle sweeps are vectorised")
    return 0


if __name__ == "__main__":
    sys.exit(main())
