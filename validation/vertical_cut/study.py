#!/usr/bin/env python3
"""A vertical cut in cohesive soil: does it stand below its critical height and fail above it?

Plane strain. A bank of cohesive-frictional soil, height H and width BANK_WIDTH_FACTOR H, rests
on a no-slip floor against a no-slip wall at its back; its front face is vertical and free. It
starts from the geostatic stress sigma_v = -rho g depth, sigma_h = K0 sigma_v with Jaky's
K0 = 1 - sin(phi) (regosph.bed.set_geostatic_stress) and runs under gravity, undamped, for
END_TIME_FACTOR sqrt(H / g).

Limit analysis brackets the critical height of a vertical cut in a Mohr-Coulomb soil with
associated flow and no tension cut-off (Chen 1975, "Limit Analysis and Soil Plasticity",
Elsevier, section 10.2):
    lower bound  H_l = 2 c tan(45 deg + phi/2) / (rho g)     (a stress field, Drucker 1953),
    upper bound  H_c = 3.83 c tan(45 deg + phi/2) / (rho g)  (Chen's log-spiral mechanism);
the acceptance of issue 45 asks that a cut of 0.9 H_c stands and one of 1.1 H_c fails. The
soil is the sampler study's regolith (SPEC.md section 8: rho = 1500 kg/m^3, K = 3.33 MPa,
mu = 370 kPa) with its P2 strength, phi = 20 deg and c = 1 kPa, so H_c = 0.372 m.

A cut "stands" when the crest (the top of the face) has moved less than STAND_FRACTION of H at
the end; it "fails" when it has moved more than FAIL_FRACTION of H. The
report states both, the crest's path, and the share of the dissipation taken by the
numerical scheme (the artificial viscosity) beside plasticity.

    /usr/bin/python3 validation/vertical_cut/study.py [--spacing 0.01] [--output DIR]
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

import regosph as rs
from regosph import validation

GRAVITY = 9.81                    # m/s^2
SOIL = dict(density=1500.0,       # kg/m^3 (SPEC.md section 8)
            bulk_modulus=3.33e6,  # Pa
            shear_modulus=3.7e5,  # Pa
            friction_angle=20.0,  # deg (P2)
            cohesion=1000.0)      # Pa (P2)
SMOOTHING_FACTOR = 2.5            # h / spacing, as the collapse
BANK_WIDTH_FACTOR = 2.0           # bank width / H: the failure wedge reaches ~0.7 H back
FLOOR_FACTOR = 1.5                # floor in front of the face / H
END_TIME_FACTOR = 8.0             # run time / sqrt(H / g)
STAND_FRACTION = 0.02             # crest displacement / H below which the cut stands
FAIL_FRACTION = 0.10              # crest displacement / H above which it has failed
HEIGHT_RATIOS = (0.9, 1.1)        # H / H_c of the acceptance


def critical_heights(friction_angle=SOIL["friction_angle"], cohesion=SOIL["cohesion"],
                     density=SOIL["density"], gravity=GRAVITY):
    """(lower bound, Chen's upper bound) of the critical height [m]."""
    n = math.tan(math.radians(45.0 + friction_angle / 2.0))
    gamma = density * gravity
    return 2.0 * cohesion * n / gamma, 3.83 * cohesion * n / gamma


def build(height, spacing, dilatancy_angle):
    """The bank of height [m] at spacing [m]; returns (sim, index of the crest particle)."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -GRAVITY, 0.0)
    soil = sim.add_material(rs.MohrCoulomb("soil", **SOIL, dilatancy_angle=dilatancy_angle))
    wall = sim.add_material(rs.Rigid("wall", density=SOIL["density"]))
    rows = max(int(round(height / spacing)), 4)
    columns = int(round(BANK_WIDTH_FACTOR * height / spacing))
    h = SMOOTHING_FACTOR * spacing
    layers = math.ceil(h / spacing) * spacing
    top, face = rows * spacing, columns * spacing
    bank = rs.rectangle((0.0, 0.0), (face, top))
    floor_end = face + FLOOR_FACTOR * height
    outer = rs.rectangle((-layers, -layers), (floor_end, top + layers))
    inside = rs.rectangle((0.0, 0.0), (floor_end + 1.0, top + 2.0 * layers))
    sim.add_body("soil", rs.lattice_fill(bank, spacing), material=soil, motion="dynamic",
                 spacing=spacing, smoothing_length=h)
    sim.add_body("walls", rs.lattice_fill(outer - inside, spacing), material=wall,
                 motion="fixed", spacing=spacing, smoothing_length=h)
    sim.set_bounds((-1.0, -1.0), (floor_end + 1.0, 2.0 * top + 1.0))
    rs.geostatic_stress(sim, k0="jaky")
    x = sim.positions
    dynamic = sim.body == 0
    crest = int(np.flatnonzero(dynamic)[np.argmax(np.where(dynamic, x[:, 0] + x[:, 1], -np.inf)[dynamic])])
    return sim, crest, top


def run_case(height, spacing, dilatancy_angle, progress=True):
    """Runs one cut; returns its row of the report."""
    sim, crest, top = build(height, spacing, dilatancy_angle)
    x0 = sim.positions[crest].copy()
    end = END_TIME_FACTOR * math.sqrt(top / GRAVITY)
    times, moved = [0.0], [0.0]
    started = time.time()
    samples = 40
    for k in range(1, samples + 1):
        target = end * k / samples
        while sim.time < target * (1.0 - 1e-12):
            sim.advance(target - sim.time)
        times.append(sim.time)
        moved.append(float(np.linalg.norm(sim.positions[crest] - x0)))
        if progress:
            print(f"\r  H = {top:.3f} m: t = {sim.time:.3f} / {end:.3f} s, crest moved "
                  f"{1e3 * moved[-1]:.1f} mm", end="", flush=True)
    if progress:
        print()
    d = sim.diagnostics()
    share = validation.dissipation_share(d)
    speed = float(np.linalg.norm(sim.velocities[crest]))
    return dict(height_m=top, crest_displacement_m=moved[-1],
                crest_displacement_over_h=moved[-1] / top,
                crest_speed_end_m_s=speed, end_time_s=end,
                crest_path_m=list(zip(times, moved)),
                plastic_dissipation_J_per_m=d.plastic_dissipation,
                viscous_dissipation_J_per_m=d.viscous_dissipation,
                wall_dissipation_J_per_m=d.wall_dissipation,
                kinetic_energy_J_per_m=d.kinetic_energy,
                numerical_share=share.share, dissipation_J_per_m=share.total,
                wall_contact=sim.physics.wall_contact, wall_time_s=time.time() - started)


def verdict(row):
    ratio = row["crest_displacement_over_h"]
    return "stands" if ratio < STAND_FRACTION else ("fails" if ratio > FAIL_FRACTION else "undecided")


def report_md(rows, spacing, lower, upper):
    lines = ["# A vertical cut in cohesive soil: stands below H_c, fails above", "",
             "Generated by `validation/vertical_cut/study.py` (its docstring has the set-up). "
             f"Mohr-Coulomb, phi = {SOIL['friction_angle']:g} deg, c = {SOIL['cohesion']:g} Pa, "
             f"rho = {SOIL['density']:g} kg/m^3, g = {GRAVITY} m/s^2, spacing {spacing} m; "
             f"the soil's contact with the floor and the back wall: "
             f"{rows[0]['wall_contact']} (physics.wall_contact).",
             f"Chen's upper bound H_c = {upper:.4f} m; the lower bound 2 c tan(45 + phi/2) / "
             f"(rho g) = {lower:.4f} m. A cut stands when its crest moved less than "
             f"{100 * STAND_FRACTION:g} % of H and fails when it moved more than "
             f"{100 * FAIL_FRACTION:g} %, after {END_TIME_FACTOR:g} sqrt(H/g).", "",
             "| psi [deg] | H / H_c | H [m] | crest displacement [mm] | / H | verdict | "
             "plastic [J/m] | viscous [J/m] | scheme's share of the dissipation | wall time [s] |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dilatancy_angle_deg']:g} | {r['ratio_to_chen']:.2f} | "
                     f"{r['height_m']:.3f} | {1e3 * r['crest_displacement_m']:.1f} | "
                     f"{100 * r['crest_displacement_over_h']:.2f} % | {r['verdict']} | "
                     f"{r['plastic_dissipation_J_per_m']:.3g} | {r['viscous_dissipation_J_per_m']:.3g} | "
                     f"{validation.DissipationShare.from_row(r).text('J/m')} | "
                     f"{r['wall_time_s']:.0f} |")
    lines += ["", "The scheme's share: Monaghan's viscosity's work against all the dissipation "
              "of the energy budget (plastic, walls, viscosity; "
              "regosph.validation.dissipation_share), flagged above 25 %."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", default=os.path.dirname(os.path.abspath(__file__)),
                    help="directory of report.md and report.json (default: beside this script)")
    ap.add_argument("--spacing", type=float, default=0.01, help="particle spacing [m]")
    ap.add_argument("--ratios", type=float, nargs="+", default=list(HEIGHT_RATIOS),
                    help="cut heights as multiples of Chen's H_c")
    ap.add_argument("--dilatancy", choices=("associated", "zero", "both"), default="both",
                    help="psi = phi (the limit theorems' flow rule), psi = 0, or both")
    args = ap.parse_args(argv)
    if not (math.isfinite(args.spacing) and args.spacing > 0.0):
        print(f"error: --spacing = {args.spacing} m must be positive", file=sys.stderr)
        return 2
    lower, upper = critical_heights()
    angles = {"associated": [SOIL["friction_angle"]], "zero": [0.0],
              "both": [SOIL["friction_angle"], 0.0]}[args.dilatancy]
    rows = []
    for psi in angles:
        for ratio in args.ratios:
            row = run_case(ratio * upper, args.spacing, psi)
            row.update(ratio_to_chen=ratio, dilatancy_angle_deg=psi, verdict=verdict(row))
            rows.append(row)
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
        json.dump(dict(soil=SOIL, spacing_m=args.spacing, lower_bound_m=lower,
                       chen_upper_bound_m=upper, cases=rows), f, indent=1)
    with open(os.path.join(args.output, "report.md"), "w", encoding="utf-8") as f:
        f.write(report_md(rows, args.spacing, lower, upper))
    ok = True
    for r in rows:
        print(f"  psi = {r['dilatancy_angle_deg']:g}, H = {r['ratio_to_chen']:.2f} H_c "
              f"({r['height_m']:.3f} m): crest moved {1e3 * r['crest_displacement_m']:.1f} mm "
              f"({100 * r['crest_displacement_over_h']:.2f} % of H) -> {r['verdict']}; the "
              "scheme's share of the dissipation "
              f"{validation.DissipationShare.from_row(r).text('J/m')}")
        ok &= r["verdict"] == ("stands" if r["ratio_to_chen"] < 1.0 else "fails")
    print("result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
