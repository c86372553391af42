#!/usr/bin/env python3
"""The sampling study of Schaefer et al. (2017), section 5: the 13 runs of SPEC.md section 8,
their tray counts, and the findings of the paper checked against them.

    /usr/bin/python3 validation/brush_sampler/study.py --runs-dir runs/brush_sampler [--run-missing]

Reads <runs-dir>/<run>/ for every run of the table (runs them first with --run-missing, at
--resolution), then writes into --out (default: this directory):
  results.csv     one row per run: parameters, particles and mass in the tray at 0.5 s and 1 s,
                  time of first entry, peak torque on each brush, max regolith speed
  tray_count.png  tray count against time, Earth and Phobos runs side by side
  report.md       the table and each finding, reproduced or not
Exits 1 when a finding the issue requires is not reproduced, 2 when runs are missing.
"""
import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "examples"))

import brush_sampler as bs  # noqa: E402
from regosph import post  # noqa: E402

ESCAPE_SPEED_PHOBOS = 11.39  # m/s (Schaefer 2017, section 5.3)


def analyse(run_dir):
    """The numbers of one run (a dict), from its observers and diagnostics."""
    run = post.Run(run_dir)
    meta = run.metadata
    obs = run.observers
    diag = run.diagnostics
    row = {"run": meta["run"], "gravity_m_s2": float(meta["gravity_m_s2"]),
           "rpm": float(meta["rpm"]), "friction_angle_deg": float(meta["friction_angle_deg"]),
           "cohesion_Pa": float(meta["cohesion_Pa"]), "spacing_m": float(meta["spacing_m"]),
           "end_time_s": float(obs["time"].iloc[-1])}
    for t in (0.5, 1.0):
        row[f"count_{t:g}s"] = post.value_at(obs, "tray.count", t)
        row[f"mass_{t:g}s_kg_per_m"] = post.value_at(obs, "tray.mass", t)
    row["first_entry_s"] = post.first_entry(obs, "tray.count")
    for side in ("left", "right"):
        row[f"peak_torque_{side}_N"] = float(diag[f"brush {side}.torque_z"].abs().max())
    row["max_speed_m_s"] = float(diag["max_speed"].max())
    return row


def findings(table):
    """[(statement, required, reproduced, detail)] for the paper's findings."""
    c1 = table["count_1s"]
    first = table["first_entry_s"]
    out = []

    def add(text, required, ok, detail):
        out.append((text, required, bool(ok), detail))

    add("Phobos collects more than ten times Earth's rate at 100 rpm: P0(1 s) >= 10 x E0(1 s)",
        True, c1["P0"] >= 10 * c1["E0"] and c1["P0"] > 0, f"P0 {c1['P0']:.0f}, E0 {c1['E0']:.0f}")
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
    add("A little cohesion helps slightly on Earth: E1 >= E0", False, c1["E1"] >= c1["E0"],
        f"E1 {c1['E1']:.0f}, E0 {c1['E0']:.0f}")
    add("At 100 rpm on Phobos cohesion lowers the rate: P0 > P1 > P3", False,
        c1["P0"] > c1["P1"] > c1["P3"], f"P0 {c1['P0']:.0f}, P1 {c1['P1']:.0f}, P3 {c1['P3']:.0f}")
    add("At 500 rpm on Phobos cohesion raises the rate: P6 > P5", False, c1["P6"] > c1["P5"],
        f"P6 {c1['P6']:.0f}, P5 {c1['P5']:.0f}")
    add("Low friction with cohesion collects less than 42 deg: P2 < P3", False,
        c1["P2"] < c1["P3"], f"P2 {c1['P2']:.0f}, P3 {c1['P3']:.0f}")
    return out


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=False)
    for name, run in runs.items():
        obs = run.observers
        ax = axes[0] if name.startswith("E") else axes[1]
        ax.plot(obs["time"], obs["tray.count"], label=name, lw=1.4)
    for ax, title in zip(axes, ("Earth, g = 9.81 m/s²", "Phobos, g = 5.7e-3 m/s²")):
        ax.set(xlabel="time [s]", ylabel="regolith particles in the tray", title=title)
        ax.grid(alpha=0.3)
        ax.legend(ncol=2, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def report(table, found, out, runs_dir):
    cols = ["run", "gravity_m_s2", "rpm", "friction_angle_deg", "cohesion_Pa", "count_0.5s",
            "count_1s", "mass_1s_kg_per_m", "first_entry_s", "peak_torque_left_N",
            "peak_torque_right_N", "max_speed_m_s"]
    lines = ["# Brush sampler study (SPEC.md section 8)", "",
             f"Runs: `{runs_dir}`, inner spacing {table['spacing_m'].iloc[0] * 1e3:.2f} mm "
             f"(support radius {bs.SMOOTHING_FACTOR * table['spacing_m'].iloc[0] * 1e3:.2f} mm; "
             "the paper: 3 mm). Counts are regolith particles inside the tray; the coarser the "
             "resolution, the fewer particles carry the same mass (mass per metre of depth "
             "in kg/m). Torques are about each brush's pivot, per metre of depth [N m/m]; "
             "negative means against a counter-clockwise turn.", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table[cols].iterrows():
        cells = []
        for c in cols:
            v = r[c]
            cells.append(v if isinstance(v, str) else f"{v:.4g}")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "## Findings of the paper", "",
              "| finding | required by the issue | reproduced | numbers |", "|---|---|---|---|"]
    for text, required, ok, detail in found:
        lines.append(f"| {text} | {'yes' if required else 'no'} | {'yes' if ok else '**no**'} | {detail} |")
    lines += ["", "![tray count](tray_count.png)", ""]
    (out / "report.md").write_text("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-dir", default=str(REPO / "runs" / "brush_sampler"))
    ap.add_argument("--out", default=str(HERE), help="where results.csv, report.md, tray_count.png go")
    ap.add_argument("--run-missing", action="store_true",
                    help="run the missing runs first (examples/brush_sampler.py --sweep)")
    ap.add_argument("--resolution", default="default", choices=list(bs.RESOLUTIONS))
    args = ap.parse_args(argv)
    runs_dir, out = Path(args.runs_dir), Path(args.out)
    if args.run_missing:
        subprocess.run([sys.executable, str(REPO / "examples" / "brush_sampler.py"), "--sweep",
                        str(runs_dir), "--resolution", args.resolution], check=False)
    missing = [r for r in bs.RUNS if not (runs_dir / r / "observers.csv").is_file()]
    if missing:
        print(f"error: {runs_dir}: no finished run for {', '.join(missing)} "
              "(pass --run-missing to run them)", file=sys.stderr)
        return 2
    import pandas as pd

    runs = {name: post.Run(runs_dir / name) for name in bs.RUNS}
    table = pd.DataFrame([analyse(runs_dir / name) for name in bs.RUNS]).set_index("run", drop=False)
    found = findings(table)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "results.csv", index=False)
    plot(runs, out / "tray_count.png")
    report(table, found, out, runs_dir)
    print(table[["run", "count_0.5s", "count_1s", "first_entry_s", "peak_torque_left_N"]]
          .to_string(index=False))
    failed = [t for t, required, ok, _ in found if required and not ok]
    for text, required, ok, detail in found:
        print(f"{'PASS' if ok else 'FAIL'}{'' if required else ' (not required)'}: {text} -- {detail}")
    print(f"wrote {out / 'results.csv'}, {out / 'report.md'}, {out / 'tray_count.png'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
