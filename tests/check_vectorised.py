#!/usr/bin/env python3
"""Code-generation check: the loops that must be vector code are vector code.

Which loops: every function of the core library in a namespace `vectorised` (the pair loop of
each run shape, `vectorised::pair_chunk<Shape<...>>` in src/sph/equations.cpp, and the staging's
sweeps), plus the per-particle sweep of the integrator's stage update and the elastic solid's
wave speeds (NAMED below). The marker is in the source, so a new pair term, a new run option
or a new marked sweep is checked without editing this file. A loop can end up scalar when
something stops GCC (a helper left out of line, a select it cannot vectorise, errno semantics
for std::sqrt), with the same results and 2-3 x the time, which no other test notices.

The check disassembles the optimised core library (`objdump -d`) and counts, in each such
function, the packed double-precision arithmetic (add, sub, mul, fused multiply-add on xmm,
ymm or zmm registers, `...pd`) and the scalar (`...sd`). A vectorised pair loop has a third or
more packed (0.35-0.6 with AVX-512 or AVX2), a scalar one under a fifth. It fails for a
function whose packed share is below 0.25, naming it; when it finds no marked pair loop of
either dimension or a NAMED function is missing; and when a function of SQUARE_ROOTS takes
more scalar square roots than packed ones. A build without AVX (no ymm or zmm register in
the pair loops: a portable SSE2 build, where GCC's two-lane code mixes packed and scalar
operations and the share does not tell) is reported as skipped (exit status 77).

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
# A marked function: its name's namespace path contains `vectorised`. The name is cut at its
# argument list; clones of one function (.cold parts) count together.
MARKED = re.compile(r"::vectorised::([^(]*)")
PAIR_LOOP = re.compile(r"^pair_chunk<regosph::rhs::Shape<(\d)")
NAMED = {
    "AdaptiveHeun::stage_update, per-particle sweep":
        re.compile(r"AdaptiveHeun::stage_update\(.*\)::\{lambda\(unsigned long, unsigned long\)#1\}"),
    "wave_speeds<ElasticSolid>": re.compile(r"\bwave_speeds\(.*operator\(\)<regosph::ElasticSolid>"),
}
# Per-particle sweeps whose square roots must be packed too (the scalar ones are loop
# remainders): a sweep's last loop can compile to scalar code while the loops before it keep
# the packed share above the limit.
SQUARE_ROOTS = ("plane_artificial_stress", "wave_speeds<ElasticSolid>")
MIN_PACKED_SHARE = 0.25


def function_name(symbol):
    """The checked name of a disassembled function, or None."""
    marked = MARKED.search(symbol)
    if marked:
        return marked.group(1).strip()
    return next((name for name, pattern in NAMED.items() if pattern.search(symbol)), None)


def count(library):
    """{function: [packed, scalar, AVX lines, packed sqrt, scalar sqrt]} over the marked and
    NAMED functions; AVX lines: instructions on ymm or zmm registers."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", library],
                         capture_output=True, text=True, check=True).stdout
    counts, current = {}, None
    for line in out.splitlines():
        head = FUNCTION.match(line)
        if head:
            name = function_name(head.group(1))
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
    loops = [name for name in counts if PAIR_LOOP.match(name)]
    dims = {PAIR_LOOP.match(name).group(1) for name in loops}
    missing = [name for name in NAMED if name not in counts]
    missing += [f"pair loops in {d}D" for d in ("2", "3") if d not in dims]
    if missing:
        sys.exit(f"check_vectorised.py: not found in {sys.argv[1]}: {', '.join(missing)}")
    if not any(counts[name][2] for name in loops):
        print(f"RESULT skipped: the pair loops of {sys.argv[1]} use no AVX register (a build "
              "without AVX); the packed share does not tell vectorised from scalar there")
        return 77
    failed = []
    for name, (packed, scalar, _, sqrt_packed, sqrt_scalar) in sorted(counts.items()):
        share = packed / max(packed + scalar, 1)
        roots_ok = name not in SQUARE_ROOTS or sqrt_packed >= max(1, sqrt_scalar)
        verdict = "ok" if share >= MIN_PACKED_SHARE and roots_ok else "NOT VECTORISED"
        roots = (f", square roots {sqrt_packed} packed / {sqrt_scalar} scalar"
                 if name in SQUARE_ROOTS else "")
        print(f"{name}: {packed} packed, {scalar} scalar operations, packed share {share:.2f}"
              f"{roots}: {verdict}")
        if verdict != "ok":
            failed.append(name)
    if failed:
        print(f"RESULT fail: {len(failed)} of {len(counts)} functions compiled to scalar code: "
              + "; ".join(failed))
        return 1
    print(f"RESULT ok: {len(counts)} functions are vectorised ({len(loops)} pair-loop shapes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
