#!/usr/bin/env python3
"""Before/after of two regosph builds (or of 1 and N threads) in alternating short bursts.

On this project's VM the speed of one run drifts by up to 50 % within minutes
(bench/README.md), so two runs one after the other, or `bench_table.py --against` (whole runs
alternating), cannot resolve a change of a few per cent. Here each side runs in its own worker
process, which sets up the case once and then advances it by one burst (--steps steps, a
fraction of a second) whenever the driver asks; the driver asks A and B in turn, in the order
A B, B A, A B, ... So the two sides see the same seconds of the machine and the same states
(burst i of A and of B start from the same step), and the drift cancels in each pair's ratio.

Prints, per side, the fastest and the median burst time, and the ratio B / A of burst times:
the ratio of the fastest bursts, and the median and quartiles of the pairs' ratios (< 1: B is
faster). An A-against-A run shows the method's own noise (about +-2-3 % on a 2-core VM,
bench/README.md). At the end the workers compare their states: the printed hash agrees
when both builds give the same results to the bit.

    /usr/bin/python3 bench/ab_bursts.py --a OLD/build/python --b build/python
        [--case rings|blocks3d|collapse|sampler|sampler3d] [--bursts 30] [--steps N]
        [--threads 1 | --threads 1,2]

--threads 1,2 runs A on one thread and B on two (with --b equal to --a: the speed-up of two
threads, measured without the drift). Cases: the rubber rings and the 3D blocks of
rings_bench.py and blocks3d_bench.py (fixed step); with adaptive steps, the paper-resolution
soil collapse (validation/soil_collapse), the brush sampler's run P0
(examples/brush_sampler.py) and the 3D sampler's run E3 (examples/brush_sampler_3d.py, the
MPI gate's coarse case), whose brushes and tray collect the regolith's loads.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STEPS = {"rings": 20, "blocks3d": 4, "collapse": 150, "sampler": 80, "sampler3d": 4}


def build_case(rs, case):
    """The case's simulation and its step size [s] (None: the case's own adaptive step)."""
    sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "validation" / "soil_collapse"),
                    str(ROOT / "examples")]
    import rings_bench as rb
    if case == "rings":
        sim, _ = rb.build_regosph(rs)
        return sim, rb.DT
    if case == "blocks3d":
        import blocks3d_bench as bb
        sim, _ = bb.build_regosph(rs, 20)
        return sim, rb.DT
    if case == "sampler":
        from regosph.examples import brush_sampler
        return brush_sampler.build("P0"), None
    if case == "sampler3d":
        from regosph.examples import brush_sampler_3d
        return brush_sampler_3d.build("E3"), None
    import collapse_bench as cb
    from regosph.examples import soil_collapse
    sim = soil_collapse.build(soil_collapse.PAPER_SPACING, cb.SETTINGS["own"])
    return sim, None


def worker(python_dir, case, steps, wall_contact):
    """Set up, then one burst per line on stdin; prints each burst's wall seconds, and at EOF
    a hash of the state (positions, velocities, density in id order). wall_contact: the
    walls' law to set, "-" for the build's default (a build without the option has only
    bonded walls)."""
    sys.path.insert(0, python_dir)
    import numpy as np
    import regosph as rs
    sim, dt = build_case(rs, case)
    if wall_contact != "-" and hasattr(sim.physics, "wall_contact"):
        sim.physics.wall_contact = wall_contact
    sim.integrator.tune_threads = False  # exactly OMP_NUM_THREADS threads
    cap = dt if dt is not None else 1.0  # advance: one accepted step of at most cap [s]

    def burst():
        for _ in range(steps):
            sim.advance(cap)

    burst()  # warm-up: neighbour lists, first-touch allocation
    print("ready", flush=True)
    for _ in sys.stdin:
        start = time.perf_counter()
        burst()
        print(time.perf_counter() - start, flush=True)
    order = np.argsort(sim.ids)
    state = np.concatenate([sim.positions[order].ravel(), sim.velocities[order].ravel(),
                            sim.density[order].ravel()])
    print(hashlib.sha1(state.tobytes()).hexdigest()[:16], sim.step, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="side A: a build's python directory")
    ap.add_argument("--b", required=True, help="side B: a build's python directory")
    ap.add_argument("--case", choices=sorted(DEFAULT_STEPS), default="rings")
    ap.add_argument("--bursts", type=int, default=30, help="bursts per side (default 30)")
    ap.add_argument("--steps", type=int, help="steps per burst (default: rings 20, blocks3d 4, "
                    "collapse 150, sampler 80, sampler3d 4; a few tenths of a second each)")
    ap.add_argument("--threads", default="1",
                    help="OpenMP threads of both sides, or A,B (e.g. 1,2)")
    ap.add_argument("--wall-contact", default="-",
                    help="the walls' law on both sides (physics.wall_contact, where the build "
                         "has it; a build without it is bonded): e.g. bonded, to compare with "
                         "a tree from before the option")
    args = ap.parse_args()
    for side in (args.a, args.b):
        if not (Path(side) / "regosph" / "__init__.py").is_file():
            sys.exit(f"ab_bursts.py: {side} holds no regosph package (give a build's python "
                     "directory, e.g. build/python)")
    threads = args.threads.split(",")
    if len(threads) == 1:
        threads *= 2
    if len(threads) != 2 or not all(t.isdigit() and int(t) > 0 for t in threads):
        sys.exit(f"ab_bursts.py: --threads {args.threads}: give N or A,B (positive integers)")
    steps = args.steps or DEFAULT_STEPS[args.case]
    workers = [subprocess.Popen([sys.executable, __file__, "--worker", side, args.case, str(steps),
                                 args.wall_contact],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                env=dict(os.environ, OMP_NUM_THREADS=t))
               for side, t in zip((args.a, args.b), threads)]
    for w in workers:
        if w.stdout.readline().strip() != "ready":
            sys.exit("ab_bursts.py: a worker failed to set up the case")
    times = ([], [])
    for i in range(args.bursts):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            workers[side].stdin.write("go\n")
            workers[side].stdin.flush()
            times[side].append(float(workers[side].stdout.readline()))
    hashes = []
    for w in workers:
        w.stdin.close()
        hashes.append(w.stdout.readline().split())
        w.wait()
    print(f"{args.case}: {args.bursts} bursts of {steps} steps per side, load average "
          f"{os.getloadavg()[0]:.2f} at the end")
    for name, side, t, ts in zip("AB", (args.a, args.b), threads, times):
        print(f"  {name} {side} ({t} threads): fastest {min(ts):.4f} s, median "
              f"{statistics.median(ts):.4f} s per burst")
    ratios = sorted(b / a for a, b in zip(*times))
    q = len(ratios) // 4
    print(f"  B / A burst time: fastest {min(times[1]) / min(times[0]):.3f}, paired median "
          f"{statistics.median(ratios):.3f} (quartiles {ratios[q]:.3f}-{ratios[-1 - q]:.3f})")
    same = hashes[0] == hashes[1]
    print(f"  states after step {hashes[0][1]}: {hashes[0][0]} / {hashes[1][0]} "
          f"({'the same to the bit' if same else 'DIFFERENT'})")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        main()
