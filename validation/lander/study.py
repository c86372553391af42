#!/usr/bin/env python3
"""The lander's first bounce (issue 13, item 4): a MASCOT-like box at 0.19 m/s on beds 0.30
and 0.15 m deep, at incidences 0, 30 and 60 degrees from the vertical, under Ryugu's gravity;
in plane strain (--dim 2, examples/lander_2d.py: the quick case) or in 3D (--dim 3,
examples/lander_3d.py: the study, a half lander against a symmetry plane).

    /usr/bin/python3 validation/lander/study.py --runs-dir runs/lander_2d [--spacing 0.01]
    /usr/bin/python3 validation/lander/study.py --dim 3 --runs-dir runs/lander_3d

Prepares one bed per depth and material (<runs-dir>/bed...), runs every case that has not
finished (<runs-dir>/d<depth>_i<incidence>[_c<cohesion>][_f<friction angle>]; SENSITIVITY
adds cohesion 10 and 100 Pa and a friction angle of 30 deg at 30 deg on the deep bed), then
writes into --out (default: quick_2d/ or study_3d/ here):
  results.csv   one row per run: the bounce (post.bounce: e_n, e_t, e, outgoing angle and
                spin, energy ratio, peak acceleration, contact duration, penetration) and the
                ejecta (post.mass_above_speed: the largest mass seen in a snapshot faster
                than each speed of EJECTA_SPEEDS, and than Ryugu's escape speed; kg per
                metre in plane strain, kg of the whole lander's impact in 3D), steps and
                wall time
  bounce.png    the lander's height and speed against time, per run
  ejecta.png    M(>v) per run
  report.md     the table, the acceptance checks with PASS/FAIL and the deep/shallow finding
Exits 1 when an acceptance check fails.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from regosph import post, validation
from regosph.examples import lander_2d, lander_3d, prepared_bed

HERE = Path(__file__).resolve().parent

INCIDENCES = (0.0, 30.0, 60.0)       # deg from the vertical
BED_DEPTHS = (0.30, 0.15)            # m
EJECTA_SPEEDS = (0.01, 0.02, 0.05, 0.1, 0.19)  # m/s, M(>v) columns; and the escape speed
END_TIME = 2.0                       # s
FINDING_MARGIN = 0.01                # relative difference that counts as "more energy"
CREEP = 0.01                         # a captured lander (no rise to the gate) is at rest when
                                     # it still sinks at under 1 % of its normal impact speed
SETUPS = {2: lander_2d, 3: lander_3d}


# Sensitivity (issue 13, item 4): cohesion 10 and 100 Pa, and a friction angle of 30 deg
# instead of 42, on the deep bed at 30 deg incidence (the base case has c = 0, phi = 42).
SENSITIVITY = ({"cohesion": 10.0}, {"cohesion": 100.0}, {"friction_angle": 30.0})
SENSITIVITY_CASE = (0.30, 30.0)      # bed depth [m], incidence [deg]


def material_suffix(**regolith):
    """"_c10", "_f30", ...: the overrides of the regolith in a directory name."""
    return "".join(f"_{k[0]}{v:g}" for k, v in sorted(regolith.items()))


def case_name(depth, incidence, **regolith):
    return f"d{depth:.2f}_i{incidence:g}{material_suffix(**regolith)}"


def run_case(runs_dir, depth, incidence, spacing, end_time, dim=2, wall_contact=None,
             **regolith):
    """Prepare the bed if needed and run one case unless it has finished; returns its dir.
    wall_contact: physics.wall_contact of the impact, None for the run's default (the
    directory name ends in the law's name when one is given); regolith: overrides of prepared_bed.REGOLITH (cohesion,
    friction_angle)."""
    setup = SETUPS[dim]
    bed_name = f"bed_{depth:.2f}{material_suffix(**regolith)}_{spacing:g}"
    bed = setup.ensure_bed(str(runs_dir / bed_name), spacing, depth, **regolith)
    contact = "" if wall_contact is None else f"_{wall_contact}"
    out = runs_dir / (case_name(depth, incidence, **regolith) + contact)
    if out.is_dir() and (out / "run.json").is_file() and post.Run(out).finished:
        return out
    sim = setup.build(bed, incidence, spacing, depth, **regolith)
    if wall_contact is not None:
        sim.physics.wall_contact = wall_contact
    start = time.time()
    summary = sim.run(end_time, output_dir=str(out), snapshot_interval=end_time / 20,
                      diagnostics_every=5, overwrite=True, progress_interval=0.0,
                      metadata=setup.metadata(incidence, spacing, depth, **regolith))
    (out / "wall.json").write_text(json.dumps({"wall_seconds": time.time() - start,
                                               "steps": summary.steps}))
    return out


def analyse(run_dir):
    """One row of results.csv (a dict) from a lander run directory."""
    run = post.Run(run_dir)
    meta = run.metadata_values
    track = run.rigid_body("lander")
    row = {"run": Path(run_dir).name, "bed_depth_m": meta["bed_depth_m"],
           "incidence_deg": meta["incidence_deg"], "spacing_m": meta["spacing_m"],
           "cohesion_Pa": meta.get("cohesion_Pa", 0.0),
           "friction_angle_deg": meta.get("friction_angle_deg", 42.0),
           "wall_contact": run.parameters["physics"].get("wall_contact", "bonded"),
           "particles": run.particle_count, "end_time_s": float(track["time"].iloc[-1])}
    if "lander_mass_kg" in meta:  # 3D: the half lander's mass and inertia about x, y, z
        mass, inertia = meta["lander_mass_kg"], json.loads(run.metadata["lander_inertia_kg_m2"])
    else:  # plane strain, per metre of depth
        mass, inertia = meta["lander_mass_kg_per_m"], meta["lander_inertia_kg_m2_per_m"]
    b = post.bounce(track, meta["surface_m"], mass, inertia)
    for key in ("e_n", "e_t", "e", "outgoing_angle_deg", "energy_ratio", "peak_acceleration",
                "contact_start", "contact_duration", "penetration", "outgoing_at"):
        row[key] = b[key]
    share = validation.dissipation_share(run.diagnostics)
    row.update(numerical_share=share.share, dissipation_J=share.total)
    row["omega_out_rad_s"] = b["omega_out"][-1]  # about z
    row["vx_in"], row["vy_in"] = b["v_in"][:2]
    row["vx_out"], row["vy_out"] = b["v_out"][:2]
    speeds = EJECTA_SPEEDS + (post.RYUGU_ESCAPE_SPEED,)
    ejecta = ejecta_mass(run, speeds)
    unit = EJECTA_UNITS[run.dim][0]
    for v, m in zip(EJECTA_SPEEDS, ejecta):
        row[f"mass_above_{v:g}_m_s_{unit}"] = float(m)
    row[f"escaping_mass_{unit}"] = float(ejecta[-1])
    wall = Path(run_dir) / "wall.json"
    if wall.is_file():
        row.update(json.loads(wall.read_text()))
    return row


# The ejecta's mass per dimension: column suffix, unit, what it is of, and the copies of the
# modelled domain that make the whole impact (lander_3d models one half).
EJECTA_UNITS = {2: ("kg_per_m", "kg/m", "per metre of depth", 1),
                3: ("kg", "kg", "of the whole impact: the half model and its mirror image",
                    lander_3d.COPIES)}


def ejecta_mass(run, speeds):
    """M(>v) for each of `speeds`: the largest regolith mass seen in a snapshot faster than v
    (post.mass_above_speed), in EJECTA_UNITS[run.dim]; a run whose metadata names its
    model_copies (examples/matrix_lander.py: the whole lander, 1) is counted that many times."""
    m = np.max([post.mass_above_speed(s, speeds, material="regolith") for s in run.snapshots()],
               axis=0)
    return float(run.metadata_values.get("model_copies", EJECTA_UNITS[run.dim][3])) * m


def checks(rows):
    """The acceptance checks (validation.Check) of the quick case."""
    out = []
    for r in rows:
        if r["outgoing_at"] == "gate":
            out.append(validation.Check(f"{r['run']}: 0 <= e_n <= 1", 0.0 <= r["e_n"] <= 1.0,
                                        f"e_n = {r['e_n']:.3f}"))
        else:  # captured: e_n from the last row, where the lander may still creep into the bed
            out.append(validation.Check(
                f"{r['run']}: captured and at rest, -{CREEP:g} <= e_n <= 1",
                -CREEP <= r["e_n"] <= 1.0, f"e_n = {r['e_n']:.2g}, no rebound"))
        out.append(validation.Check(f"{r['run']}: no energy created", r["energy_ratio"] <= 1.0,
                                    f"E_out/E_in = {r['energy_ratio']:.3f}"))
        out.append(validation.Check(
            f"{r['run']}: the lander touched and left contact or stopped",
            r["contact_duration"] > 0.0, f"contact {r['contact_duration']:.3f} s"))
    return out


def finding(rows):
    """The issue's finding: the shallow bed returns more energy than the deep one."""
    base = prepared_bed.REGOLITH
    by = {(r["bed_depth_m"], r["incidence_deg"]): r for r in rows
          if (r["cohesion_Pa"], r["friction_angle_deg"]) == (base["cohesion"],
                                                             base["friction_angle"])}
    lines = []
    for inc in sorted({r["incidence_deg"] for r in rows}):
        deep, shallow = by.get((0.3, inc)), by.get((0.15, inc))
        if deep and shallow:
            a, b = shallow["energy_ratio"], deep["energy_ratio"]
            verdict = ("reproduced" if a > (1 + FINDING_MARGIN) * b else
                       "NOT reproduced (the same within 1 %)" if abs(a - b) <= FINDING_MARGIN * b
                       else "NOT reproduced")
            lines.append(f"- incidence {inc:g} deg: E_out/E_in shallow {a:.4g} vs deep {b:.4g}, "
                         f"penetration {shallow['penetration'] * 1e3:.1f} / "
                         f"{deep['penetration'] * 1e3:.1f} mm: {verdict}")
    return lines


def plots(runs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for d in runs:
        run = post.Run(d)
        tr = run.rigid_body("lander")
        ax1.plot(tr["time"], tr["y"] - run.metadata_values["surface_m"], label=d.name)
        ax2.plot(tr["time"], np.hypot(tr["vx"], tr["vy"]), label=d.name)
    ax1.set(xlabel="time [s]", ylabel="centre above the surface [m]")
    ax2.set(xlabel="time [s]", ylabel="speed [m/s]")
    ax1.legend(fontsize=7)
    post.save(fig, out / "bounce.png")
    fig, ax = plt.subplots(figsize=(6, 4))
    for d in runs:
        run = post.Run(d)
        speeds = np.geomspace(1e-3, 1.0, 60)
        ax.loglog(speeds, np.maximum(ejecta_mass(run, speeds), 1e-6), label=d.name)
    ax.axvline(post.RYUGU_ESCAPE_SPEED, color="k", ls=":", label="Ryugu escape speed")
    ax.set(xlabel="v [m/s]", ylabel=f"M(>v) [{EJECTA_UNITS[run.dim][1]}]")
    ax.legend(fontsize=7)
    post.save(fig, out / "ejecta.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs-dir", required=True)
    ap.add_argument("--dim", type=int, default=2, choices=(2, 3))
    ap.add_argument("--out", default=None, help="default: quick_2d/ or study_3d/ here")
    ap.add_argument("--spacing", type=float, default=0.01, help="[m]")
    ap.add_argument("--end-time", type=float, default=END_TIME, help="[s]")
    ap.add_argument("--incidences", type=float, nargs="+", default=list(INCIDENCES))
    ap.add_argument("--bed-depths", type=float, nargs="+", default=list(BED_DEPTHS))
    ap.add_argument("--no-sensitivity", action="store_true",
                    help="skip the cohesion and friction-angle runs (SENSITIVITY)")
    ap.add_argument("--sensitivity-only", action="store_true",
                    help="only the cohesion and friction-angle runs (SENSITIVITY)")
    ap.add_argument("--wall-contact", choices=("bonded", "unilateral", "tension_cut"), default=None,
                    help="the regolith's contact with the lander and the walls "
                         "(physics.wall_contact; default: the run's, tension_cut)")
    args = ap.parse_args()
    runs_dir = Path(args.runs_dir)
    out = Path(args.out) if args.out else HERE / ("quick_2d" if args.dim == 2 else "study_3d")
    runs_dir.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    contact = args.wall_contact
    runs = [] if args.sensitivity_only else [
        run_case(runs_dir, d, i, args.spacing, args.end_time, args.dim, contact)
        for d in args.bed_depths for i in args.incidences]
    if not args.no_sensitivity:
        runs += [run_case(runs_dir, *SENSITIVITY_CASE, args.spacing, args.end_time, args.dim,
                          contact, **change) for change in SENSITIVITY]
    rows = [analyse(d) for d in runs]
    table = validation.save_results(rows, out)
    plots(runs, out)
    results = checks(rows) + [validation.numerical_share_check("every run", {
        r["run"]: validation.DissipationShare.from_row(r, "dissipation_J") for r in rows})]
    columns = ["run", "wall_contact", "cohesion_Pa", "friction_angle_deg", "e_n", "e_t", "e",
               "outgoing_angle_deg", "omega_out_rad_s", "energy_ratio", "peak_acceleration",
               "contact_duration", "penetration", "outgoing_at", "numerical_share"]
    text = ["# Lander first bounce, " + ("plane strain (quick case)" if args.dim == 2 else
                                         "3D (half lander, symmetry plane z = 0)"), "",
            f"Spacing {args.spacing} m, end time {args.end_time} s, gravity "
            f"{post.RYUGU_GRAVITY:.3g} m/s^2 (Ryugu), impact 0.19 m/s. Escape speed "
            f"{post.RYUGU_ESCAPE_SPEED:.3f} m/s.", "",
            validation.results_table(table, columns), "", *validation.acceptance_section(results),
            "", *validation.physics_section(runs)]
    ejecta = [c for c in rows[0] if c.startswith(("mass_above_", "escaping_mass_"))]
    text += ["", "## Ejecta", "", "M(>v): the largest regolith mass seen in a snapshot faster "
             f"than v ({EJECTA_UNITS[args.dim][2]}); escaping: faster than Ryugu's escape "
             "speed.", "",
             validation.results_table(table, ["run"] + ejecta)]
    text += ["", "## Finding: the shallow bed returns more energy", ""] + finding(rows)
    deepest = max(r["penetration"] for r in rows)
    shallowest = min(r["bed_depth_m"] for r in rows)
    text += ["", f"The lander's centre sinks at most {deepest * 1e3:.1f} mm after first contact, "
             f"{deepest / shallowest:.0%} of the shallowest bed ({shallowest} m): the stress "
             "under it decays over about its width, so the floor hardly takes part unless the "
             "impact compacts deeper (softer or looser regolith, higher speed, finer "
             "resolution than the kernel's support radius here)."]
    return validation.finish(text, results, out)


if __name__ == "__main__":
    sys.exit(main())
