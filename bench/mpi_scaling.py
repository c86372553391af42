"""MPI benchmarks (issue "Run across MPI ranks"): strong scaling on this machine and the halo
traffic as a function of the particles per rank. Prints figures; asserts nothing.

    /usr/bin/python3 bench/mpi_scaling.py [--particles 200000] [--steps 30] [--json FILE]

1. Strong scaling: the 2D soil collapse with --particles soil particles (spacing chosen for
   it) on 1 rank x 1 thread, 2 ranks x 1 thread and 1 rank x 2 threads; particle-steps/s of
   each and the parallel efficiency rate(P cores) / (P rate(1 core)).
2. Halo traffic: the same case at several sizes on 2 and 4 ranks: halo particles per rank as a
   fraction of the owned ones, halo bytes sent per step and rank, partners per rank. (4 ranks
   oversubscribe a 2-core machine: their timings mean nothing, their traffic does.)
Each configuration is one `mpiexec ... bench/mpi_case.py` run (OpenMPI: --bind-to none so that
threads are not pinned to one core).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(ranks, threads, particles, steps, dim=2):
    mpiexec = shutil.which("mpiexec")
    flags = ["--oversubscribe", "--bind-to", "none", "--allow-run-as-root"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if ranks * threads > (os.cpu_count() or 1):
        env["OMPI_MCA_mpi_yield_when_idle"] = "1"
    cmd = [mpiexec, "-n", str(ranks), *flags, sys.executable, str(HERE / "mpi_case.py"),
           "--particles", str(particles), "--steps", str(steps), "--dim", str(dim)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--particles", type=float, default=2e5)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--halo-sizes", type=float, nargs="*", default=[12500, 50000, 200000])
    ap.add_argument("--json", help="write all results to this file")
    args = ap.parse_args()
    results = {"strong": [], "halo": []}

    print(f"Strong scaling, 2D soil collapse, {args.particles:.0f} soil particles, "
          f"{args.steps} steps (load average before: {load_average():.2f})")
    print(f"{'ranks':>5} {'threads':>7} {'M p-steps/s':>12} {'efficiency':>10} {'wall [s]':>9}")
    base = None
    for ranks, threads in ((1, 1), (2, 1), (1, 2)):
        r = run(ranks, threads, int(args.particles), args.steps)
        base = base or r["particle_steps_per_s"]
        eff = r["particle_steps_per_s"] / (ranks * threads * base)
        r["efficiency"] = eff
        results["strong"].append(r)
        print(f"{ranks:>5} {threads:>7} {r['particle_steps_per_s'] / 1e6:>12.3f} {eff:>10.1%} "
              f"{r['wall_s']:>9.2f}")

    print(f"\nHalo traffic per rank and step (load average: {load_average():.2f})")
    print(f"{'ranks':>5} {'particles':>9} {'owned/rank':>10} {'halo/owned':>10} "
          f"{'halo kB/step/rank':>17} {'partners':>8} {'migr. kB/step':>13}")
    for n in args.halo_sizes:
        for ranks in (2, 4):
            r = run(ranks, 1, int(n), min(args.steps, 20))
            d = r["ranks_detail"]
            owned = sum(x["owned"] for x in d) / ranks
            frac = sum(x["halo"] / max(x["owned"], 1) for x in d) / ranks
            halo_kb = r["halo_bytes_per_step"] / ranks / 1e3
            other_kb = (r["bytes_per_step"] - r["halo_bytes_per_step"]) / ranks / 1e3
            partners = sum(x["partners"] for x in d) / ranks
            r.update(owned_per_rank=owned, halo_fraction=frac)
            results["halo"].append(r)
            print(f"{ranks:>5} {r['particles']:>9} {owned:>10.0f} {frac:>10.3f} {halo_kb:>17.1f} "
                  f"{partners:>8.1f} {other_kb:>13.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
