#!/usr/bin/env python3
"""`make bench`: every speed case on 1 thread and on --threads threads, one table.

Cases (bench/README.md): the paper-resolution soil collapse (collapse_bench.py, default
viscosity, to --collapse-end-time), the default brush sampler (sampler_bench.py), the rubber
rings beside PySPH (rings_bench.py; the physics cross-check runs with the multi-thread run) and
the 3D elastic blocks beside PySPH (blocks3d_bench.py), and the collapse beside one CPU-bound
process ("busy": exactly the thread count; "busy-tuned": the run chooses up to that many,
IntegratorOptions.tune_threads, the default outside benchmarks). Each runs in its own process
with OMP_NUM_THREADS set. Columns: particles (dynamic), threads, M particle-steps/s, speed-up over
1 thread, ratio regosph / PySPH on the same threads. The load average is printed at the start
and before each run: on a shared machine the figures mean little without it.

With --against DIR (another tree's regosph package, e.g. a worktree's build/python), every
run is made twice, with this tree's package (the one on PYTHONPATH) and with DIR's, one right
after the other and in alternating order from round to round. The table then gives both
medians and the median of the rounds' ratios this / against: a before/after comparison in
which both sides see the same minutes of the machine. The side-by-side cases then run regosph
only.

Before the first case and after the last, it runs `machine_probe` (bench/machine_probe.cpp,
built by `make bench`) if it is built: whether two threads get twice the arithmetic and
bandwidth of one, and what passing a cache line between the cores costs. On a VM that changes,
and the 2-thread speed-ups of the table mean little without it.

Each case runs --repeat rounds of (1 thread, N threads), back to back, so that the two runs of
a round see the same state of the machine. The table gives the median over the rounds (of the
rate, and of each run's regosph / PySPH ratio) and the range of the rate: on this project's
VM one run's speed drifts by up to +-30 % from minute to minute (bench/README.md), and a
single run can put a speed-up anywhere between 1.3 and 2.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_table.py [--threads 2] [--repeat 3]
        [--cases collapse sampler rings blocks3d busy busy-tuned] [--json FILE]
        [--probe build/machine_probe] [--against OTHER_TREE/build/python]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def collapse(out, args):
    return ["collapse_bench.py", "--settings", "own", "--end-time", str(args.collapse_end_time),
            "--json", out]


def sampler(out, args):
    return ["sampler_bench.py", "--end-time", str(args.sampler_end_time), "--json", out]


def side_by_side(script):
    def command(out, args, check):
        if args.against:  # regosph against regosph: no PySPH, no cross-check
            return [script, "--json", out, "--codes", "regosph", "--check-steps", "0"]
        return [script, "--json", out] + ([] if check else ["--check-steps", "0"])
    return command


def competitor(tuned):
    def command(out, args):
        return collapse(out, args) + ["--competitor"] + (["--tune-threads"] if tuned else [])
    return command


CASES = {"collapse": collapse, "sampler": sampler,
         # The collapse beside one CPU-bound process: exactly N threads, and N allowed with the
         # run choosing (IntegratorOptions.tune_threads, the default outside benchmarks).
         "busy": competitor(False), "busy-tuned": competitor(True),
         "rings": side_by_side("rings_bench.py"), "blocks3d": side_by_side("blocks3d_bench.py")}


def figures(case, data):
    """(particles, regosph particle-steps/s, PySPH particle-steps/s or None) of one run."""
    if case in ("collapse", "busy", "busy-tuned"):
        return data[0]["soil_particles"], data[0]["particle_steps_per_s"], None
    if case == "sampler":
        return data["particles"], data["particle_steps_per_s"], None
    g, p = data["regosph"], data.get("pysph")
    return g["particles"], g["particle_steps_per_s"], p["particle_steps_per_s"] if p else None


def run(case, threads, args, tmp, round_, tree=None):
    """One run of a case; `tree`: the regosph package directory to put on PYTHONPATH (None:
    the caller's)."""
    out = str(Path(tmp) / f"{case}_{threads}_{round_}{'_against' if tree else ''}.json")
    cmd = CASES[case](out, args) if case in ("collapse", "sampler", "busy", "busy-tuned") else \
        CASES[case](out, args, check=threads > 1)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if tree:
        env["PYTHONPATH"] = str(tree)
    load = os.getloadavg()[0]
    print(f"# {case}, {threads} thread(s), round {round_ + 1}{', against' if tree else ''}, "
          f"load average {load:.2f}: {' '.join(cmd)}", flush=True)
    proc = subprocess.run([sys.executable, str(BENCH / cmd[0])] + cmd[1:], env=env,
                          capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        print("#   " + line)
    if proc.returncode != 0 or not Path(out).exists():
        print(proc.stderr[-2000:], file=sys.stderr)
        return {"case": case, "threads": threads, "load": load, "failed": proc.returncode,
                "against": bool(tree)}
    n, rate, peer = figures(case, json.loads(Path(out).read_text()))
    return {"case": case, "threads": threads, "round": round_, "load": load, "particles": n,
            "rate": rate, "pysph": peer, "against": bool(tree)}


def summary(runs):
    """One table row from the runs of a case on one thread count: the medians and the range."""
    ok = [r for r in runs if "failed" not in r]
    # The exit status of the first failed run, None when every run succeeded.
    failed = next((r["failed"] for r in runs if "failed" in r), None)
    first = runs[0]
    if not ok:
        return {"case": first["case"], "threads": first["threads"], "failed": failed}
    rates = [r["rate"] for r in ok]
    ratios = [r["rate"] / r["pysph"] for r in ok if r["pysph"]]
    return {"case": first["case"], "threads": first["threads"], "particles": ok[0]["particles"],
            "rate": statistics.median(rates), "rate_min": min(rates), "rate_max": max(rates),
            "ratio": statistics.median(ratios) if ratios else None,
            "load": max(r["load"] for r in ok), "runs": len(ok),
            "failed": failed}


def paired_speedups(runs):
    """{(case, threads): median over the rounds of rate(threads) / rate(1 thread) of the same
    round}, for threads > 1 and the rounds in which both runs succeeded."""
    rate = {(r["case"], r["threads"], r["round"]): r["rate"] for r in runs
            if "failed" not in r and not r["against"]}
    ratios = {}
    for (case, threads, round_), value in rate.items():
        single = rate.get((case, 1, round_))
        if threads > 1 and single:
            ratios.setdefault((case, threads), []).append(value / single)
    return {key: statistics.median(values) for key, values in ratios.items()}


def print_comparison(runs, repeat):
    """The --against table: both trees' medians and the median of the rounds' ratios. Returns
    whether some run failed."""
    print(f"\nMedians over {repeat} round(s) of this tree and the one it runs against; ratio: "
          f"the median (and range) over the rounds of this / against, the two runs of a round "
          f"back to back")
    print(f"{'case':10s} {'particles':>9s} {'threads':>7s} {'this M p-s/s':>12s} "
          f"{'against':>8s} {'ratio':>6s} {'range':>11s} {'load':>5s}")
    failed = False
    for case, threads in dict.fromkeys((r["case"], r["threads"]) for r in runs):
        mine, other = ([r for r in runs if (r["case"], r["threads"], r["against"]) ==
                        (case, threads, against)] for against in (False, True))
        a, b = summary(mine), summary(other)
        failed = failed or a["failed"] is not None or b["failed"] is not None
        by_round = {r["round"]: r["rate"] for r in other if "rate" in r}
        ratios = [r["rate"] / by_round[r["round"]] for r in mine
                  if "rate" in r and r["round"] in by_round]
        if not ratios:  # no round in which both runs succeeded
            print(f"{case:10s} {'':9s} {threads:7d} FAILED (exit status "
                  f"{a['failed'] if a['failed'] is not None else b['failed']})")
            continue
        span = f"{min(ratios):.3f}-{max(ratios):.3f}"
        some_failed = a["failed"] is not None or b["failed"] is not None
        print(f"{case:10s} {a['particles']:9d} {threads:7d} {a['rate'] / 1e6:12.3f} "
              f"{b['rate'] / 1e6:8.3f} {statistics.median(ratios):6.3f} {span:>11s} "
              f"{max(a['load'], b['load']):5.2f}"
              f"{'  (some runs FAILED)' if some_failed else ''}")
    return failed


# Runs a command under the OpenMP waiting policy that `import regosph` chooses (it sets the
# environment, which the command inherits): the package stays the one place that knows it.
UNDER_PACKAGE_POLICY = "import regosph, subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


def machine_probe(path):
    """The lines machine_probe prints, with the waiting policy the Python package sets; [] when
    it is not built or fails (the table does not depend on it)."""
    if not path or not Path(path).is_file():
        return []
    done = subprocess.run([sys.executable, "-c", UNDER_PACKAGE_POLICY, str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return [f"machine_probe failed (exit status {done.returncode})"]
    return [line for line in done.stdout.splitlines() if not line.startswith("(checksum")]


def print_probe(when, lines):
    for line in lines:
        print(f"# machine {when}: {line}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--collapse-end-time", type=float, default=0.2)
    ap.add_argument("--sampler-end-time", type=float, default=0.02)
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds of (1 thread, N threads) per case; the table gives medians")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--probe", default=str(BENCH.parent / "build" / "machine_probe"),
                    help="machine_probe executable, run before and after the cases ('' : none)")
    ap.add_argument("--probe-only", action="store_true",
                    help="print machine_probe's figures and stop (make bench-machine)")
    ap.add_argument("--against", help="another tree's regosph package directory (its "
                    "build/python): every run also with it, back to back, and their ratios")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.against and not (Path(args.against) / "regosph" / "__init__.py").is_file():
        ap.error(f"--against {args.against}: no regosph package there (expected "
                 f"{Path(args.against) / 'regosph' / '__init__.py'})")
    trees = [None, Path(args.against).resolve()] if args.against else [None]
    if args.probe_only:
        lines = machine_probe(args.probe)
        print("\n".join(lines) if lines else f"no machine_probe at {args.probe}")
        sys.exit(0 if lines and not lines[0].startswith("machine_probe failed") else 1)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"(1, 5, 15 min) on {os.cpu_count()} CPUs", flush=True)
    probe = {"start": machine_probe(args.probe)}
    print_probe("at the start", probe["start"])
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases:
            for round_ in range(args.repeat):
                for threads in sorted({1, args.threads}):
                    # With --against, the two trees take turns at going first.
                    for tree in (trees if round_ % 2 == 0 else trees[::-1]):
                        runs.append(run(case, threads, args, tmp, round_, tree))
    probe["end"] = machine_probe(args.probe)
    print_probe("at the end", probe["end"])
    if args.against:
        failed = print_comparison(runs, args.repeat)
        if args.json:
            Path(args.json).write_text(
                json.dumps({"against": str(trees[1]), "runs": runs, "machine": probe},
                           indent=2) + "\n")
        sys.exit(1 if failed else 0)
    rows = [summary([r for r in runs if (r["case"], r["threads"]) == key])
            for key in dict.fromkeys((r["case"], r["threads"]) for r in runs)]
    print(f"\nMedians over {args.repeat} round(s); range: slowest-fastest run; speed-up: the "
          f"ratio of the medians, and in brackets the median over the rounds of each round's "
          f"ratio (its two runs back to back, which the VM's drift between rounds does not "
          f"enter); load: the highest load average before a run")
    print(f"{'case':10s} {'particles':>9s} {'threads':>7s} {'M p-steps/s':>11s} "
          f"{'range':>13s} {'speed-up':>15s} {'x PySPH':>8s} {'load':>5s}")
    one = {r["case"]: r.get("rate") for r in rows if r["threads"] == 1}
    paired = paired_speedups(runs)
    failed = False
    for r in rows:
        if r.get("failed") is not None:
            failed = True
        if "rate" not in r:
            print(f"{r['case']:10s} FAILED (exit status {r['failed']})")
            continue
        speedup = r["rate"] / one[r["case"]] if one.get(r["case"]) else float("nan")
        within = paired.get((r["case"], r["threads"]))
        speedup_text = f"{speedup:.2f}" + (f" ({within:.2f})" if within is not None else "")
        ratio = f"{r['ratio']:8.2f}" if r["ratio"] else f"{'-':>8s}"
        span = f"{r['rate_min'] / 1e6:.3f}-{r['rate_max'] / 1e6:.3f}"
        print(f"{r['case']:10s} {r['particles']:9d} {r['threads']:7d} {r['rate'] / 1e6:11.3f} "
              f"{span:>13s} {speedup_text:>15s} {ratio} {r['load']:5.2f}"
              f"{'  (some runs FAILED)' if r.get('failed') is not None else ''}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rows": rows, "runs": runs, "machine": probe}, indent=2) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
