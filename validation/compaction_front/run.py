#!/usr/bin/env python3
"""A piston driven at constant speed into a porous regolith column: the compaction front and
its jump conditions (issue 45, item 5; rs.PorousDruckerPrager, docs/guide/physics.md
'Porosity and compaction').

    /usr/bin/python3 validation/compaction_front/run.py [--spacing 0.0025] [--speeds 2 6]
        [--runs-dir runs/compaction_front] [--out validation/compaction_front]

Setup (2D, no gravity, 1D-like): a column COLUMN_WIDTH x COLUMN_HEIGHT of the MASCOT bed's
regolith (bulk 1280 kg/m^3 from grains of 2250 kg/m^3, porosity 0.431; SPEC.md's moduli at that
porosity, phi = 30 deg, c = 0; the crush curve of the guide) between free-slip side walls on a
free-slip floor, at rest and unstressed. A free-slip piston as wide as the column moves down
into it at v_p (--speeds), reached over its first RAMP_SPACINGS spacings of travel.

Measured, in a window while the front is between WINDOW of the column's height from its top:
- the front: where the distension crosses halfway between alpha0 and the plateau behind the
  front (row means across the column), its speed U_s a least-squares fit of its position;
- behind it: the density rho_1 and the stress sigma_yy, means over the particles between one
  support radius below the piston and one above the front.
Acceptance (issue 45): within 5 %, the mass jump U_s = v_p rho_1 / (rho_1 - rho_0) and the
momentum jump -sigma_yy = rho_0 U_s v_p (the material ahead at rest at rho_0, unstressed: the
elastic precursor of the crush curve's eps_e carries ~1e-5 of the strain). Also reported: the
energy budget's residual against the piston's work, and the share of that work the crush
dissipated (plastic dissipation).

Writes results.csv, front.png and report.md into --out; exit status 0 when the checks hold.
"""
import argparse
import math
import sys
from pathlib import Path

import numpy as np

import regosph as rs
from regosph import post, validation

HERE = Path(__file__).resolve().parent

# The MASCOT bed (reference/mascot_first_bounce_report.txt): 1280 kg/m^3 bulk from grains of
# 2.0-2.5 g/cm^3; the moduli of SPEC.md's regolith; the crush curve of docs/guide/physics.md.
GRAIN_DENSITY = 2250.0                  # kg/m^3
POROSITY = 1.0 - 1280.0 / GRAIN_DENSITY
REGOLITH = dict(grain_density=GRAIN_DENSITY, porosity=POROSITY, bulk_modulus=3.33e6,
                shear_modulus=3.7e5, friction_angle=30.0, cohesion=0.0, elastic_strain=-1e-5,
                kappa=0.98, transition_distension=1.2)
COLUMN_WIDTH = 0.04                     # m
COLUMN_HEIGHT = 0.3                     # m
SMOOTHING_FACTOR = 2.5                  # support radius / spacing (SPEC.md section 7)
WALL_LAYERS = 3                         # wall thickness in spacings (>= one support radius)
WINDOW = (0.2, 0.7)                     # front positions measured, fractions of the height
SAMPLE_SPACINGS = 0.25                  # states sampled each time the piston moves this
SEGMENT_SAMPLES = 20                    # snapshots per segment of the run
RAMP_SPACINGS = 2.0                     # the piston's start: to full speed over this travel x 2
TOLERANCE = 0.05                        # acceptance of the jump conditions


def build(spacing, speed):
    """The column, its walls and the piston; returns the Simulation."""
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.PorousDruckerPrager("regolith", **REGOLITH))
    wall = sim.add_material(rs.Rigid("wall", density=2700.0))
    h = SMOOTHING_FACTOR * spacing
    column = rs.rectangle((0.0, 0.0), (COLUMN_WIDTH, COLUMN_HEIGHT))
    sim.add_body("column", rs.lattice_fill(column, spacing), material=soil, motion="dynamic",
                 spacing=spacing, smoothing_length=h)
    t = WALL_LAYERS * spacing
    walls = rs.subtract(rs.rectangle((-t, -t), (COLUMN_WIDTH + t, 1.5 * COLUMN_HEIGHT)),
                        rs.rectangle((0.0, 0.0), (COLUMN_WIDTH, 2.0 * COLUMN_HEIGHT)))
    sim.add_body("walls", rs.lattice_fill(walls, spacing), material=wall, motion="fixed",
                 spacing=spacing, smoothing_length=h, wall_friction="free-slip")
    piston = rs.rectangle((0.0, COLUMN_HEIGHT), (COLUMN_WIDTH, COLUMN_HEIGHT + t))
    sim.add_body("piston", rs.lattice_fill(piston, spacing), material=wall, motion="kinematic",
                 spacing=spacing, smoothing_length=h, wall_friction="free-slip",
                 kinematics=piston_motion(spacing, speed))
    return sim


def piston_motion(spacing, speed):
    """Down at `speed` after a linear start over RAMP_SPACINGS / 2 spacings of travel (an
    instant start would leave a denser plug at its face)."""
    ramp = RAMP_SPACINGS * spacing / speed
    return rs.Kinematics(velocity_ramp=[(0.0, (0.0, 0.0)), (ramp, (0.0, -speed))])


def run_column(spacing, speed, run_dir):
    """Runs into run_dir, a snapshot each SAMPLE_SPACINGS / speed, until the front has left
    the window; returns the sampled states (dicts from the snapshots) and the last row of
    diagnostics.csv."""
    sim = build(spacing, speed)
    motion = piston_motion(spacing, speed)
    interval = SAMPLE_SPACINGS * spacing / speed
    # The front runs at U_s = v_p / (1 - rho_0 / rho_1) > v_p: it leaves the window before the
    # piston has gone its length. The run goes on in segments until it has.
    states, done, end = [], 0, 0.0
    while end < WINDOW[1] * COLUMN_HEIGHT / speed:
        end += SEGMENT_SAMPLES * interval
        sim.run(end, output_dir=str(run_dir), snapshot_interval=interval, diagnostics_every=1,
                progress_interval=0.0, overwrite=not states, checkpoint_interval=0)
        run = post.Run(str(run_dir))
        for snap in list(run.snapshots())[done + 1:]:
            column = snap["body"] == 0
            states.append(dict(time=snap.time, y=snap["position"][column, 1],
                               alpha=snap["distension"][column], rho=snap["density"][column],
                               syy=snap["stress"][column, 1],
                               piston=COLUMN_HEIGHT + motion.displacement(snap.time)[1]))
        done = len(states)
        if front_position(states[-1], spacing) < (1.0 - WINDOW[1]) * COLUMN_HEIGHT:
            break
    return states, run.diagnostics.iloc[-1]


def plateau(state, spacing):
    """Particles of the compacted state behind the front: between a support radius below the
    piston and halfway to the front (the front is a ramp some support radii wide), or None
    while fewer than 4."""
    h = SMOOTHING_FACTOR * spacing
    front = front_position(state, spacing)
    behind = (state["y"] < state["piston"] - h) & (state["y"] > 0.5 * (front + state["piston"]))
    return behind if behind.sum() >= 4 else None


def front_position(state, spacing):
    """Height [m] where the row-mean distension crosses halfway from alpha0 down to the
    compacted distension (the lowest row mean); the piston's face while nothing compacted."""
    rows = np.floor(state["y"] / spacing).astype(int)
    levels = np.unique(rows)
    mean = np.array([state["alpha"][rows == r].mean() for r in levels])
    alpha0 = 1.0 / (1.0 - POROSITY)
    half = 0.5 * (alpha0 + mean.min())
    if alpha0 - mean.min() < 1e-3:
        return state["piston"]
    # The lowest row compacted past half (a particle at the piston's face may be less): the
    # front lies between it and the row below.
    i = int(np.nonzero(mean <= half)[0][0])
    if i == 0:
        return levels[0] * spacing
    y0, y1 = levels[i - 1] * spacing, levels[i] * spacing
    return float(y0 + (mean[i - 1] - half) / (mean[i - 1] - mean[i]) * (y1 - y0))


def analyse(states, spacing, speed):
    """Front speed (fit), plateau density and stress, and the jump conditions."""
    rho0 = GRAIN_DENSITY * (1.0 - POROSITY)
    lo, hi = (1.0 - WINDOW[1]) * COLUMN_HEIGHT, (1.0 - WINDOW[0]) * COLUMN_HEIGHT
    t, y, rho1, syy = [], [], [], []
    for s in states:
        f = front_position(s, spacing)
        behind = plateau(s, spacing)
        if behind is None or not lo <= f <= hi:
            continue
        t.append(s["time"])
        y.append(f)
        rho1.append(s["rho"][behind].mean())
        syy.append(s["syy"][behind].mean())
    if len(t) < 4:
        raise RuntimeError(f"only {len(t)} states with the front inside the window; "
                           "lower --speed or refine --spacing")
    u_s = -np.polyfit(t, y, 1)[0]
    rho1, syy = float(np.mean(rho1)), float(np.mean(syy))
    u_mass = speed * rho1 / (rho1 - rho0)
    return dict(spacing=spacing, piston_speed=speed, front_speed=u_s, rho0=rho0, rho1=rho1,
                front_speed_mass_jump=u_mass, mass_jump_error=u_s / u_mass - 1.0,
                sigma_yy=syy, momentum_flux=rho0 * u_s * speed,
                momentum_jump_error=-syy / (rho0 * u_s * speed) - 1.0, samples=len(t),
                t=t, y=y)


def plot(results, out):
    """front.png: the front's height against time, with the line of the mass jump's U_s."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for r in results:
        t = np.array(r["t"])
        line, = ax.plot(1e3 * t, r["y"], "o", ms=3, label=f"v_p = {r['piston_speed']:g} m/s")
        y0 = r["y"][0] + r["front_speed_mass_jump"] * t[0]
        ax.plot(1e3 * t, y0 - r["front_speed_mass_jump"] * t, "-", color=line.get_color())
    ax.set_xlabel("t [ms]")
    ax.set_ylabel("front height [m]")
    ax.set_title("front (dots); U_s of the mass jump (lines)", fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "front.png", dpi=120)
    plt.close(fig)


def checks_of(r):
    """The acceptance checks of one run (analyse's result)."""
    v = f"v_p = {r['piston_speed']:g} m/s"
    return [
        validation.Check(f"{v}: mass jump U_s = v_p rho_1 / (rho_1 - rho_0) within 5 %",
                         abs(r["mass_jump_error"]) <= TOLERANCE,
                         f"U_s {r['front_speed']:.3f} m/s measured, "
                         f"{r['front_speed_mass_jump']:.3f} m/s from rho_1 = {r['rho1']:.1f} "
                         f"kg/m^3: {100 * r['mass_jump_error']:+.1f} %"),
        validation.Check(f"{v}: momentum jump -sigma_yy = rho_0 U_s v_p within 5 %",
                         abs(r["momentum_jump_error"]) <= TOLERANCE,
                         f"{-r['sigma_yy']:.0f} Pa behind the front, "
                         f"{r['momentum_flux']:.0f} Pa: {100 * r['momentum_jump_error']:+.1f} %"),
        validation.Check(f"{v}: energy budget closes within 5 % of the piston's work",
                         abs(r["energy_residual"]) <= 0.05 * abs(r["piston_work"]),
                         f"residual {r['energy_residual']:.3g} J/m of {r['piston_work']:.3g} "
                         f"J/m; crush and plasticity dissipated "
                         f"{r['plastic_dissipation']:.3g} J/m", required=False),
        validation.numerical_share_check(v, {"the run": validation.DissipationShare.from_row(r)}),
    ]


def study(spacing, speed, run_dir):
    """One run analysed: analyse's result with the energy budget's terms at its end."""
    states, diag = run_column(spacing, speed, run_dir)
    r = analyse(states, spacing, speed)
    share = validation.dissipation_share(diag)
    r.update(piston_work=float(diag["body_work"]),
             plastic_dissipation=float(diag["plastic_dissipation"]),
             energy_residual=float(diag["energy_residual"]),
             wall_dissipation=float(diag["wall_dissipation"]),
             numerical_share=share.share, dissipation_J_per_m=share.total)
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spacing", type=float, default=0.0025, help="particle spacing [m]")
    ap.add_argument("--speeds", type=float, nargs="+", default=[2.0, 6.0],
                    help="piston speeds [m/s]")
    ap.add_argument("--runs-dir", type=Path, default=Path("runs/compaction_front"),
                    help="where the runs go")
    ap.add_argument("--out", type=Path, default=HERE, help="where the report goes")
    args = ap.parse_args(argv)
    results = [study(args.spacing, v, args.runs_dir / f"v{v:g}") for v in args.speeds]
    args.out.mkdir(parents=True, exist_ok=True)
    table = validation.save_results(
        [{k: v for k, v in r.items() if k not in ("t", "y")} for r in results], args.out)
    plot(results, args.out)
    checks = [c for r in results for c in checks_of(r)]
    text = ["# Compaction front of a piston in porous regolith", "",
            f"Spacing {args.spacing} m, column {COLUMN_WIDTH} x {COLUMN_HEIGHT} m of the MASCOT "
            f"bed's regolith (porosity {POROSITY:.3f}) as rs.PorousDruckerPrager, piston speeds "
            f"{', '.join(f'{v:g}' for v in args.speeds)} m/s. Command: `/usr/bin/python3 "
            f"validation/compaction_front/run.py --spacing {args.spacing} --speeds "
            f"{' '.join(f'{v:g}' for v in args.speeds)}`.", "",
            validation.results_table(table), "",
            "The scheme's share (numerical_share) is the viscosity's work against the budget's "
            "dissipation terms (regosph.validation.dissipation_share). The piston's wall term "
            "(wall_dissipation) comes out negative, nearly as large as the viscosity's work: "
            "net of it the viscosity and the walls dissipate "
            + ", ".join(f"{r['dissipation_J_per_m'] * r['numerical_share'] + r['wall_dissipation']:.3g} J/m"
                        for r in results)
            + " of the " + ", ".join(f"{r['dissipation_J_per_m'] + r['wall_dissipation']:.3g} J/m"
                                     for r in results)
            + " dissipated in all (piston speeds in order).", "", "![front](front.png)", "",
            *validation.acceptance_section(checks)]
    return validation.finish(text, checks, args.out)


if __name__ == "__main__":
    sys.exit(main())
