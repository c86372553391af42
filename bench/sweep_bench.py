#!/usr/bin/env python3
"""Benchmark: a sweep of brush-sampler runs one after another on all cores against the same
runs N at once on cores / N threads each (regosph.sweep jobs; bench/README.md, "Sweeps:
processes or threads").

Each repetition runs both ways back to back, in alternating order (this VM drifts by 20-30 %
between identical runs, so single figures mean little), through `python3 -m regosph sweep`
with the sampler's command line; the wall time includes every run's start-up and output, as
a user's sweep does. Prints each repetition, the means and the throughput ratio.

    PYTHONPATH=build/python /usr/bin/python3 bench/sweep_bench.py [--runs P0 P5]
        [--end-time 0.05] [--jobs 2] [--repetitions 3] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sweep_seconds(rows_file, root, end_time, jobs, cores):
    """Wall seconds of one sweep over the rows: jobs == 1 on all cores, else jobs at once."""
    env = dict(os.environ)
    command = [sys.executable, "-m", "regosph", "sweep", "--rows", str(rows_file),
               "--root", str(root), "--name-column", "run"]
    if jobs == 1:
        env["OMP_NUM_THREADS"] = str(cores)
    else:
        command += ["--jobs", str(jobs), "--threads-per-job", str(max(1, cores // jobs))]
    command += ["--", sys.executable, str(ROOT / "examples" / "brush_sampler.py"), "--run",
                "{run}", "--output", "{output}", "--end-time", repr(end_time), "--plot-times"]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    from regosph.examples import brush_sampler
    from regosph import sweep

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", nargs="+", default=["P0", "P5"], choices=list(brush_sampler.RUNS))
    ap.add_argument("--end-time", type=float, default=0.05, help="simulated time of each run [s]")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    if args.jobs < 2:
        ap.error("--jobs: at least 2 (1 is the other side of the comparison)")
    cores = sweep.usable_cores()
    print(f"[sweep] {len(args.runs)} sampler runs ({', '.join(args.runs)}) to {args.end_time} s; "
          f"{cores} cores; load average before {os.getloadavg()[0]:.2f}", flush=True)
    times = {"one after another": [], f"{args.jobs} at once": []}
    with tempfile.TemporaryDirectory() as tmp:
        rows_file = Path(tmp) / "rows.csv"
        rows_file.write_text("run\n" + "\n".join(args.runs) + "\n")
        for rep in range(args.repetitions):
            order = [1, args.jobs] if rep % 2 == 0 else [args.jobs, 1]
            for jobs in order:
                key = "one after another" if jobs == 1 else f"{args.jobs} at once"
                s = sweep_seconds(rows_file, Path(tmp) / f"r{rep}_j{jobs}", args.end_time, jobs,
                                  cores)
                times[key].append(s)
                print(f"[sweep] repetition {rep + 1}: {key:>17}: {s:7.2f} s "
                      f"(load {os.getloadavg()[0]:.2f})", flush=True)
    mean = {k: sum(v) / len(v) for k, v in times.items()}
    seq, par = mean["one after another"], mean[f"{args.jobs} at once"]
    print(f"[sweep] mean: one after another on {cores} threads {seq:.2f} s, {args.jobs} at once "
          f"on {max(1, cores // args.jobs)} each {par:.2f} s: throughput x {seq / par:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"case": "sweep", "runs": args.runs,
                                               "end_time_s": args.end_time, "cores": cores,
                                               "jobs": args.jobs, "seconds": times,
                                               "throughput_ratio": seq / par}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
