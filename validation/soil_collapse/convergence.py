#!/usr/bin/env python3
"""Soil-collapse convergence: the validation run at three particle spacings, its metrics against
the experiment at each, and their observed order of convergence.

    /usr/bin/python3 validation/soil_collapse/convergence.py --output runs/collapse_convergence
        [--spacings 2.582e-3 1.8e-3 1.29e-3] [--report-only]

Each spacing runs validation/soil_collapse/run.py into <output>/spacing_<mm>mm (a finished run,
one with report.json, is reused: --rerun replaces it). Writes into --output:
- convergence.csv: spacing, particles, steps, wall time and the metrics of each run;
- convergence.md: the table, the observed orders and what converges;
- convergence.png: the final surfaces and the metrics against spacing.

Quantities and their definitions (SI units):
- surface RMS, runout (continuous deposit: first gap wider than the kernel support radius),
  farthest particle and failure-line RMS: as compare.py defines them;
- deposit edge: the first x, walking out from the wall, at which the deposit is thinner than
  EDGE_THICKNESS, the deposit's thickness being the top of its highest particle within half a
  spacing of x. The threshold is the same at every resolution and several particles thick at
  the coarsest (10 mm, four paper spacings), so the edge belongs to the deposit as a continuum:
  the farthest particle and the gap-based runout contain the spacing in their definitions (a
  front one particle thick, a gap of one support radius) and do not converge, and a 5 mm
  threshold (two paper spacings) gives 0.372, 0.366, 0.395 m, no monotone sequence;
- x90: the x that 90 % of the soil's particles (equal masses) lie behind;
- surface change: RMS over the measured x points of the difference between a run's surface and
  the next finer one's; its ratio between the two pairs gives the order of the surface.
A length whose three values lie within one spacing (of the middle resolution) of each other
is reported as converged to the resolution: its differences are then discretisation noise, and
an order means nothing. The observed order p of a quantity q at spacings s1 > s2 > s3 solves
(q1 - q2) / (q2 - q3) = (s1^p - s2^p) / (s2^p - s3^p) (Roache 1998, with unequal refinement
ratios); it exists when the differences have the same sign (monotone convergence).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np

import compare

HERE = Path(__file__).resolve().parent

EDGE_THICKNESS = 10e-3  # m (see the docstring)
DEFAULT_SPACINGS = (2.582e-3, 1.8e-3, 1.29e-3)  # m: the paper's, and two refinements by ~1.4


def run_directory(root, spacing):
    return Path(root) / f"spacing_{spacing * 1e3:.3f}mm"


def run_one(root, spacing, rerun):
    """Runs the validation at `spacing` unless a finished run is there; returns its wall time
    [s] (None when reused)."""
    out = run_directory(root, spacing)
    if (out / "report.json").is_file() and not rerun:
        return None
    command = [sys.executable, str(HERE / "run.py"), "--output", str(out), "--spacing", repr(spacing),
               "--overwrite"]
    start = time.monotonic()
    status = subprocess.call(command)
    wall = time.monotonic() - start
    if status not in (0, 1):  # 1: the comparison failed, still a finished run
        sys.exit(f"error: the run at spacing {spacing} m stopped with status {status}")
    (out / "wall_time.json").write_text(json.dumps({"wall_time_s": wall}))
    return wall


def deposit_edge(final, spacing):
    """First x [m] from the wall where the deposit is thinner than EDGE_THICKNESS, its
    thickness at x being the top (y + spacing / 2) of the highest particle within one spacing
    of x (a window of two spacings: a column never looks empty between two particles)."""
    order = np.argsort(final[:, 0])
    px, py = final[order, 0], final[order, 1]
    for x in np.arange(0.5 * spacing, px[-1] + spacing, 0.25 * spacing):
        lo, hi = np.searchsorted(px, [x - spacing, x + spacing], side="right")
        if hi <= lo or py[lo:hi].max() + 0.5 * spacing < EDGE_THICKNESS:
            return float(x)
    return float(px[-1] + 0.5 * spacing)


def collect(root, spacing):
    out = run_directory(root, spacing)
    report = json.loads((out / "report.json").read_text())
    snapshots = sorted(out.glob("snapshot_*.h5"))
    final, _, _ = compare.read_soil(snapshots[-1])
    with h5py.File(snapshots[-1], "r") as f:
        steps = int(f.attrs["step"])
    wall_file = out / "wall_time.json"
    wall = json.loads(wall_file.read_text())["wall_time_s"] if wall_file.is_file() else float("nan")
    return {
        "spacing_m": spacing,
        "particles": len(final),
        "steps": steps,
        "wall_time_s": wall,
        "surface_rms_m": report["surface_rms_m"],
        "runout_m": report["runout_m"],
        "runout_error_m": report["runout_error_m"],
        "farthest_particle_m": report["farthest_particle_m"],
        "deposit_edge_m": deposit_edge(final, spacing),
        "x90_m": compare.x90(final),
        "failure_line_rms_m": report["failure_line_rms_m"],
        "passed": report["passed"],
        "_surface": np.array(report["surface_points"]["simulation_m"]),
        "_x": np.array(report["surface_points"]["x_m"]),
        "_experiment": np.array(report["surface_points"]["experiment_m"]),
        "_final": final,
    }


def observed_order(s, q):
    """Order p of q(s) = q* + C s^p from three (s, q), s decreasing; None when the differences
    change sign or vanish (not monotone)."""
    d12, d23 = q[0] - q[1], q[1] - q[2]
    if d12 == 0.0 or d23 == 0.0 or (d12 > 0) != (d23 > 0):
        return None
    ratio = d12 / d23

    def f(p):
        return (s[0] ** p - s[1] ** p) / (s[1] ** p - s[2] ** p) - ratio

    lo, hi = 1e-3, 10.0
    if f(lo) * f(hi) > 0:
        return None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def write_outputs(root, rows):
    root = Path(root)
    columns = [k for k in rows[0] if not k.startswith("_")]
    with open(root / "convergence.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in columns})
    s = [r["spacing_m"] for r in rows]
    lines = ["# Soil collapse: convergence with particle spacing", "",
             "| spacing [mm] | particles | steps | wall [s] | surface RMS [mm] | runout [m] | "
             "deposit edge [m] | x90 [m] | farthest particle [m] | failure-line RMS [mm] | passed |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['spacing_m'] * 1e3:.3f} | {r['particles']} | {r['steps']} | "
                     f"{r['wall_time_s']:.0f} | {r['surface_rms_m'] * 1e3:.2f} | {r['runout_m']:.3f} | "
                     f"{r['deposit_edge_m']:.3f} | {r['x90_m']:.3f} | {r['farthest_particle_m']:.3f} | "
                     f"{r['failure_line_rms_m'] * 1e3:.2f} | {'yes' if r['passed'] else 'no'} |")
    lines += ["", "Observed order of convergence p (three finest spacings; Roache's formula for "
              "unequal refinement ratios; '-' = not monotone) and the Richardson extrapolation "
              "q3 + (q3 - q2) / ((s2 / s3)^p - 1) to zero spacing:", ""]
    orders = {}
    if len(rows) >= 3:
        last = rows[-3:]
        ss = [r["spacing_m"] for r in last]
        for key, name in [("deposit_edge_m", "deposit edge"), ("x90_m", "x90"),
                          ("runout_m", "runout (gap-based)"),
                          ("farthest_particle_m", "farthest particle"),
                          ("surface_rms_m", "surface RMS against the experiment"),
                          ("failure_line_rms_m", "failure-line RMS")]:
            q = [r[key] for r in last]
            p = observed_order(ss, q)
            orders[name] = p
            text = "-" if p is None else f"p = {p:.2f}"
            spread = max(q) - min(q)
            if key.endswith("_m") and key not in ("surface_rms_m", "failure_line_rms_m") \
                    and spread < ss[1]:
                text += (f"; converged to the resolution: the three values lie within "
                         f"{spread * 1e3:.1f} mm, less than one spacing")
            if p is not None and p >= 1.0:  # below, the extrapolation is too uncertain to quote
                text += f", extrapolated {q[2] + (q[2] - q[1]) / ((ss[1] / ss[2]) ** p - 1):.4g}"
            lines.append(f"- {name}: {text}")
        d12 = float(np.sqrt(np.mean((last[0]["_surface"] - last[1]["_surface"]) ** 2)))
        d23 = float(np.sqrt(np.mean((last[1]["_surface"] - last[2]["_surface"]) ** 2)))
        r = math.sqrt(ss[0] / ss[2])  # the mean refinement ratio
        p_surface = math.log(d12 / d23) / math.log(r) if d12 > 0 and d23 > 0 else float("nan")
        lines.append(f"- surface profile: change {d12 * 1e3:.2f} mm then {d23 * 1e3:.2f} mm, "
                     f"p = {p_surface:.2f}")
    lines += ["", "Definitions: see the docstring of validation/soil_collapse/convergence.py."]
    (root / "convergence.md").write_text("\n".join(lines) + "\n")
    plot(root, rows)
    return "\n".join(lines)


def plot(root, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(rows[0]["_x"], rows[0]["_experiment"], "ko", label="experiment (Bui 2008)")
    for r in rows:
        xs = np.linspace(0.5 * rows[0]["spacing_m"], 0.5, 500)
        a.plot(xs, compare.surface_height(r["_final"], xs, r["spacing_m"]),
               label=f"{r['spacing_m'] * 1e3:.2f} mm")
    a.set(xlabel="x [m]", ylabel="surface [m]", title="final surface at 1 s")
    a.legend()
    s = np.array([r["spacing_m"] for r in rows]) * 1e3
    for key, name in [("deposit_edge_m", f"deposit edge ({EDGE_THICKNESS * 1e3:g} mm thick)"),
                      ("runout_m", "runout (gap)"), ("farthest_particle_m", "farthest particle")]:
        b.plot(s, [r[key] for r in rows], "o-", label=name)
    b.plot(s, [r["x90_m"] for r in rows], "s-", label="x90")
    b.axhline(rows[0]["runout_m"] - rows[0]["runout_error_m"], color="k", ls="--",
              label="experiment runout")
    b.set(xlabel="spacing [mm]", ylabel="x [m]", title="deposit extent")
    b.invert_xaxis()
    b.legend()
    fig.tight_layout()
    fig.savefig(Path(root) / "convergence.png", dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", required=True, help="directory of the runs and the report")
    ap.add_argument("--spacings", type=float, nargs="+", default=list(DEFAULT_SPACINGS),
                    help="particle spacings [m], coarsest first")
    ap.add_argument("--rerun", action="store_true", help="replace finished runs")
    ap.add_argument("--report-only", action="store_true", help="only collect finished runs")
    args = ap.parse_args(argv)
    spacings = sorted(args.spacings, reverse=True)
    if any(not (math.isfinite(s) and s > 0) for s in spacings):
        ap.error("--spacings: every spacing must be a positive length in m")
    Path(args.output).mkdir(parents=True, exist_ok=True)
    for s in spacings:
        if not args.report_only:
            run_one(args.output, s, args.rerun)
        if not (run_directory(args.output, s) / "report.json").is_file():
            sys.exit(f"error: no finished run at spacing {s} m in {run_directory(args.output, s)}")
    rows = [collect(args.output, s) for s in spacings]
    print(write_outputs(args.output, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
