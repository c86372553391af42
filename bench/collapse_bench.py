#!/usr/bin/env python3
"""Benchmark: the paper-resolution soil collapse (2926 soil particles, 1 s simulated).

Prints wall time, particle-steps per second (dynamic particles x accepted steps / wall time),
the same per core, the wall time per integrator phase, and the validation metrics, for the
two settings of the artificial-viscosity sound speed:
  - "paper": the fixed 600 m/s of Schaefer et al. (2017); the Courant condition then includes
    1.2 alpha c_visc = 216 m/s and bounds the step, not the soil's elastic wave speed;
  - "own":   the soil's own elastic wave speed, c_p = sqrt((K + 4 mu / 3) / rho) ~ 20.7 m/s.

    /usr/bin/python3 bench/collapse_bench.py [--settings own paper] [--end-time 1]
        [--tune-threads] [--competitor]

The run uses exactly OMP_NUM_THREADS threads unless --tune-threads lets it choose (the
default of every other run, IntegratorOptions.tune_threads); --competitor runs it beside one
CPU-bound process.
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
sys.path.insert(0, str(ROOT / "validation" / "soil_collapse"))

import compare  # noqa: E402
from regosph.examples import soil_collapse  # noqa: E402

SETTINGS = {"paper": soil_collapse.PAPER_VISCOSITY_SOUND_SPEED, "own": 0.0}


def phases(summary):
    """Wall seconds of each integrator phase of a RunSummary."""
    ph = summary.phases
    return {"neighbours": ph.neighbours, "boundary": ph.boundary,
            "derivatives": ph.derivatives, "updates": ph.updates}


def speed_text(r, threads):
    """Steps, wall time and speed of a result as one phrase (with a tuned thread count, the
    steps the run took on all threads and on one)."""
    tuned = r.get("steps_all_threads", 0) + r.get("steps_one_thread", 0)
    return (f"{r['steps']} steps ({r['rejected']} rejected), {r['wall_s']:.2f} s wall, "
            f"{r['particle_steps_per_s'] / 1e6:.3f} M particle-steps/s on {threads} threads"
            + (f" ({r['steps_all_threads']} steps on {threads}, {r['steps_one_thread']} on 1, "
               f"by the tuner)" if tuned else ""))


def phase_text(r):
    """The phases of a result (with its neighbour builds and pair selections) as one phrase."""
    ph = r["phases_s"]
    # Without MPI halo copies the wall extrapolation runs inside the right-hand side.
    walls = (f"walls {ph['boundary']:.2f} s, rhs {ph['derivatives']:.2f} s" if ph["boundary"] > 0
             else f"rhs with walls {ph['derivatives']:.2f} s")
    return (f"neighbours {ph['neighbours']:.2f} s ({r['neighbour_builds']} builds, "
            f"{r.get('pair_selections', '?')} selections), {walls}, updates "
            f"{ph['updates']:.2f} s")


def bench(setting, end_time, workdir, tune_threads=False):
    sim = soil_collapse.build(soil_collapse.PAPER_SPACING, SETTINGS[setting])
    # A benchmark of a thread count runs on that count; --tune-threads lets the run choose
    # (IntegratorOptions.tune_threads, the default of every other run).
    sim.integrator.tune_threads = tune_threads
    out = Path(workdir) / setting
    s = sim.run(end_time, output_dir=str(out), snapshot_interval=end_time, progress_interval=0)
    snaps = sorted(out.glob("snapshot_*.h5"))
    initial, _, _ = compare.read_soil(snaps[0])
    final, _, _ = compare.read_soil(snaps[-1])
    m = compare.compare(initial, final, soil_collapse.PAPER_SPACING,
                        soil_collapse.SMOOTHING_FACTOR * soil_collapse.PAPER_SPACING)
    return {
        "setting": setting,
        "viscosity_sound_speed_m_s": SETTINGS[setting],
        "soil_particles": int((sim.kind == 0).sum()),
        "wall_particles": int((sim.kind == 1).sum()),
        "steps": s.steps,
        "rejected": s.rejected,
        "wall_s": s.wall_seconds,
        "particle_steps_per_s": s.particle_steps_per_second,
        "neighbour_builds": s.neighbour_builds,
        "pair_selections": getattr(s, "pair_selections", None),
        "phases_s": phases(s),
        "steps_all_threads": s.steps_all_threads,
        "steps_one_thread": s.steps_one_thread,
        "surface_rms_mm": m["surface_rms_m"] * 1e3,
        "runout_error_cm": m["runout_error_m"] * 1e2,
        "failure_line_rms_mm": m["failure_line_rms_m"] * 1e3,
        "passed": m["passed"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", nargs="+", default=["own", "paper"], choices=list(SETTINGS))
    ap.add_argument("--end-time", type=float, default=1.0)
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--tune-threads", action="store_true",
                    help="let the run choose its thread count (default: exactly OMP_NUM_THREADS)")
    ap.add_argument("--competitor", action="store_true",
                    help="run beside one CPU-bound process (a busy Python loop), as on a "
                         "workstation running another job")
    args = ap.parse_args()
    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))
    results = []
    competitor = None
    if args.competitor:
        competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.5)  # running before the timed run starts
    try:
        with tempfile.TemporaryDirectory() as tmp:
            results = run_settings(args, threads, tmp)
    finally:
        if competitor:
            competitor.kill()
            competitor.wait()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


def run_settings(args, threads, tmp):
    """Runs each setting in `tmp`, prints its line and returns the results."""
    results = []
    for setting in args.settings:
        r = bench(setting, args.end_time, tmp, args.tune_threads)
        r["threads"] = threads
        r["tuned"] = args.tune_threads
        r["competitor"] = args.competitor
        results.append(r)
        r["load_average_after"] = os.getloadavg()[0]
        print(f"[{setting:5s}] c_visc {r['viscosity_sound_speed_m_s']:5.0f} m/s: "
              f"{speed_text(r, threads)} "
              f"({r['particle_steps_per_s'] / 1e6 / threads:.3f} M per core); "
              f"{phase_text(r)}; surface RMS {r['surface_rms_mm']:.2f} mm, "
              f"runout error {r['runout_error_cm']:+.1f} cm, "
              f"{'PASS' if r['passed'] else 'FAIL'}; load average after "
              f"{r['load_average_after']:.2f}"
              f"{'; thread count tuned' if args.tune_threads else ''}"
              f"{'; beside a CPU-bound process' if args.competitor else ''}", flush=True)
    return results


if __name__ == "__main__":
    main()
