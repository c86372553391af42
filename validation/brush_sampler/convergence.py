#!/usr/bin/env python3
"""Brush-sampler convergence: the runs behind the paper's findings at three inner spacings,
compared in mass, and the findings recomputed at the finest one.

    /usr/bin/python3 validation/brush_sampler/convergence.py --runs-dir runs/sampler_convergence
        [--runs E0 E3 P0 P5 P6] [--spacings 2.5e-3 1.75e-3 1.25e-3] [--run-missing [--jobs N]]

Runs live in <runs-dir>/<run>_<spacing in mm>mm. With --run-missing they are run (or continued
from their checkpoints, every 10 wall minutes) through regosph.sweep, one after another or
--jobs N at once (one process per core: the faster way on a workstation), which
records each run's wall time; runs of hours can be stopped and resumed across sessions. Only
the region the brushes reach is refined: the sampler's bed is the graded fill of
examples/brush_sampler.py (an inner region at the spacing, two damping zones at 2 and 4 times
it). Then, from whatever has finished, it writes into --out (default: this directory's
convergence/):
- convergence.csv: run, spacing, particles, tray count and mass at 0.5 s and 1 s, first entry,
  lifted particles, mean torque of each brush, steps, wall time;
- tray_mass.png: tray mass against time, one panel per run, one line per spacing;
- findings.md: the findings that these runs decide, in mass, at each spacing, each marked
  converged when its margin changes by less than its uncertainty between the two finest
  spacings (definitions in the file).
"""
import argparse
import math
import sys
from pathlib import Path

import numpy as np

import study
from regosph import post
from regosph.sweep import add_jobs_argument, is_finished, run_sweep

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

CORE_RUNS = ("E0", "E3", "P0", "P5", "P6")  # the runs behind the findings (issue 16)
SPACINGS = (2.5e-3, 1.75e-3, 1.25e-3)      # m, inner region
CHECKPOINT_MINUTES = 10


def run_name(run, spacing):
    return f"{run}_{spacing * 1e3:.2f}mm"


def sampler_command(spacing="{spacing}"):
    """The command template of one sampler run of these studies (regosph.sweep): checkpoints
    every CHECKPOINT_MINUTES, so a run stopped between sessions continues."""
    return [sys.executable, str(REPO / "examples" / "brush_sampler.py"), "--run", "{run}",
            "--spacing", spacing, "--output", "{output}",
            "--checkpoint-minutes", str(CHECKPOINT_MINUTES)]


def run_missing(runs_dir, runs, spacings, jobs=1):
    rows = [{"run": r, "spacing": repr(s), "end_time": repr(study.END_TIME)}
            for s in spacings for r in runs]  # every run coarse first: early answers
    return run_sweep(sampler_command(), rows, runs_dir,
                     name=lambda row: run_name(row["run"], float(row["spacing"])),
                     resume_args=["--restart"], jobs=jobs)


def particle_mass(run_dir):
    """Mass of one inner-region regolith particle [kg/m]: the tray counts and masses give it."""
    obs = post.Run(run_dir).observers
    counted = obs["tray.count"] > 0
    if not counted.any():
        return float("nan")
    return float((obs["tray.mass"][counted] / obs["tray.count"][counted]).median())


def collect(runs_dir, runs, spacings):
    """{(run, spacing): analysed row} for the finished runs, and the tray series."""
    table, series = {}, {}
    for r in runs:
        for s in spacings:
            d = Path(runs_dir) / run_name(r, s)
            if not is_finished(d, study.END_TIME):
                continue
            row = study.analyse(d)
            row["particle_mass_kg_per_m"] = particle_mass(d)
            table[(r, s)] = row
            obs = post.Run(d).observers
            series[(r, s)] = (obs["time"].to_numpy(), obs["tray.mass"].to_numpy())
    for s in spacings:
        share_particle_mass({k: v for k, v in table.items() if k[1] == s})
    return table, series


def share_particle_mass(rows):
    """A run that never had regolith in its tray has no particle mass of its own (NaN), yet its
    tray mass of 0 is uncertain by one particle: every run at one spacing has the same
    inner-region particle mass, so it takes another run's. `rows`: {key: row} of one spacing."""
    known = [r["particle_mass_kg_per_m"] for r in rows.values()
             if math.isfinite(r["particle_mass_kg_per_m"])]
    for r in rows.values():
        if not math.isfinite(r["particle_mass_kg_per_m"]) and known:
            r["particle_mass_kg_per_m"] = known[0]


def uncertainty(row, key):
    """Counting uncertainty of a tray mass [kg/m]: sqrt(N) particles' mass, at least one
    particle's (a single particle more or less is the resolution of the count)."""
    m = row.get("particle_mass_kg_per_m", float("nan"))
    if not math.isfinite(m):
        return 0.0
    n = row[key] / m if m > 0 else 0.0
    return m * max(1.0, math.sqrt(max(n, 0.0)))


def mass_difference(a, b, factor=1.0):
    """Margin M_a(1 s) - factor M_b(1 s) [kg/m] and its counting uncertainty, as functions of
    the rows {run: row} of one spacing."""
    key = "mass_1s_kg_per_m"
    return (lambda t: t[a][key] - factor * t[b][key],
            lambda t: math.hypot(uncertainty(t[a], key), factor * uncertainty(t[b], key)))


# The findings these runs decide: (statement, runs, margin(rows) -> kg/m or s, uncertainty).
# A finding holds when its margin is positive.
FINDINGS = [
    ("Phobos collects more than ten times Earth at 100 rpm: M_P0(1 s) - 10 M_E0(1 s) > 0",
     ("P0", "E0"), *mass_difference("P0", "E0", 10.0)),
    ("First material reaches the tray earlier on Phobos: t_E0 - t_P0 > 0 [s]",
     ("P0", "E0"),
     lambda t: (t["E0"]["first_entry_s"] if math.isfinite(t["E0"]["first_entry_s"]) else study.END_TIME)
     - t["P0"]["first_entry_s"],
     lambda t: 0.01),  # the tray is observed every few steps; snapshots 0.05 s apart
    ("Earth at 500 rpm still rising after 0.5 s: M_E3(1 s) - M_E3(0.5 s) > 0",
     ("E3",),
     lambda t: t["E3"]["mass_1s_kg_per_m"] - t["E3"]["mass_0.5s_kg_per_m"],
     lambda t: math.hypot(uncertainty(t["E3"], "mass_1s_kg_per_m"),
                          uncertainty(t["E3"], "mass_0.5s_kg_per_m"))),
    ("At 500 rpm on Phobos cohesion raises the rate: M_P6(1 s) - M_P5(1 s) > 0",
     ("P6", "P5"), *mass_difference("P6", "P5")),
    ("A little cohesion helps on Earth: M_E1(1 s) - M_E0(1 s) > 0",
     ("E1", "E0"), *mass_difference("E1", "E0")),
    ("At 100 rpm on Phobos cohesion lowers the rate: M_P0(1 s) - M_P1(1 s) > 0",
     ("P0", "P1"), *mass_difference("P0", "P1")),
]


def findings(table, spacings):
    """Per finding: its margin and uncertainty at each spacing with all its runs, and whether
    it converged (the margin at the two finest such spacings differs by less than the
    combined uncertainty)."""
    out = []
    for text, runs, margin, error in FINDINGS:
        values = []
        for s in spacings:
            if all((r, s) in table for r in runs):
                t = {r: table[(r, s)] for r in runs}
                values.append((s, margin(t), error(t)))
        converged = None
        if len(values) >= 2:
            (_, m1, e1), (_, m2, e2) = values[-2], values[-1]
            converged = abs(m2 - m1) <= math.hypot(e1, e2)
        out.append({"finding": text, "values": values, "converged": converged})
    return out


def write_csv(table, path):
    columns = ["run", "spacing_m", "particles", "count_0.5s", "mass_0.5s_kg_per_m", "count_1s",
               "mass_1s_kg_per_m", "first_entry_s", "lifted_0.5s", "lifted_1s",
               "mean_torque_left_N", "mean_torque_right_N", "steps", "wall_s"]
    with open(path, "w") as f:
        f.write(",".join(columns) + "\n")
        for (r, s), row in sorted(table.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
            f.write(",".join(str(row.get(c, s if c == "spacing_m" else r)) for c in columns) + "\n")


def write_findings(found, spacings, path):
    lines = ["# Brush sampler: findings against resolution (in tray mass, kg per m of depth)", "",
             "Margin > 0: the finding holds. Uncertainty: the counting error of each tray mass, "
             "sqrt(N) particle masses and at least one. Converged: the margin changes by less "
             "than the combined uncertainty between the two finest spacings run.", "",
             "| finding | " + " | ".join(f"{s * 1e3:.2f} mm" for s in spacings) + " | converged |",
             "|---|" + "---|" * (len(spacings) + 1)]
    for f in found:
        cells = []
        for s in spacings:
            v = [x for x in f["values"] if x[0] == s]
            cells.append(f"{v[0][1]:+.4g} ± {v[0][2]:.2g} ({'holds' if v[0][1] > 0 else 'fails'})"
                         if v else "not run")
        verdict = {None: "undecided (fewer than two spacings)", True: "yes", False: "no"}[f["converged"]]
        lines.append(f"| {f['finding']} | " + " | ".join(cells) + f" | {verdict} |")
    Path(path).write_text("\n".join(lines) + "\n")
    return "\n".join(lines)


def plot(series, runs, spacings, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = [r for r in runs if any((r, s) in series for s in spacings)]
    if not shown:
        return
    fig, axes = plt.subplots(1, len(shown), figsize=(3.6 * len(shown), 3.2), squeeze=False)
    for ax, r in zip(axes[0], shown):
        for s in spacings:
            if (r, s) in series:
                t, m = series[(r, s)]
                ax.plot(t, m * 1e3, label=f"{s * 1e3:.2f} mm")
        ax.set(title=r, xlabel="t [s]", ylabel="tray mass [g/m]")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-dir", required=True)
    ap.add_argument("--runs", nargs="+", default=list(CORE_RUNS))
    ap.add_argument("--spacings", type=float, nargs="+", default=list(SPACINGS))
    ap.add_argument("--run-missing", action="store_true")
    add_jobs_argument(ap, "with --run-missing: ")
    ap.add_argument("--out", default=str(HERE / "convergence"))
    args = ap.parse_args(argv)
    unknown = [r for r in args.runs if r not in study.bs.RUNS]
    if unknown:
        ap.error(f"--runs: {', '.join(unknown)} not in the run table ({', '.join(study.bs.RUNS)})")
    spacings = sorted(args.spacings, reverse=True)
    if args.run_missing:
        run_missing(args.runs_dir, args.runs, spacings, args.jobs)
    table, series = collect(args.runs_dir, args.runs, spacings)
    if not table:
        print(f"no finished runs in {args.runs_dir}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(table, out / "convergence.csv")
    plot(series, args.runs, spacings, out / "tray_mass.png")
    print(write_findings(findings(table, spacings), spacings, out / "findings.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
