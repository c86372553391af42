#!/usr/bin/env python3
"""Benchmark: the brush sampler at its default resolution (examples/brush_sampler.py, run P0:
7312 regolith particles, two brushes turning, the tray observed every 20 steps).

Prints particles, steps, wall time, particle-steps per second (regolith particles x accepted
steps / wall time) and the wall time of each integrator phase.

    OMP_NUM_THREADS=2 PYTHONPATH=build/python /usr/bin/python3 bench/sampler_bench.py
        [--run P0] [--end-time 0.02] [--json FILE]
"""
import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from regosph.examples import brush_sampler  # noqa: E402
import collapse_bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="P0", choices=list(brush_sampler.RUNS))
    ap.add_argument("--end-time", type=float, default=0.02, help="simulated time [s]")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))
    load = os.getloadavg()[0]
    sim = brush_sampler.build(args.run)
    sim.integrator.tune_threads = False  # exactly OMP_NUM_THREADS (collapse_bench.py)
    with tempfile.TemporaryDirectory() as tmp:
        s = sim.run(args.end_time, output_dir=str(Path(tmp) / "run"),
                    snapshot_interval=args.end_time, diagnostics_every=20, observe_every=20,
                    progress_interval=0)
    r = {"case": f"sampler {args.run}", "threads": threads, "load_average_before": load,
         "particles": int((sim.kind == 0).sum()), "all_particles": int(sim.size),
         "steps": s.steps, "rejected": s.rejected, "wall_s": s.wall_seconds,
         "particle_steps_per_s": s.particle_steps_per_second,
         "neighbour_builds": s.neighbour_builds, "pair_selections": getattr(s, "pair_selections", None),
         "phases_s": collapse_bench.phases(s)}
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2) + "\n")
    print(f"[sampler {args.run}] {r['particles']} regolith particles ({r['all_particles']} in "
          f"all) to {args.end_time:g} s: {collapse_bench.speed_text(r, threads)}; "
          f"{collapse_bench.phase_text(r)}; load average before {load:.2f}", flush=True)


if __name__ == "__main__":
    main()
