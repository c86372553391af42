#!/usr/bin/env python3
"""A static elastic cantilever under gravity, clamped at one end (plane strain), against the
Euler-Bernoulli tip deflection (issue 16: the kernel gradient correction's test).

A beam of length L = 1 m and thickness t = 0.1 m (L/t = 10) of an elastic solid (E = 1 MPa,
nu = 0.3, rho = 1000 kg/m^3) sticks out from a clamp: three columns (at least one support
radius) of fixed particles of the same material continue it at x < 0. Gravity is chosen so
that the Euler-Bernoulli tip deflection is 0.5 % of L (small deflection: the linear theory
applies), and the beam is brought to its static state by Cundall's kinetic damping
(rs.bed.relax_with_kinetic_damping, the relaxation of prepared beds). Its deflection is then
compared with

    w(x) = q x^2 (6 L^2 - 4 L x + x^2) / (24 E' I),  q = rho g t, I = t^3 / 12,
    E' = E / (1 - nu^2)  (plane strain),

at the centre x_tip = L - dx/2 of the last column of particles (w(L) = q L^4 / (8 E' I)).
Shear deformation (Timoshenko) adds E' t^2 / (3 kappa G L^2) = 1.1 % to it at L/t = 10.

    /usr/bin/python3 examples/cantilever.py --rows 6 [--kernel-correction]
"""
import argparse

import numpy as np

import regosph as rs
from regosph.bed import relax_with_kinetic_damping

LENGTH = 1.0          # m
THICKNESS = 0.1       # m
YOUNGS_MODULUS = 1e6  # Pa
POISSON_RATIO = 0.3
DENSITY = 1000.0      # kg/m^3
DEFLECTION = 0.005    # Euler-Bernoulli tip deflection / L
SMOOTHING_FACTOR = 2.5
CLAMP_COLUMNS = 3     # >= SMOOTHING_FACTOR: the clamp is at least one support radius long


def plane_strain_modulus():
    """E' = E / (1 - nu^2) [Pa]."""
    return YOUNGS_MODULUS / (1.0 - POISSON_RATIO ** 2)


def gravity():
    """g [m/s^2] that gives the tip deflection DEFLECTION * L: w(L) = 1.5 rho g L^4 / (E' t^2)."""
    return DEFLECTION * LENGTH * plane_strain_modulus() * THICKNESS ** 2 / (
        1.5 * DENSITY * LENGTH ** 4)


def euler_bernoulli(x):
    """Deflection w(x) [m] (positive downward) of the clamped beam under its weight."""
    q = DENSITY * gravity() * THICKNESS
    inertia = THICKNESS ** 3 / 12.0
    return q * x ** 2 * (6 * LENGTH ** 2 - 4 * LENGTH * x + x ** 2) / (
        24.0 * plane_strain_modulus() * inertia)


def strain_energy():
    """Elastic strain energy of the bent beam [J/m], q^2 L^5 / (40 E' I)."""
    q = DENSITY * gravity() * THICKNESS
    return q ** 2 * LENGTH ** 5 / (40.0 * plane_strain_modulus() * THICKNESS ** 3 / 12.0)


def build(rows, kernel_correction=False, av_balsara=False):
    """The cantilever with `rows` particles through the thickness (spacing t / rows)."""
    if not (isinstance(rows, int) and rows >= 2):
        raise ValueError(f"rows = {rows!r} must be a whole number >= 2")
    dx = THICKNESS / rows
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -gravity(), 0.0)
    sim.physics.av_balsara = av_balsara
    beam = sim.add_material(rs.ElasticSolid(
        "beam", density=DENSITY, youngs_modulus=YOUNGS_MODULUS, poisson_ratio=POISSON_RATIO,
        kernel_correction=kernel_correction))
    sim.add_body("beam", rs.lattice_fill(rs.rectangle((0.0, 0.0), (LENGTH, THICKNESS)), dx),
                 material=beam, motion="dynamic", spacing=dx,
                 smoothing_length=SMOOTHING_FACTOR * dx)
    clamp = rs.rectangle((-CLAMP_COLUMNS * dx, 0.0), (0.0, THICKNESS))
    sim.add_body("clamp", rs.lattice_fill(clamp, dx), material=beam, motion="fixed", spacing=dx,
                 smoothing_length=SMOOTHING_FACTOR * dx)
    return sim


def column_deflections(sim, start):
    """x [m] of each column of beam particles at rest and its mean downward displacement [m]
    (the neutral axis); start[id] is each particle's position at rest (x, y)."""
    beam = sim.kind == rs.KIND_DYNAMIC
    ids = sim.ids[beam]
    x0 = np.round(start[ids, 0] / (THICKNESS * 1e-6)).astype(np.int64)  # columns, exactly
    columns, which = np.unique(x0, return_inverse=True)
    w = np.bincount(which, start[ids, 1] - sim.positions[beam, 1]) / np.bincount(which)
    return columns * (THICKNESS * 1e-6), w


def bending_deflection(x, w, x1_fraction=0.3):
    """Tip deflection relative to the tangent at x1 ~ 0.3 L, w(x_tip) - w(x1) - w'(x1)
    (x_tip - x1) [m], and the same for Euler-Bernoulli. It depends only on the curvature
    between x1 and the tip, set by the bending moment there (statically determinate) and E' I:
    the beam's bending stiffness, without the clamp's compliance (the wall particles'
    extrapolated stress does not hold the root's rotation exactly; README "Numerics")."""
    k = int(np.argmin(np.abs(x - x1_fraction * LENGTH)))
    slope = (w[k + 2] - w[k - 2]) / (x[k + 2] - x[k - 2])  # central difference over 4 columns
    exact_slope = (euler_bernoulli(x[k + 2]) - euler_bernoulli(x[k - 2])) / (x[k + 2] - x[k - 2])
    sph = w[-1] - w[k] - slope * (x[-1] - x[k])
    exact = euler_bernoulli(x[-1]) - euler_bernoulli(x[k]) - exact_slope * (x[-1] - x[k])
    return sph, exact


def run(rows, kernel_correction=False, av_balsara=False, tolerance=1e-6, max_steps=200000):
    """Relaxes the cantilever; returns a dict with the SPH and Euler-Bernoulli tip deflections
    [m] and their relative difference (`tip_error`, the clamp's compliance included), the same
    for the bending deflection beyond 0.3 L (`error`), steps and particles."""
    sim = build(rows, kernel_correction, av_balsara)
    start = np.zeros((sim.ids.max() + 1, 2))
    start[sim.ids] = sim.positions[:, :2]
    relaxed = relax_with_kinetic_damping(sim, tolerance * strain_energy(), max_steps,
                                         progress_interval=0)
    x, w = column_deflections(sim, start)
    bending, bending_exact = bending_deflection(x, w)
    tip_exact = euler_bernoulli(x[-1])
    return dict(rows=rows, spacing=THICKNESS / rows, kernel_correction=kernel_correction,
                particles=int((sim.kind == rs.KIND_DYNAMIC).sum()), steps=relaxed["steps"],
                resets=relaxed["resets"], tip_deflection=float(w[-1]), euler_bernoulli=tip_exact,
                tip_error=float(w[-1] / tip_exact - 1.0), bending_deflection=float(bending),
                bending_euler_bernoulli=bending_exact, error=float(bending / bending_exact - 1.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6, help="particles through the thickness")
    ap.add_argument("--kernel-correction", action="store_true")
    args = ap.parse_args()
    r = run(args.rows, args.kernel_correction)
    print(f"rows {r['rows']}: tip deflection {r['tip_deflection'] * 1e3:.3f} mm, "
          f"Euler-Bernoulli {r['euler_bernoulli'] * 1e3:.3f} mm ({100 * r['tip_error']:+.1f} %); "
          f"bending beyond 0.3 L {r['bending_deflection'] * 1e3:.3f} mm, Euler-Bernoulli "
          f"{r['bending_euler_bernoulli'] * 1e3:.3f} mm ({100 * r['error']:+.1f} %); "
          f"{r['steps']} steps, {r['resets']} resets")


if __name__ == "__main__":
    main()
