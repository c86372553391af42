#!/usr/bin/env python3
"""Where an elastic solid's kinetic energy goes under the pair dissipation (issue 44, "Elastic
discs at 0.059 c0: <= 1 % of the kinetic energy lost"), in two setups:

* ovalling: one free disc (radius 15 mm, the rubber of tests/python/test_energy_budget.py)
  given the velocity field of a smooth ovalling, v = V (x, -y) / R with V = 0.059 c0; over
  8 ms, the kinetic energy of its particle-scale motion (below) as a share of the initial
  kinetic energy E0 (largest over 32 samples, and at the end), and the share of E0 lost to the
  scheme;
* discs: the two discs of tests/python/test_energy_budget.py meeting at 2 x 0.059 c0; the
  scheme's dissipation as a share of the initial kinetic energy E0 at 3 and 5 ms, and the
  particle-scale share of E0 at 5 ms.

Particle-scale motion: each particle's velocity minus the smooth field at it, the smooth field
a Gaussian-weighted (sigma = 2 mm) least-squares linear fit of the velocities of the particles
of the same body around it (exact for rigid motion and for any linear field, at the discs'
edges too).

    /usr/bin/python3 validation/disc_contact/run.py [--spacing 1.5e-3 0.75e-3]
        [--dissipation riemann] [--riemann-reconstruction] [--riemann-limiter 3]
        [--setups ovalling discs] [--csv results.csv]

Prints one row per setup and spacing (and appends them to --csv with the options).
"""
import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np

import regosph as rs
from regosph import run_control

RADIUS = 0.015                       # m
DENSITY, YOUNGS, POISSON = 1000.0, 1e6, 0.3
C0 = math.sqrt(YOUNGS / (3 * (1 - 2 * POISSON)) / DENSITY)  # bulk sound speed [m/s]
SPEED = 0.059 * C0                   # m/s, as the rubber rings (examples/rubber_rings.py)
FILTER_SIGMA = 2e-3                  # m, the smooth field's Gaussian width
OVALLING_END, OVALLING_SAMPLES = 8e-3, 32
DISC_TIMES = (3e-3, 5e-3)            # s


def add_disc(sim, mat, name, centre, spacing, velocity=(0.0, 0.0)):
    sim.add_body(name, rs.lattice_fill(rs.disc(centre, RADIUS), spacing), material=mat,
                 motion="dynamic", spacing=spacing, smoothing_length=2.5 * spacing,
                 velocity=velocity)


def simulation(args):
    sim = rs.Simulation(dim=2)
    run_control.apply_dissipation(sim, args)
    if args.inviscid:
        sim.physics.av_alpha = sim.physics.av_beta = 0.0
    mat = sim.add_material(rs.ElasticSolid("rubber", density=DENSITY, youngs_modulus=YOUNGS,
                                           poisson_ratio=POISSON))
    return sim, mat


def particle_scale_energy(x, v, m, body):
    """Kinetic energy of the velocities minus their smooth field (module docstring) [J/m]."""
    rest = np.zeros_like(v)
    for b in np.unique(body):
        sel = body == b
        xb, vb = x[sel], v[sel]
        d = xb[:, None, :] - xb[None, :, :]                      # x_j - x_i, (i, j, dim)
        w = np.exp(-np.einsum("ijk,ijk->ij", d, d) / (2 * FILTER_SIGMA ** 2)) * m[sel][None, :]
        basis = np.concatenate([np.ones(d.shape[:2] + (1,)), d], axis=2)  # (1, x_j - x_i)
        A = np.einsum("ij,ijk,ijl->ikl", w, basis, basis)
        rhs = np.einsum("ij,ijk,jl->ikl", w, basis, vb)
        coef = np.linalg.solve(A, rhs)                            # (i, 1 + dim, dim)
        rest[sel] = vb - coef[:, 0, :]
    return 0.5 * np.sum(m[:, None] * rest ** 2)


def mechanical_loss(sim, e0):
    """1 - (kinetic + strain energy) / E0: what the scheme took, or holds elsewhere."""
    g = sim.diagnostics()
    return 1.0 - (g.kinetic_energy + g.strain_energy) / e0


def state(sim):
    x, v, m = sim.positions, sim.velocities, sim.mass
    kinetic = 0.5 * np.sum(m[:, None] * v ** 2)
    return kinetic, particle_scale_energy(x, v, m, sim.body)


def loss(sim):
    """The pair scheme's dissipation in the last sim.run [J/m] (each run's budget starts at
    zero)."""
    g = sim.diagnostics()
    return g.riemann_dissipation if sim.physics.dissipation == "riemann" else g.viscous_dissipation


def ovalling(args, spacing):
    sim, mat = simulation(args)
    add_disc(sim, mat, "disc", (0.0, 0.0), spacing)
    x = sim.positions
    sim.velocities = SPEED * np.stack([x[:, 0], -x[:, 1]], axis=1) / RADIUS
    e0, fine0 = state(sim)
    fractions, lost = [fine0 / e0], 0.0
    for k in range(1, OVALLING_SAMPLES + 1):
        sim.run(OVALLING_END * k / OVALLING_SAMPLES, progress_interval=0)
        lost += loss(sim)
        fractions.append(state(sim)[1] / e0)
    return {"setup": "ovalling", "spacing_m": spacing, "fine_max_of_E0": max(fractions),
            "fine_end_of_E0": fractions[-1], "loss_end_of_E0": lost / e0,
            "mechanical_loss_end": mechanical_loss(sim, e0), "steps": sim.step}


def discs(args, spacing):
    sim, mat = simulation(args)
    for name, x, v in (("left", -0.0165, SPEED), ("right", 0.0165, -SPEED)):
        add_disc(sim, mat, name, (x, 0.0), spacing, (v, 0.0))
    e0 = state(sim)[0]
    row, lost = {"setup": "discs", "spacing_m": spacing}, 0.0
    for t in DISC_TIMES:
        sim.run(t, progress_interval=0)
        lost += loss(sim)
        row[f"loss_{t * 1e3:g}ms_of_E0"] = lost / e0
        row[f"mechanical_loss_{t * 1e3:g}ms"] = mechanical_loss(sim, e0)
    row["fine_end_of_E0"] = state(sim)[1] / e0
    row["steps"] = sim.step
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spacing", type=float, nargs="+", default=[1.5e-3, 0.75e-3])
    ap.add_argument("--setups", nargs="+", choices=["ovalling", "discs"],
                    default=["ovalling", "discs"])
    run_control.add_dissipation_arguments(ap, dissipation="riemann")
    ap.add_argument("--inviscid", action="store_true",
                    help="with --dissipation monaghan: alpha = beta = 0, no dissipation")
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args(argv)
    if args.inviscid and args.dissipation != "monaghan":
        ap.error("--inviscid sets Monaghan's alpha and beta: with --dissipation monaghan")
    options = {"dissipation": "none" if args.inviscid else args.dissipation,
               "riemann_limiter": (args.riemann_limiter if args.riemann_limiter is not None
                                   else rs.Simulation(dim=2).physics.riemann_limiter),
               "riemann_reconstruction": args.riemann_reconstruction,
               "riemann_limiter_floor": args.riemann_limiter_floor,
               "time_scheme": args.time_scheme,
               "hourglass_control": args.hourglass_control,
               "density_diffusion": args.density_diffusion,
               "riemann_stress_jump": args.riemann_stress_jump}
    for setup in args.setups:
        for spacing in args.spacing:
            row = {**options, **(ovalling if setup == "ovalling" else discs)(args, spacing)}
            print(", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                            for k, v in row.items()), flush=True)
            if args.csv:
                new = not args.csv.exists()
                with args.csv.open("a", newline="") as f:
                    w = csv.writer(f)
                    if new:
                        w.writerow(row.keys())
                    w.writerow(row.values())
    return 0


if __name__ == "__main__":
    sys.exit(main())
