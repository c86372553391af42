#!/usr/bin/env python3
"""The sampling study of Schaefer et al. (2017), section 5: the 13 runs of SPEC.md section 8,
their tray counts, and the findings of the paper checked against them.

    /usr/bin/python3 validation/brush_sampler/study.py --runs-dir runs/brush_sampler [--run-missing]

Reads <runs-dir>/<run>/ for every run of the table (runs them first with --run-missing, at
--resolution), then writes into --out (default: this directory):
  results.csv     one row per run: parameters, particles and mass in the tray at 0.5 s and 1 s,
                  the most at any time up to 1 s, time of first entry, peak and mean torque
                  on each brush, max regolith speed, steps and wall time
  tray_count.png  tray count against time, Earth and Phobos runs side by side
  speed_<run>_<t>.png  the regolith coloured by speed for the runs of SPEED_FIGURES
  report.md       the table, each finding (reproduced or not) and the text of --discussion
Exits 1 when a finding the issue requires is not reproduced, 2 when runs are missing.
"""
import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

from regosph import post, validation
from regosph.examples import brush_sampler as bs
from regosph.sweep import SWEEP_MARKER, is_finished

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

END_TIME = 1.0  # s, the time the findings refer to
# Speed plots copied next to the report as speed_<run>_<time>.png: collecting on Phobos and
# on Earth at 500 rpm, and clearing.
SPEED_FIGURES = (("P0", 1.0), ("E3", 1.0), ("P7", 1.0))


def analyse(run_dir):
    """The numbers of one run (a dict), from its observers and diagnostics."""
    run = post.Run(run_dir)
    meta = run.metadata
    obs = run.observers
    diag = run.diagnostics
    row = {"run": meta["run"], "gravity_m_s2": float(meta["gravity_m_s2"]),
           "rpm": float(meta["rpm"]), "friction_angle_deg": float(meta["friction_angle_deg"]),
           "cohesion_Pa": float(meta["cohesion_Pa"]), "spacing_m": float(meta["spacing_m"]),
           "end_time_s": float(obs["time"].iloc[-1]), "particles": run.particle_count}
    for t in (0.5, END_TIME):
        row[f"count_{t:g}s"] = post.value_at(obs["time"], obs["tray.count"], t)
        row[f"mass_{t:g}s_kg_per_m"] = post.value_at(obs["time"], obs["tray.mass"], t)
    until_end = obs["time"] <= END_TIME + 1e-9
    row["max_count"] = float(obs["tray.count"][until_end].max())  # material also falls back out
    row["first_entry_s"] = post.first_crossing(obs["time"], obs["tray.count"], 1)
    # Torque about the pivot on each brush [N m per m of depth]: peak |torque| and its mean
    # once the brushes are down (t >= the end of the descent), what sizes a motor.
    down = diag["time"] >= bs.DESCENT_TIME
    for side in ("left", "right"):
        torque = diag[f"brush {side}.torque_z"]
        row[f"peak_torque_{side}_N"] = float(torque.abs().max())
        row[f"mean_torque_{side}_N"] = float(torque[down].mean())
    row["max_speed_m_s"] = float(diag["max_speed"].max())
    share = validation.dissipation_share(diag)
    row.update(numerical_share=share.share, dissipation_J_per_m=share.total)
    row.update(lifted(run))
    row["steps"] = int(obs["step"].iloc[-1])
    # The run's wall time over all its segments (restarts included), from its checkpoint;
    # older runs have it only from the sweep's marker (their last segment).
    row["wall_s"] = run.wall_seconds
    marker = Path(run_dir) / SWEEP_MARKER
    if not math.isfinite(row["wall_s"]) and marker.is_file():
        row["wall_s"] = float(json.loads(marker.read_text()).get("wall_seconds", "nan"))
    return row


def lifted(run, times=(0.5, END_TIME)):
    """The supply of the tray: how many distinct regolith particles the snapshots have shown
    above the brushes' pivots (33.4 mm above the initial surface once the tools are down) by
    each time [s]. Snapshots are 0.05 s apart, so brief flights in between are missed."""
    height = bs.PIVOT_HEIGHT - bs.DESCENT_SPEED * bs.DESCENT_TIME
    seen, out = set(), {f"lifted_{t:g}s": float("nan") for t in times}
    for snap in run.snapshots():
        up = snap.select(material="regolith", kind="dynamic") & (snap["position"][:, 1] > height)
        seen.update(snap["id"][up].tolist())
        for t in times:
            if abs(snap.time - t) <= 1e-9:
                out[f"lifted_{t:g}s"] = float(len(seen))
    return out


def findings(table):
    """The paper's findings as acceptance checks (validation.Check: the statement, whether it
    was reproduced, the numbers, whether the issue requires it)."""
    c1 = table["count_1s"]
    first = table["first_entry_s"]
    out = []

    def add(text, required, ok, detail):
        out.append(validation.Check(text, bool(ok), detail, required))

    add("Phobos collects more than ten times Earth's rate at 100 rpm: P0(1 s) >= 10 x E0(1 s)",
        True, c1["P0"] >= 10 * c1["E0"] and c1["P0"] > 0,
        f"P0 {c1['P0']:.0f}, E0 {c1['E0']:.0f} (most at any time: {table['max_count']['E0']:.0f})")
    add("Earth needs a fast brush: E3 > E2 > E0 at 1 s", True,
        c1["E3"] > c1["E2"] > c1["E0"], f"E3 {c1['E3']:.0f}, E2 {c1['E2']:.0f}, E0 {c1['E0']:.0f}")
    add("First material reaches the tray earlier in P0 than in E0", True,
        np.isfinite(first["P0"]) and not first["E0"] <= first["P0"],
        f"P0 {first['P0']:.3f} s, E0 {first['E0']:.3f} s (paper: 0.35 s and 0.75 s)")
    add("The clearing runs P7, P8 collect far less than P0 (at most a quarter)", True,
        c1["P7"] <= 0.25 * c1["P0"] and c1["P8"] <= 0.25 * c1["P0"],
        f"P7 {c1['P7']:.0f}, P8 {c1['P8']:.0f}, P0 {c1['P0']:.0f}")
    add("Earth, 100 rpm: almost nothing in the tray at 1 s (paper: < 20 particles)", False,
        c1["E0"] < 0.05 * max(c1.max(), 1), f"E0 {c1['E0']:.0f} of at most {c1.max():.0f}")
    add("A little cohesion helps slightly on Earth: E1 > E0", False, c1["E1"] > c1["E0"],
        f"E1 {c1['E1']:.0f}, E0 {c1['E0']:.0f}")
    c05 = table["count_0.5s"]
    add("On Earth the count still rises after 0.5 s at 300 and 500 rpm: E2, E3 higher at 1 s "
        "than at 0.5 s", False, c1["E2"] > c05["E2"] and c1["E3"] > c05["E3"],
        f"E2 {c05['E2']:.0f} -> {c1['E2']:.0f}, E3 {c05['E3']:.0f} -> {c1['E3']:.0f}")
    add("At 100 rpm on Phobos cohesion lowers the rate: P0 > P1 > P3", False,
        c1["P0"] > c1["P1"] > c1["P3"], f"P0 {c1['P0']:.0f}, P1 {c1['P1']:.0f}, P3 {c1['P3']:.0f}")
    add("At 500 rpm on Phobos cohesion raises the rate: P6 > P5", False, c1["P6"] > c1["P5"],
        f"P6 {c1['P6']:.0f}, P5 {c1['P5']:.0f}")
    add("Low friction with cohesion collects less than 42 deg: P2 < P3", False,
        c1["P2"] < c1["P3"], f"P2 {c1['P2']:.0f}, P3 {c1['P3']:.0f}")
    most = table["max_count"]
    add("Clearing: a few particles still enter the tray in P7, P8", False,
        most["P7"] > 0 and most["P8"] > 0,
        f"most in the tray up to 1 s: P7 {most['P7']:.0f}, P8 {most['P8']:.0f}")
    out.append(validation.numerical_share_check("every run", {
        run: validation.DissipationShare.from_row(r) for run, r in table.iterrows()}))
    return out


def _cell(value, fmt):
    return "–" if isinstance(value, float) and np.isnan(value) else format(value, fmt)


def report(table, found, out, runs_dir, discussion=None):
    """report.md: setup, the table, the findings, the figure and, when the file `discussion`
    exists, its text (the explanations and caveats written by hand) as the last section."""
    dx = table["spacing_m"].iloc[0]
    try:
        shown = Path(runs_dir).resolve().relative_to(REPO)
    except ValueError:
        shown = runs_dir
    lines = ["# Brush sampler study (SPEC.md section 8)", "",
             f"13 runs of `examples/brush_sampler.py`, {END_TIME:g} s of physical time each, inner "
             f"regolith spacing {dx * 1e3:.2f} mm (support radius "
             f"{bs.SMOOTHING_FACTOR * dx * 1e3:.2f} mm; the paper: 3 mm), "
             f"{table['particles'].iloc[0]} particles (the paper: ~280 000). Run directories: "
             f"`{shown}` (not committed); all numbers in `results.csv`.", "",
             "Counts are regolith particles inside the tray's interior; at a coarser resolution "
             "fewer particles carry the same mass, so the mass [g per m of depth] is given too. "
             "Torques are about each brush's pivot per metre of depth [N m/m], peak |torque| "
             "over the run and mean after the descent (t >= 0.2 s); for a collecting run the "
             "left brush turns counter-clockwise, so a negative left torque resists it. Lifted: "
             "distinct regolith particles seen above the pivots (33.4 mm above the initial "
             "surface) in the snapshots by 0.5 s and 1 s, the tray's supply. Wall "
             "time: the whole run (setup, 1 s, plots) on a machine shared with other jobs.", "",
             "| run | g [m/s²] | rpm | φ [°] | c [kPa] | in tray 0.5 s | in tray 1 s | "
             "max ≤ 1 s | mass 1 s [g/m] | first entry [s] | lifted 0.5 / 1 s | "
             "peak torque L / R [N m/m] | mean torque L / R [N m/m] | scheme's share | steps | "
             "wall [s] |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, r in table.iterrows():
        lines.append(
            f"| {r['run']} | {r['gravity_m_s2']:g} | {r['rpm']:g} | {r['friction_angle_deg']:g} | "
            f"{r['cohesion_Pa'] / 1e3:g} | {_cell(r['count_0.5s'], '.0f')} | "
            f"{_cell(r['count_1s'], '.0f')} | {_cell(r['max_count'], '.0f')} | "
            f"{_cell(r['mass_1s_kg_per_m'] * 1e3, '.1f')} | {_cell(r['first_entry_s'], '.3f')} | "
            f"{_cell(r['lifted_0.5s'], '.0f')} / {_cell(r['lifted_1s'], '.0f')} | "
            f"{r['peak_torque_left_N']:.2f} / {r['peak_torque_right_N']:.2f} | "
            f"{r['mean_torque_left_N']:+.3f} / {r['mean_torque_right_N']:+.3f} | "
            f"{100 * r['numerical_share']:.0f} % | {r['steps']} | {_cell(r['wall_s'], '.0f')} |")
    lines += ["", "## Findings of the paper", "",
              "| finding | required by the issue | reproduced | numbers |", "|---|---|---|---|"]
    for f in found:
        text, required, ok, detail = f.name, f.required, f.passed, f.detail
        lines.append(f"| {text} | {'yes' if required else 'no'} | {'yes' if ok else '**no**'} | "
                     f"{detail} |")
    lines += ["", *validation.physics_section(Path(runs_dir) / r for r in table["run"])]
    lines += ["", "![tray count](tray_count.png)", ""]
    lines += [f"![{name} at {t:g} s](speed_{name}_{t:.3f}s.png)" for name, t in SPEED_FIGURES]
    lines += [""]
    if discussion is not None and Path(discussion).is_file():
        lines += ["## Discussion and caveats", "", Path(discussion).read_text().strip(), ""]
    (out / "report.md").write_text("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-dir", default=str(REPO / "runs" / "brush_sampler"))
    ap.add_argument("--out", default=str(HERE), help="where results.csv, report.md, tray_count.png go")
    ap.add_argument("--run-missing", action="store_true",
                    help="run the missing runs first (examples/brush_sampler.py --sweep)")
    ap.add_argument("--resolution", default="default", choices=list(bs.RESOLUTIONS))
    ap.add_argument("--discussion", default=str(HERE / "discussion.md"),
                    help="hand-written explanations and caveats, appended to report.md")
    args = ap.parse_args(argv)
    runs_dir, out = Path(args.runs_dir), Path(args.out)
    if args.run_missing:
        subprocess.run([sys.executable, str(REPO / "examples" / "brush_sampler.py"), "--sweep",
                        str(runs_dir), "--resolution", args.resolution], check=False)
    missing = [r for r in bs.RUNS if not is_finished(runs_dir / r, END_TIME)]
    if missing:
        print(f"error: {runs_dir}: no finished run for {', '.join(missing)} "
              "(pass --run-missing to run them)", file=sys.stderr)
        return 2
    import pandas as pd

    table = pd.DataFrame([analyse(runs_dir / name) for name in bs.RUNS]).set_index("run", drop=False)
    found = findings(table)
    out.mkdir(parents=True, exist_ok=True)
    validation.save_results(table, out)
    bs.plot_tray_counts([runs_dir / name for name in bs.RUNS], out / "tray_count.png")
    for name, t in SPEED_FIGURES:
        bs.plot_speed(runs_dir / name, [t], out_dir=out, name=f"speed_{name}_{{time:.3f}}s.png")
    report(table, found, out, runs_dir, args.discussion)
    print(table[["run", "count_0.5s", "count_1s", "first_entry_s", "peak_torque_left_N"]]
          .to_string(index=False))
    print("\n".join(f.line() for f in found))
    print(f"wrote {out / 'results.csv'}, {out / 'report.md'}, {out / 'tray_count.png'}")
    return validation.exit_status(found)


if __name__ == "__main__":
    sys.exit(main())
