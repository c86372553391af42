#!/usr/bin/env python3
"""A static elastic cantilever under gravity, clamped at one end (plane strain), against
Euler-Bernoulli and Timoshenko beam theory (issue 16: the kernel gradient correction's test).

Setup. A beam of length L = 0.2 m and thickness t = 0.02 m (L/t = 10) of an elastic solid
(E = 1 MPa, nu = 0.3, rho = 1000 kg/m^3, Murnaghan n = 1, no artificial stress: the stresses
are small and static) sticks out from a clamp: three columns (>= one support radius) of fixed
particles of the same material continue it at x < 0; their stress is the wall extrapolation of
every wall (docs/guide/physics.md). Gravity g is chosen so that the Euler-Bernoulli tip deflection
is 1e-3 L (linear regime). `rows` particles through the thickness, support radius 2.5 spacings.

Static state. Gravity acts from t = 0 on the unstressed beam, which is brought to rest by
Cundall's kinetic damping (regosph.bed.relax_with_kinetic_damping: every velocity set to zero at
each peak of the kinetic energy), stopped at the first peak below 1e-6 of the Euler-Bernoulli
strain energy q^2 L^5 / (40 E' I). The rest is then checked by an undamped run of one
Euler-Bernoulli first-mode period T1 = 2 pi / omega1, omega1 = 1.875^2 sqrt(E' I / (rho A L^4)):
the tip's residual oscillation amplitude (half its peak-to-peak) is reported as a fraction of the
deflection; the deflection is measured at the end of the relaxation.

Measurement. The centreline deflection w(x) of each column of beam particles (the mean downward
displacement of the column) is fitted, over the columns at least one thickness from the clamp
face (outside the clamp's Saint-Venant zone), by a rigid line plus a multiple of the
Euler-Bernoulli shape,
    w(x) ~ a + b x + C w_EB(x),   w_EB(x) = q x^2 (6 L^2 - 4 L x + x^2) / (24 E' I),
    q = rho g t, I = t^3 / 12, E' = E / (1 - nu^2).
A cantilever is statically determinate: its bending moment q (L - x)^2 / 2 does not depend on
the clamp, so C (the ratio of the theory's bending stiffness to the SPH beam's) does not either;
the rigid line takes up the clamp's compliance. delta_rel = C w_EB(L) is the tip deflection
relative to the tangent at the clamp face, w(L) - w(0) - w'(0) L of the fitted line; b is the
root rotation [rad] and a the root translation [m]. Reported against
  - Euler-Bernoulli, w_EB(L) = q L^4 / (8 E' I);
  - Timoshenko, w_T(x) = w_EB(x) + q (L x - x^2 / 2) / (kappa G A), kappa = 5/6, whose tip
    deflection q L^4 / (8 E' I) + q L^2 / (2 kappa G A) is 1.1 % above Euler-Bernoulli at
    L/t = 10. Measured in the same way (the same fit applied to w_T at the same columns), its
    shear part is mostly a rigid rotation and lowers delta_rel by 2.3 % (C_T = 0.977); the
    comparison ratio is C / C_T. This is the reference the test and the study compare against.
The raw tip deflection (last column, clamp compliance included) is reported against w_T there.

    /usr/bin/python3 examples/cantilever.py --rows 6 [--kernel-correction]
    /usr/bin/python3 examples/cantilever.py --study [--rows-list 4 6 8] [--output validation/cantilever]
"""
import argparse
import csv
import math
import os
import time

import numpy as np

import regosph as rs
from regosph import validation
from regosph.bed import relax_with_kinetic_damping

LENGTH = 0.2          # m
THICKNESS = 0.02      # m
YOUNGS_MODULUS = 1e6  # Pa
POISSON_RATIO = 0.3
DENSITY = 1000.0      # kg/m^3
DEFLECTION = 1e-3     # Euler-Bernoulli tip deflection / L
SMOOTHING_FACTOR = 2.5
CLAMP_COLUMNS = 3     # >= SMOOTHING_FACTOR: the clamp is at least one support radius long
SHEAR_COEFFICIENT = 5.0 / 6.0  # kappa of a rectangular section
ENERGY_TOLERANCE = 1e-6  # kinetic-energy peak / strain energy that ends the relaxation
MAX_STEPS = 400000
STUDY_ROWS = (4, 6, 8)
# realpath: imported as regosph.examples.cantilever, __file__ is the build tree's link to it.
STUDY_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "validation",
                         "cantilever")
COLUMNS = ("rows", "kernel_correction", "particles", "delta_rel_over_timoshenko",
           "delta_rel_over_euler_bernoulli", "raw_tip_over_timoshenko", "tip_deflection_m",
           "root_rotation_rad", "root_translation_m", "residual_amplitude", "fit_rms",
           "relaxation_steps", "resets", "check_steps", "numerical_share",
           "dissipation_J_per_m", "wall_time_s")


def plane_strain_modulus():
    """E' = E / (1 - nu^2) [Pa]."""
    return YOUNGS_MODULUS / (1.0 - POISSON_RATIO ** 2)


def bending_stiffness():
    """E' I [N m^2 per m of width], I = t^3 / 12."""
    return plane_strain_modulus() * THICKNESS ** 3 / 12.0


def gravity():
    """g [m/s^2] that gives the Euler-Bernoulli tip deflection DEFLECTION * L."""
    return DEFLECTION * LENGTH * 8.0 * bending_stiffness() / (DENSITY * THICKNESS * LENGTH ** 4)


def line_load():
    """q = rho g t [N/m per m of width]."""
    return DENSITY * gravity() * THICKNESS


def euler_bernoulli(x):
    """Deflection w(x) [m] (positive downward) of the clamped beam under its weight."""
    return line_load() * x ** 2 * (6 * LENGTH ** 2 - 4 * LENGTH * x + x ** 2) / (
        24.0 * bending_stiffness())


def timoshenko(x):
    """w(x) [m] with the shear deflection q (L x - x^2 / 2) / (kappa G A) added."""
    shear_modulus = YOUNGS_MODULUS / (2.0 * (1.0 + POISSON_RATIO))
    return euler_bernoulli(x) + line_load() * (LENGTH * x - 0.5 * x ** 2) / (
        SHEAR_COEFFICIENT * shear_modulus * THICKNESS)


def first_mode_period():
    """T1 = 2 pi / omega1 [s] of the Euler-Bernoulli cantilever."""
    return 2.0 * math.pi / (1.875 ** 2 * math.sqrt(bending_stiffness() / (
        DENSITY * THICKNESS * LENGTH ** 4)))


def strain_energy():
    """Elastic strain energy of the bent beam [J/m], q^2 L^5 / (40 E' I)."""
    return line_load() ** 2 * LENGTH ** 5 / (40.0 * bending_stiffness())


def build(rows, kernel_correction=False):
    """The cantilever with `rows` particles through the thickness (spacing t / rows)."""
    if isinstance(rows, bool) or not (isinstance(rows, int) and rows >= 2):
        raise ValueError(f"rows = {rows!r} must be a whole number >= 2")
    dx = THICKNESS / rows
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -gravity(), 0.0)
    beam = sim.add_material(rs.ElasticSolid(
        "beam", density=DENSITY, youngs_modulus=YOUNGS_MODULUS, poisson_ratio=POISSON_RATIO,
        kernel_correction=kernel_correction))
    sim.add_body("beam", rs.lattice_fill(rs.rectangle((0.0, 0.0), (LENGTH, THICKNESS)), dx),
                 material=beam, motion="dynamic", spacing=dx,
                 smoothing_length=SMOOTHING_FACTOR * dx)
    clamp = rs.rectangle((-CLAMP_COLUMNS * dx, 0.0), (0.0, THICKNESS))
    # A clamp holds the beam's root in tension as in compression: bonded.
    sim.add_body("clamp", rs.lattice_fill(clamp, dx), material=beam, motion="fixed", spacing=dx,
                 smoothing_length=SMOOTHING_FACTOR * dx, contact="bonded")
    return sim


def column_deflections(sim, start):
    """x [m] of each column of beam particles at rest and its mean downward displacement [m]
    (the centreline); start[id] is each particle's position at rest (x, y)."""
    beam = sim.kind == rs.KIND_DYNAMIC
    ids = sim.ids[beam]
    unit = THICKNESS * 1e-6
    x0 = np.round(start[ids, 0] / unit).astype(np.int64)  # columns, exactly
    columns, which = np.unique(x0, return_inverse=True)
    w = np.bincount(which, start[ids, 1] - sim.positions[beam, 1]) / np.bincount(which)
    return columns * unit, w


def fit_bending(x, w):
    """Least-squares w ~ a + b x + C w_EB(x) over the columns x >= THICKNESS (see the module's
    docstring); returns a [m], b [rad], C [-] and the rms misfit / w_EB(L) [-]."""
    use = x >= THICKNESS
    design = np.stack([np.ones(use.sum()), x[use], euler_bernoulli(x[use])], axis=1)
    (a, b, c), *_ = np.linalg.lstsq(design, w[use], rcond=None)
    rms = float(np.sqrt(np.mean((design @ (a, b, c) - w[use]) ** 2)) / euler_bernoulli(LENGTH))
    return float(a), float(b), float(c), rms


def tip_column_mean(sim, tip, start):
    """Mean downward displacement [m] of the particles `tip` (ids of the last column)."""
    at = np.isin(sim.ids, tip)
    return float((start[sim.ids[at], 1] - sim.positions[at, 1]).mean())


def undamped_tip_amplitude(sim, tip, start, duration):
    """Runs `duration` [s] undamped; returns half the peak-to-peak of the tip's deflection [m]
    and the steps taken."""
    end, step0 = sim.time + duration, sim.step
    w = [tip_column_mean(sim, tip, start)]
    while sim.time < end:
        sim.advance(end - sim.time)
        w.append(tip_column_mean(sim, tip, start))
    return 0.5 * (max(w) - min(w)), sim.step - step0


def run(rows, kernel_correction=False):
    """Relaxes the cantilever, measures it and checks its rest; returns one row of COLUMNS."""
    wall = time.monotonic()
    sim = build(rows, kernel_correction)
    start = np.zeros((sim.ids.max() + 1, 2))
    start[sim.ids] = sim.positions[:, :2]
    beam = sim.kind == rs.KIND_DYNAMIC
    tip = sim.ids[beam & (sim.positions[:, 0] > LENGTH - THICKNESS / rows)]
    relaxed = relax_with_kinetic_damping(sim, ENERGY_TOLERANCE * strain_energy(), MAX_STEPS,
                                         progress_interval=0)
    x, w = column_deflections(sim, start)
    a, b, c, rms = fit_bending(x, w)
    *_, c_timoshenko, _ = fit_bending(x, timoshenko(x))
    amplitude, check_steps = undamped_tip_amplitude(sim, tip, start, first_mode_period())
    # Of the energy budget over the whole run; the kinetic damping's resets are not in it.
    share = validation.dissipation_share(sim.diagnostics())
    return dict(rows=rows, kernel_correction=kernel_correction, particles=int(beam.sum()),
                delta_rel_over_timoshenko=c / c_timoshenko, delta_rel_over_euler_bernoulli=c,
                raw_tip_over_timoshenko=float(w[-1] / timoshenko(x[-1])),
                tip_deflection_m=float(w[-1]), root_rotation_rad=b, root_translation_m=a,
                residual_amplitude=amplitude / (c * euler_bernoulli(LENGTH)), fit_rms=rms,
                relaxation_steps=relaxed["steps"], resets=relaxed["resets"],
                check_steps=check_steps, numerical_share=share.share,
                dissipation_J_per_m=share.total, wall_time_s=time.monotonic() - wall)


def describe(r):
    """One line of a run's result."""
    return (f"rows {r['rows']}, correction {'on ' if r['kernel_correction'] else 'off'}: "
            f"delta_rel / Timoshenko {r['delta_rel_over_timoshenko']:.4f} (/ Euler-Bernoulli "
            f"{r['delta_rel_over_euler_bernoulli']:.4f}), raw tip / Timoshenko "
            f"{r['raw_tip_over_timoshenko']:.4f} ({r['tip_deflection_m'] * 1e3:.4f} mm), root "
            f"rotation {r['root_rotation_rad']:.3e} rad, residual amplitude "
            f"{r['residual_amplitude']:.1e}, fit rms {r['fit_rms']:.1e}, "
            f"{r['relaxation_steps']} + {r['check_steps']} steps ({r['resets']} resets), "
            f"{r['wall_time_s']:.0f} s")


def write_study(results, output_dir):
    """results.csv (one row per run, COLUMNS) and report.md (the table) in output_dir."""
    os.makedirs(output_dir, exist_ok=True)
    with open(os.path.join(output_dir, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(results)
    lines = ["# Static cantilever under gravity (examples/cantilever.py --study)", "",
             f"L = {LENGTH} m, t = {THICKNESS} m, E = {YOUNGS_MODULUS:g} Pa, nu = "
             f"{POISSON_RATIO}, rho = {DENSITY:g} kg/m^3, g = {gravity():.5g} m/s^2; "
             f"Euler-Bernoulli tip deflection {euler_bernoulli(LENGTH) * 1e3:.4f} mm, "
             f"Timoshenko {timoshenko(LENGTH) * 1e3:.4f} mm. Method and measures: the "
             "docstring of examples/cantilever.py.", "",
             "| rows | correction | delta_rel / Timoshenko | delta_rel / EB | raw tip / "
             "Timoshenko | raw tip [mm] | root rotation [rad] | residual amplitude | fit rms "
             "| steps (relax + check) | resets | scheme's share of the dissipation | "
             "wall time [s] |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(
            f"| {r['rows']} | {'on' if r['kernel_correction'] else 'off'} | "
            f"{r['delta_rel_over_timoshenko']:.3f} | {r['delta_rel_over_euler_bernoulli']:.3f} | "
            f"{r['raw_tip_over_timoshenko']:.3f} | {r['tip_deflection_m'] * 1e3:.4f} | "
            f"{r['root_rotation_rad']:.2e} | {r['residual_amplitude']:.1e} | "
            f"{r['fit_rms']:.1e} | {r['relaxation_steps']} + {r['check_steps']} | "
            f"{r['resets']} | {validation.DissipationShare.from_row(r).text('J/m')} | "
            f"{r['wall_time_s']:.0f} |")
    lines += ["", "The scheme's share: Monaghan's viscosity's work against all the dissipation "
              "of the energy budget (regosph.validation.dissipation_share) over the relaxation "
              "and the check; the kinetic damping's resets, which take out most of the "
              "energy, are not in the budget."]
    with open(os.path.join(output_dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6, help="particles through the thickness")
    ap.add_argument("--kernel-correction", action="store_true")
    ap.add_argument("--study", action="store_true",
                    help="every --rows-list resolution with and without the correction; writes "
                         "results.csv and report.md into --output")
    ap.add_argument("--rows-list", type=int, nargs="+", default=list(STUDY_ROWS))
    ap.add_argument("--output", default=STUDY_DIR)
    args = ap.parse_args()
    if not args.study:
        print(describe(run(args.rows, args.kernel_correction)))
        return
    results = []
    for rows in args.rows_list:
        for on in (False, True):
            results.append(run(rows, on))
            print(describe(results[-1]), flush=True)
    write_study(results, args.output)


if __name__ == "__main__":
    main()
