#!/usr/bin/env python3
"""Soil collapse of Bui et al. (2008) in 3D: the block of examples/soil_collapse.py extruded in z.

A block of soil, 0.20 m long, 0.10 m high and --depth wide, rests on a floor against a fixed
wall at x = 0 and collapses under gravity when it is released at t = 0. Same material,
artificial viscosity and smoothing factor as the plane-strain collapse (SPEC.md section 7,
../shared/reference/bui2008_soil_collapse/README.md); in 3D the core uses the Drucker-Prager
constants of the Mohr-Coulomb outer cone (docs/guide/physics.md).

Side walls: two fixed walls at z < 0 and z > depth, as thick as the floor and as high as the
back wall, like the glass panes of a flume. regosph's walls are no-slip (wall particles at rest,
SPEC.md section 6), so the side walls hold back the soil next to them and the runout is shorter
than in plane strain by an amount that shrinks as the block gets wider; a free-slip side wall
would need a mirrored-velocity boundary that the core does not have. The default depth, 0.1 m
(half the block's length), keeps most of the block away from the side walls.

    /usr/bin/python3 examples/soil_collapse_3d.py --output runs/collapse3d
    /usr/bin/python3 examples/soil_collapse_3d.py --target-particles 1e6 --output runs/collapse3d_1M
    mpirun -n 4 --bind-to none /usr/bin/python3 examples/soil_collapse_3d.py --target-particles 1e6 ...

Every MPI rank builds the same particles; only rank 0 prints.
"""
import argparse
import math
import sys

import regosph as rs
from regosph.examples import soil_collapse as sc
from regosph import run_control

DEFAULT_SPACING = 5e-3  # m: ~42 k particles at the default depth
DEFAULT_DEPTH = 0.10    # m


def estimated_count(spacing, depth):
    """Particles of build(spacing, depth=depth): the soil block exactly, the walls from their
    volume over spacing^3 (their outer faces need not fall on lattice planes)."""
    nx, ny, nz = (int(length / spacing) for length in (sc.BLOCK_LENGTH, sc.BLOCK_HEIGHT, depth))
    width = nz * spacing
    layers = math.ceil(sc.SMOOTHING_FACTOR) * spacing  # the walls' thickness in soil_collapse
    walls = ((sc.FLOOR_LENGTH + layers) * (sc.WALL_HEIGHT + layers) * (width + 2 * layers)
             - sc.FLOOR_LENGTH * sc.WALL_HEIGHT * width)
    return nx * ny * nz + walls / spacing ** 3


def spacing_for(target, depth):
    """The largest spacing [m] (to 0.1 %) whose estimated particle count reaches target."""
    if not (math.isfinite(target) and target >= 1):
        raise ValueError(f"target-particles = {target!r} must be a positive count")
    lo, hi = 1e-5, depth  # estimated_count(lo) >= target >= estimated_count(hi) below
    if estimated_count(lo, depth) < target:
        raise ValueError(f"target-particles = {target:g} needs a spacing below {lo} m")
    while hi / lo > 1.001:
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if estimated_count(mid, depth) >= target else (lo, mid)
    return lo


def build(spacing=DEFAULT_SPACING, depth=DEFAULT_DEPTH, target_particles=None):
    """The 3D collapse; with target_particles the spacing is the largest that gives at least
    that many particles (soil and walls) and `spacing` is ignored. Returns (sim, spacing)."""
    if target_particles is None:
        return sc.build(spacing, depth=depth), spacing
    spacing = spacing_for(target_particles, depth)
    while True:  # the estimate is within ~1 %; shrink the spacing until the count is reached
        sim = sc.build(spacing, depth=depth)
        if sim.size >= target_particles:
            return sim, spacing
        del sim  # before the next one: at this size each takes hundreds of MB
        spacing *= 0.995  # ~1.5 % more particles per pass


def main(argv=None):
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", required=True, help="run directory")
    ap.add_argument("--spacing", type=float, default=DEFAULT_SPACING, help="particle spacing [m]")
    ap.add_argument("--depth", type=float, default=DEFAULT_DEPTH,
                    help="width of the block in z [m] (rounded down to whole particles)")
    ap.add_argument("--target-particles", type=float,
                    help="choose the spacing that gives at least this many particles "
                         "(soil and walls); overrides --spacing")
    ap.add_argument("--end-time", type=float, default=1.0, help="simulated time [s]")
    run_control.add_arguments(ap)
    args = ap.parse_args(argv)
    sim, spacing = build(args.spacing, args.depth, args.target_particles)
    soil = int((sim.kind == rs.KIND_DYNAMIC).sum())
    if rs.is_root():  # under MPI only rank 0 prints
        print(f"3D soil collapse: {sim.size} particles ({soil} soil, {sim.size - soil} wall), "
              f"spacing {spacing * 1e3:.4g} mm, depth {int(args.depth / spacing) * spacing:.4g} m")
    return run_control.run(sim, args, metadata={"setup": "soil_collapse_3d",
                                                 "spacing_m": repr(spacing),
                                                 "depth_m": repr(args.depth)})


if __name__ == "__main__":
    sys.exit(main())
