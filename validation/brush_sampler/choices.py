#!/usr/bin/env python3
"""Brush sampler: the setup's own choices run either way (issue 16). The paper leaves the
bristle thickness, the tray floor's clearance above the bristle tips and the shield gap open
(marked (*) in examples/brush_sampler.py); each finding that these choices could decide is run
with the choice below and above its default, at the default resolution, and compared with the
default geometry in tray mass.

    /usr/bin/python3 validation/brush_sampler/choices.py --runs-dir runs/sampler_choices
        --baseline-dir runs/sampler_convergence [--run-missing]

Runs live in <runs-dir>/<run>_<variant>; the default geometry's runs are read from
<baseline-dir>/<run>_2.50mm (those of convergence.py). Writes into --out (default: this
directory's choices/): choices.csv (one row per run and variant, the columns of
convergence.csv plus the variant) and choices.md (each finding's margin per variant, and
whether any variant flips it).
"""
import argparse
import math
import sys
from pathlib import Path

import convergence as conv
import study
from regosph.sweep import add_jobs_argument, is_finished, run_sweep

HERE = Path(__file__).resolve().parent

SPACING = 2.5e-3  # m, the default resolution (the convergence study's coarsest)
D = study.bs.DEFAULT_CHOICES
# name: (the choices, what the variant asks).
VARIANTS = {
    "default": (D, "the default geometry"),
    "bristle1": (D._replace(bristle_rows=1), "bristles one particle row thick (thinner)"),
    "bristle3": (D._replace(bristle_rows=3), "bristles three rows thick (thicker)"),
    "tray1.5mm": (D._replace(tray_clearance=0.0015), "tray floor 1.5 mm above the tips"),
    "tray6mm": (D._replace(tray_clearance=0.006), "tray floor 6 mm above the tips"),
    "shield1.5mm": (D._replace(shield_gap=0.0015), "shield 1.5 mm outside the tips"),
    "shield6mm": (D._replace(shield_gap=0.006), "shield 6 mm outside the tips"),
}


def clearing_entries(t):
    """Margin of "a few grains still enter the tray when clearing (P7)": the most P7 mass in
    the tray at any time up to 1 s [kg/m] (> 0: some entered), and one particle's mass as its
    uncertainty."""
    row = t["P7"]
    return row["max_count"] * row["particle_mass_kg_per_m"]


# (finding, runs it needs, margin(rows), uncertainty(rows), the variants that test it).
FINDINGS = [
    (*next(f for f in conv.FINDINGS if f[1] == ("P6", "P5")),
     ("bristle1", "bristle3", "shield1.5mm", "shield6mm")),
    ("Clearing: a few grains still enter the tray in P7: max M_P7(t <= 1 s) > 0",
     ("P7",), clearing_entries,
     lambda t: t["P7"]["particle_mass_kg_per_m"],
     ("tray1.5mm", "tray6mm")),
    (*next(f for f in conv.FINDINGS if f[1] == ("P0", "E0")),
     ("tray1.5mm", "tray6mm")),
]


def planned_rows(baseline_dir=None):
    """(run, variant) pairs: every run of every finding a variant tests, and the default
    geometry's run where the baseline directory lacks it."""
    rows = []
    for _, runs, _, _, variants in FINDINGS:
        for r in runs:
            if not (baseline_dir and is_finished(Path(baseline_dir) / conv.run_name(r, SPACING),
                                                 study.END_TIME)) and (r, "default") not in rows:
                rows.append((r, "default"))
        for v in variants:
            for r in runs:
                if (r, v) not in rows:
                    rows.append((r, v))
    return rows


def run_missing(runs_dir, baseline_dir, jobs=1):
    """Runs (or continues) the planned runs through regosph.sweep; a row's choices become the
    example's --bristle-rows, --tray-clearance and --shield-gap."""
    rows = []
    for r, v in planned_rows(baseline_dir):
        c = VARIANTS[v][0]
        rows.append({"case": f"{r}_{v}", "run": r, "bristle_rows": str(c.bristle_rows),
                     "tray_clearance": repr(c.tray_clearance), "shield_gap": repr(c.shield_gap)})
    return run_sweep(conv.sampler_command(repr(SPACING)), rows, runs_dir, name="case",
                     resume_args=["--restart"], jobs=jobs)


def analysed(run_dir):
    row = study.analyse(run_dir)
    row["particle_mass_kg_per_m"] = conv.particle_mass(run_dir)
    return row


def collect(runs_dir, baseline_dir):
    """{(run, variant): row} for the finished runs; variant "default" from the baseline."""
    table = {}
    for r in sorted({r for r, _ in planned_rows()}):
        d = Path(baseline_dir) / conv.run_name(r, SPACING)
        if is_finished(d, study.END_TIME):
            table[(r, "default")] = analysed(d)
    for r, v in planned_rows(baseline_dir):
        d = Path(runs_dir) / f"{r}_{v}"
        if is_finished(d, study.END_TIME):
            table[(r, v)] = analysed(d)
    return table


def report(table, out):
    lines = ["# Brush sampler: the setup's own choices either way (2.50 mm)", "",
             "Each finding that a choice the paper leaves open could decide, with that choice "
             "below and above its default (two-row bristles, 3 mm tray and shield gaps). "
             "Margin > 0: the finding holds; ± the counting uncertainty (sqrt(N) particle "
             "masses, at least one), kg per m of depth.", "",
             "| finding | variant | margin | holds | same verdict as the default |",
             "|---|---|---|---|---|"]
    flips = []
    for text, runs, margin, error, variants in FINDINGS:
        base = None
        for v in ("default",) + tuple(variants):
            if not all((r, v) in table for r in runs):
                lines.append(f"| {text} | {v} | not run | | |")
                continue
            t = {r: table[(r, v)] for r in runs}
            m, e = margin(t), error(t)
            holds = m > 0
            if v == "default":
                base = holds
            same = "–" if v == "default" or base is None else ("yes" if holds == base else "**no**")
            if same == "**no**":
                flips.append(f"{text}: {VARIANTS[v][1]}")
            label = "default" if v == "default" else f"{v} ({VARIANTS[v][1]})"
            lines.append(f"| {text} | {label} | {m:+.4g} ± {e:.2g} | {'yes' if holds else 'no'} "
                         f"| {same} |")
    lines += ["", "Choices that change a verdict: " + ("; ".join(flips) if flips else "none") + "."]
    (out / "choices.md").write_text("\n".join(lines) + "\n")
    columns = ["run", "variant", "bristle_rows", "tray_clearance_m", "shield_gap_m", "particles",
               "count_0.5s", "mass_0.5s_kg_per_m", "count_1s", "mass_1s_kg_per_m", "max_count",
               "first_entry_s", "lifted_1s", "mean_torque_left_N", "steps", "wall_s"]
    with open(out / "choices.csv", "w") as f:
        f.write(",".join(columns) + "\n")
        for (r, v), row in sorted(table.items()):
            c = VARIANTS[v][0]
            extra = {"run": r, "variant": v, "bristle_rows": c.bristle_rows,
                     "tray_clearance_m": c.tray_clearance, "shield_gap_m": c.shield_gap}
            f.write(",".join(str(extra.get(k, row.get(k, ""))) for k in columns) + "\n")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-dir", required=True)
    ap.add_argument("--baseline-dir", required=True,
                    help="convergence.py's runs directory (the default geometry at 2.50 mm)")
    ap.add_argument("--run-missing", action="store_true")
    add_jobs_argument(ap, "with --run-missing: ")
    ap.add_argument("--out", default=str(HERE / "choices"))
    args = ap.parse_args(argv)
    if args.run_missing:
        run_missing(args.runs_dir, args.baseline_dir, args.jobs)
    table = collect(args.runs_dir, args.baseline_dir)
    if not table:
        print(f"no finished runs in {args.runs_dir} or {args.baseline_dir}", file=sys.stderr)
        return 2
    conv.share_particle_mass(table)  # one spacing
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(report(table, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
