#!/usr/bin/env python3
"""Colliding rubber rings (Gray, Monaghan & Swift 2001; the PySPH solid_mech "rings" case).

Two elastic rings, inner radius 3 cm and outer radius 4 cm, centres 8.2 cm apart, move toward
each other at 0.059 c0 each (c0 = sqrt(K / rho0), the bulk sound speed). They meet, deform
and bounce apart. Without Monaghan's artificial stress the tensile instability tears them.
Plane strain, no gravity, no walls.

    /usr/bin/python3 examples/rubber_rings.py [--end-time 3e-4] [--output runs/rings]

Material (the PySPH case): E = 1e7 Pa, nu = 0.3975, rho0 = 1 kg/m^3 -> K = 1.63e7 Pa,
mu = 3.58e6 Pa, c0 = 4032 m/s; EoS p = c0^2 (rho - rho0) (Murnaghan, n = 1); Hooke deviatoric
stress with the Jaumann rate; artificial stress eps = 0.3, n = 4; XSPH eps = 0.5; artificial
viscosity alpha = beta = 1 with c0 as its sound speed. Spacing 0.5 mm on a square lattice
through each ring's centre, support radius 1.5 mm (3 x spacing).

Conventions that differ from PySPH: regosph's h is the kernel support radius (PySPH's h is
half of it), and the viscosity term (Schaefer 2017 eq. 35) uses that h, so alpha = beta = 1
here is a stronger viscosity than PySPH's alpha = beta = 1 (the same as PySPH's 2 alpha and
4 beta); --av-alpha/--av-beta change it. Time integration is regosph's adaptive Heun (two
right-hand sides per step) with the Courant limit on the longitudinal wave speed.

Prints the ring count and speeds, then per interval the time, each ring's mean x-velocity
and the distance between the rings' centres, and whether they bounced (the left ring moving left again).
"""
import argparse
import math
import sys

import numpy as np

import regosph as rs

YOUNGS_MODULUS = 1e7    # Pa
POISSON_RATIO = 0.3975
DENSITY = 1.0           # kg/m^3
INNER_RADIUS = 0.03     # m
OUTER_RADIUS = 0.04     # m
CENTRE_DISTANCE = 0.082  # m
SPEED_FRACTION = 0.059  # of c0, each ring toward the other
SPACING = 0.5e-3        # m
SUPPORT_FACTOR = 3.0    # support radius / spacing (1.5 mm at 0.5 mm)
ARTIFICIAL_STRESS = 0.3
ARTIFICIAL_STRESS_EXPONENT = 4.0
XSPH = 0.5
AV_ALPHA = AV_BETA = 1.0


def bulk_sound_speed():
    """c0 = sqrt(K / rho0) [m/s] with K = E / (3 (1 - 2 nu))."""
    return math.sqrt(YOUNGS_MODULUS / (3.0 * (1.0 - 2.0 * POISSON_RATIO)) / DENSITY)


def ring_points(spacing):
    """A ring about the origin: square lattice through its centre, inner radius <= r < outer
    radius. Both rings are this set, shifted, so that they are mirror images."""
    half = 0.5 * spacing  # cell centres at k spacing
    return rs.lattice_fill(rs.annulus((0.0, 0.0), INNER_RADIUS, OUTER_RADIUS), spacing,
                           origin=(-half, -half))


def build(spacing=SPACING, artificial_stress=ARTIFICIAL_STRESS, xsph=XSPH,
          av_alpha=AV_ALPHA, av_beta=AV_BETA):
    """The two rings at the given particle spacing [m]; bodies 'left' and 'right'."""
    if not (math.isfinite(spacing) and spacing > 0.0):
        raise ValueError(f"spacing = {spacing!r} m must be a positive, finite length")
    c0 = bulk_sound_speed()
    sim = rs.Simulation(dim=2)
    sim.physics.av_alpha, sim.physics.av_beta = av_alpha, av_beta
    rubber = sim.add_material(rs.ElasticSolid(
        "rubber", density=DENSITY, youngs_modulus=YOUNGS_MODULUS, poisson_ratio=POISSON_RATIO,
        murnaghan_n=1.0, viscosity_sound_speed=c0, artificial_stress=artificial_stress,
        artificial_stress_exponent=ARTIFICIAL_STRESS_EXPONENT, xsph=xsph))
    u = SPEED_FRACTION * c0
    h = SUPPORT_FACTOR * spacing
    for name, x, vx in (("left", 0.0, u), ("right", CENTRE_DISTANCE, -u)):
        sim.add_body(name, ring_points(spacing) + [x, 0.0], material=rubber, motion="dynamic",
                     spacing=spacing, smoothing_length=h, velocity=(vx, 0.0, 0.0))
    return sim


def ring_state(positions, velocities, body):
    """(mean x-velocity of the left ring, of the right ring [m/s], distance of their centres
    of mass [m]); the particles of a ring have equal masses."""
    left, right = body == 0, body == 1
    distance = positions[right, 0].mean() - positions[left, 0].mean()
    return velocities[left, 0].mean(), velocities[right, 0].mean(), distance


def history_from_snapshots(out):
    import h5py
    rows = []
    for f in sorted(__import__("pathlib").Path(out).glob("snapshot_*.h5")):
        with h5py.File(f, "r") as h5:
            p = h5["particles"]
            rows.append((h5.attrs["time"], *ring_state(p["position"][...], p["velocity"][...],
                                                       p["body"][...])))
    return rows


def history_in_memory(sim, end_time, intervals):
    rows = [(sim.time, *ring_state(sim.positions, sim.velocities, sim.body))]
    for k in range(1, intervals + 1):
        sim.run(end_time * k / intervals, progress_interval=0)
        rows.append((sim.time, *ring_state(sim.positions, sim.velocities, sim.body)))
    return rows


def main(argv=None):
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--end-time", type=float, default=3e-4, help="simulated time [s]")
    ap.add_argument("--output", help="run directory (snapshots); none: nothing written")
    ap.add_argument("--overwrite", action="store_true", help="replace a run in --output")
    ap.add_argument("--spacing", type=float, default=SPACING, help="particle spacing [m]")
    ap.add_argument("--intervals", type=int, default=20, help="rows of the printed history")
    ap.add_argument("--artificial-stress", type=float, default=ARTIFICIAL_STRESS)
    ap.add_argument("--xsph", type=float, default=XSPH)
    ap.add_argument("--av-alpha", type=float, default=AV_ALPHA)
    ap.add_argument("--av-beta", type=float, default=AV_BETA)
    args = ap.parse_args(argv)

    sim = build(args.spacing, args.artificial_stress, args.xsph, args.av_alpha, args.av_beta)
    rubber = sim.materials[0]
    c0 = bulk_sound_speed()
    print(f"rubber rings: {sim.size} particles, spacing {args.spacing:g} m, "
          f"c0 = {c0:.1f} m/s, c_p = {rubber.wave_speed:.1f} m/s, "
          f"ring speed {SPEED_FRACTION * c0:.2f} m/s")
    try:
        if args.output:
            sim.run(args.end_time, output_dir=args.output, overwrite=args.overwrite,
                    snapshot_interval=args.end_time / args.intervals, progress_interval=0,
                    metadata={"setup": "rubber_rings", "spacing_m": repr(args.spacing)})
            rows = history_from_snapshots(args.output)
        else:
            rows = history_in_memory(sim, args.end_time, args.intervals)
    except rs.BlowUpError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    print(f"{'t [s]':>10} {'vx left [m/s]':>14} {'vx right [m/s]':>15} {'centres [mm]':>13}")
    for t, vl, vr, distance in rows:
        print(f"{t:10.3e} {vl:14.2f} {vr:15.2f} {distance * 1e3:13.3f}")
    v0, v_end = rows[0][1], rows[-1][1]
    bounced = v_end < 0.0 < v0
    print(f"{sim.step} steps; bounced: {'yes' if bounced else 'no'} "
          f"(left ring vx {v0:.2f} -> {v_end:.2f} m/s, restitution {-v_end / v0:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
