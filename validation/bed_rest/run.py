#!/usr/bin/env python3
"""Does a bed at rest stay at rest? The largest speed of a prepared bed left undamped, under
each numerical setting (docs/guide/physics.md, "A bed at rest needs a step that does not
amplify and a damping linear in small jumps").

    /usr/bin/python3 validation/bed_rest/run.py --output runs/bed_rest

Method: the anchor study's 2D bed (examples/anchor_2d.py: 0.5 m wide, 0.45 m deep, 0.02 m
spacing by default, phi 40 deg, c 40 Pa, Jaky's K0) is brought to rest by rs.prepare_bed (kinetic damping
with Monaghan's viscosity, then its undamped check under the case's own physics), then runs on
undamped for `--periods` periods 4 H / c_p. Every two periods the largest speed of the soil is
taken in units of g H / c_p, the scale of prepare_bed's rest criterion: a bed is at rest while
it stays below REST_SPEED_FRACTION (1e-3). The cases separate the time step from the
dissipation: the default (Monaghan), the Riemann solver alone at the default Courant number
and at a third of it, the same bed made elastic (a cohesion of 1 GPa, so nothing yields),
Monaghan's viscosity switched off (alpha = beta = 0), the Riemann solver with its stress
jump from reconstructed stresses and delta-SPH, and the Riemann solver stepped by SSP-RK3
(integrator.scheme), alone and with the limiter's floor on the reconstructed jump
(physics.riemann_limiter_floor), on the bed and on the elastic bed. Writes results.json and
report.md.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import regosph as rs
from regosph import validation
from regosph.bed import REST_SPEED_FRACTION
from regosph.examples import anchor_2d

SPACING = 0.02           # m, the anchor study's coarse bed
FRICTION_ANGLE = 40.0    # deg
COHESION = 40.0          # Pa
ELASTIC_COHESION = 1e9   # Pa: a bed that cannot yield under its own weight
GRAVITY = 9.81           # m/s^2

# name: (settings: fields of sim.physics, and time_scheme for sim.integrator.scheme;
#        cohesion [Pa])
RK3_FLOOR = {"dissipation": "riemann", "time_scheme": "ssp_rk3", "riemann_reconstruction": True,
             "riemann_limiter_floor": 0.03}
CASES = {
    "monaghan": ({}, COHESION),
    "riemann": ({"dissipation": "riemann"}, COHESION),
    "riemann, Courant 0.1": ({"dissipation": "riemann", "courant": 0.1}, COHESION),
    "riemann, elastic bed": ({"dissipation": "riemann"}, ELASTIC_COHESION),
    "monaghan, alpha = beta = 0": ({"av_alpha": 0.0, "av_beta": 0.0}, COHESION),
    "riemann + stress jump (reconstructed) + delta 0.1": (
        {"dissipation": "riemann", "riemann_stress_jump": "continuity_and_strain_rate",
         "density_diffusion": 0.1,
         "riemann_reconstruction": True}, COHESION),
    "riemann, SSP-RK3": ({"dissipation": "riemann", "time_scheme": "ssp_rk3"}, COHESION),
    "riemann, SSP-RK3, floor 0.03 (reconstructed)": (RK3_FLOOR, COHESION),
    "riemann, SSP-RK3, floor 0.03 (reconstructed), elastic bed": (RK3_FLOOR, ELASTIC_COHESION),
}


def measure(name, settings, cohesion, periods, bed_dir, spacing=SPACING):
    """Prepare the bed under `settings` into bed_dir and run it on for `periods` periods:
    the largest soil speed every two periods in g H / c_p, the largest displacement [m] and
    the wall time."""
    start = time.time()
    sim = anchor_2d.bed_setup(spacing, GRAVITY, cohesion, FRICTION_ANGLE)
    for key, value in settings.items():
        if key == "time_scheme":
            sim.integrator.scheme = value
        else:
            setattr(sim.physics, key, value)
    report = rs.prepare_bed(sim, bed_dir, overwrite=True, progress_interval=0)
    height, wave_speed = report["height"], report["wave_speed"]
    speed_scale = report["gravity"] * height / wave_speed
    period = 4.0 * height / wave_speed
    soil = np.asarray(sim.kind) == rs.KIND_DYNAMIC
    x0 = np.array(sim.positions)
    t0 = sim.time
    speeds = []
    for k in range(1, periods // 2 + 1):
        sim.run(t0 + 2 * k * period, progress_interval=0)
        v = np.linalg.norm(np.asarray(sim.velocities)[soil], axis=1)
        speeds.append(float(v.max() / speed_scale))
    moved = np.linalg.norm(np.asarray(sim.positions)[soil] - x0[soil], axis=1)
    return {"case": name, "physics": settings, "cohesion_Pa": cohesion,
            "check_speed_ratio": report["residual"]["speed_ratio"],
            "speed_scale_m_s": speed_scale, "period_s": period,
            "largest_speed_every_two_periods": speeds,
            "at_rest": bool(max(speeds) <= REST_SPEED_FRACTION),
            "largest_displacement_m": float(moved.max()),
            "wall_seconds": time.time() - start}


def report_lines(results, periods, spacing):
    lines = ["# Does a bed at rest stay at rest?", "",
             f"The anchor study's 2D bed ({anchor_2d.BED_WIDTH:g} x {anchor_2d.BED_DEPTH:g} m, "
             f"{spacing:g} m spacing, phi {FRICTION_ANGLE:g} deg, c {COHESION:g} Pa), prepared by `rs.prepare_bed` and then run on undamped for "
             f"{periods} periods 4 H/c_p under each setting. Largest soil speed every two "
             f"periods in g H/c_p ({results[0]['speed_scale_m_s']:.3g} m/s; period "
             f"{results[0]['period_s'] * 1e3:.1f} ms); at rest below {REST_SPEED_FRACTION:g}. "
             "'check': the largest speed of prepare_bed's own undamped check (two periods, "
             "before the table's); 'displacement': the soil's largest over the table's periods.",
             "", "    /usr/bin/python3 validation/bed_rest/run.py --output runs/bed_rest", "",
             "| setting | check | every two periods | largest | at rest | displacement |",
             "|---|---|---|---|---|---|"]
    for r in results:
        speeds = r["largest_speed_every_two_periods"]
        lines.append(f"| {r['case']} | {r['check_speed_ratio']:.2g} | "
                     + " ".join(f"{s:.2g}" for s in speeds)
                     + f" | {max(speeds):.2g} | {'yes' if r['at_rest'] else 'no'} | "
                     f"{r['largest_displacement_m'] * 1e3:.3g} mm |")
    if {r["case"] for r in results} != set(CASES):
        return lines  # the reading below compares all the cases
    lines += ["", "Reading (docs/guide/physics.md): Heun's step amplifies an undamped oscillation "
              "by sqrt(1 + (omega dt)^4 / 4) per step; Monaghan's viscosity, linear in the "
              "velocity jump, out-damps it, the Riemann solver's limiter, quadratic in it, does "
              "not; the elastic bed and Monaghan's viscosity switched off show that neither the "
              "plasticity nor the Riemann solver is the cause, the smaller Courant number that "
              "the step is. The stress jump damps the growth and keeps a creep of its own. "
              "SSP-RK3 damps an undamped oscillation by (omega dt)^4 / 24 per step: under it "
              "the Riemann solver alone stays near 1e-3 (the spatial scheme's slow growth "
              "remains), and a floor under the limiter on the reconstructed jump, a linear "
              "damping of the particle-scale residual only, holds the bed at rest (a bed at "
              "rest does not yield: the elastic bed runs as the soil does)."]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--output", required=True, help="directory for the beds and the report")
    ap.add_argument("--periods", type=int, default=24,
                    help="periods 4 H / c_p to run on after the check (even; default 24)")
    ap.add_argument("--spacing", type=float, default=SPACING,
                    help=f"particle spacing [m] (default {SPACING:g}, the anchor study's)")
    ap.add_argument("--case", action="append", choices=sorted(CASES),
                    help="run only this case (repeatable; default all)")
    args = ap.parse_args(argv)
    if args.periods < 2 or args.periods % 2:
        ap.error(f"--periods {args.periods}: must be an even number >= 2")
    if not args.spacing > 0.0:
        ap.error(f"--spacing {args.spacing}: must be > 0 m")
    os.makedirs(args.output, exist_ok=True)
    results = []
    for i, name in enumerate(args.case or CASES):
        settings, cohesion = CASES[name]
        r = measure(name, settings, cohesion, args.periods,
                    os.path.join(args.output, f"bed_{i}"), spacing=args.spacing)
        print(f"{name}: " + " ".join(f"{s:.2g}" for s in r["largest_speed_every_two_periods"])
              + f" ({r['wall_seconds']:.0f} s)", flush=True)
        results.append(r)
    with open(os.path.join(args.output, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    validation.write_report(report_lines(results, args.periods, args.spacing), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
