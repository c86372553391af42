#!/usr/bin/env python3
"""One case of the seed's MASCOT first-bounce matrix (issue 47): the whole 3D lander, at any
attitude and spin, on a regolith bed in a cylinder (../shared/reference/
mascot_first_bounce_report.txt, section B.2; validation/lander/matrix.py runs the matrix).

Lander: the box of examples/lander_2d.py (10 kg, 0.29 x 0.195 x 0.275 m along x, y (up), z;
principal inertia 0.081, 0.121, 0.100 kg m^2 about those axes), no symmetry plane.
Attitudes (the seed's four): "flat" (lowest face level), "edge_parallel" (turned 45 deg about
x: the edge along the horizontal velocity lowest), "edge_perpendicular" (turned 45 deg about
z: an edge across the velocity lowest), "corner" (45 deg about z, then atan(1/sqrt 2) = 35.26
deg about x: a corner lowest). Spin: `--spin none|x|y|z`, SPIN_RATE about that principal axis
of the turned box. Impact: `--speed` at `--incidence` deg from the vertical, along +x; the
lowest corner starts one support radius h above the surface (out of the regolith's reach).
Bed: `--depth` of regolith in a cylinder of CYLINDER_DIAMETER (1.5 m, five times the
lander's largest side), axis along y, no-slip walls one support radius thick; bulk density
1280 kg/m^3 (Ryugu's bulk density, as in the seed); the moduli of prepared_bed.REGOLITH
(Schaefer et al. 2017); `--soil` gravel (friction angle 42 deg, prepared_bed.REGOLITH) or
moderate (30 deg: the seed's less frictional material, whose friction the seed gives only
as grain coefficients). Ryugu's gravity (post.RYUGU_GRAVITY). The bed is prepared once per
soil, depth and spacing into `--beds-dir` (rs.prepare_bed) and reused.

    /usr/bin/python3 examples/matrix_lander.py --soil gravel --depth 0.3 --incidence 30 \\
        --attitude corner --spin y --speed 0.19 --spacing 0.02 --beds-dir runs/matrix/beds \\
        --output runs/matrix/case --end-time 2.0
"""
import argparse
import math
import os
import sys

import numpy as np

import regosph as rs
from regosph import post, run_control

from regosph.examples import lander_2d, prepared_bed

BULK_DENSITY = 1280.0                    # kg/m^3 (seed, section A.5)
CYLINDER_DIAMETER = 1.5                  # m (seed, section A.1)
SOILS = {"gravel": {}, "moderate": {"friction_angle": 30.0}}
ATTITUDES = ("flat", "edge_parallel", "edge_perpendicular", "corner")
SPIN_AXES = ("none", "x", "y", "z")      # principal axes of the box (its sides x, y, z)
SPIN_RATE = 0.1                          # rad/s (seed, section B.2)
INERTIA = (0.081, 0.121, 0.100)          # kg m^2 about the box's x, y, z (lander_3d's order)
SIZE = (lander_2d.LANDER_SIZE[0], lander_2d.LANDER_SIZE[2], lander_2d.LANDER_SIZE[1])  # x, y, z
START_X = -0.2                           # m: the lander's centre at the start (slide to +x)
BOUNCE_RISE = 0.03                       # m: the seed's bounce gate, 3 cm above the centre's
                                         # height at first contact (section C)


def _turn(axis, degrees):
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    i, j = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}[axis]
    r = np.eye(3)
    r[i, i], r[i, j], r[j, i], r[j, j] = c, -s, s, c
    return r


def attitude_rotation(attitude):
    """The rotation matrix from the box's axes to the world's for one of ATTITUDES."""
    if attitude not in ATTITUDES:
        raise ValueError(f"attitude = {attitude!r}: one of {ATTITUDES}")
    return {"flat": np.eye(3), "edge_parallel": _turn("x", 45.0),
            "edge_perpendicular": _turn("z", 45.0),
            "corner": _turn("x", math.degrees(math.atan(1 / math.sqrt(2)))) @ _turn("z", 45.0)
            }[attitude]


def lowest_offset(rotation):
    """Height [m] of the box's centre above its lowest corner when turned by `rotation`."""
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    return float(-(corners * np.array(SIZE) / 2 @ rotation.T)[:, 1].min())


def surface_height(depth, spacing):
    return round(depth / spacing) * spacing


def bed_setup(spacing, depth, soil):
    """The cylinder with its bed as a Simulation, not yet run (y up, axis through x = z = 0)."""
    if soil not in SOILS:
        raise ValueError(f"soil = {soil!r}: one of {sorted(SOILS)}")
    for name, value in (("spacing", spacing), ("depth", depth)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} = {value!r} must be a positive number")
    sim = rs.Simulation(dim=3)
    sim.physics.gravity = (0.0, -post.RYUGU_GRAVITY, 0.0)
    soil_law = rs.DruckerPrager("regolith", **{**prepared_bed.REGOLITH, **SOILS[soil],
                                                "density": BULK_DENSITY})
    material = sim.add_material(soil_law)
    wall = sim.add_material(rs.Rigid("wall", density=BULK_DENSITY))
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    t = math.ceil(h / spacing) * spacing                 # wall thickness: at least h
    radius, top = CYLINDER_DIAMETER / 2, surface_height(depth, spacing)
    rim = top + prepared_bed.WALL_FREEBOARD * spacing
    grid = rs.lattice_fill(rs.box((-radius - t, -t, -radius - t), (radius + t, rim, radius + t)),
                           spacing)
    r = np.hypot(grid[:, 0], grid[:, 2])
    inside = (r < radius) & (grid[:, 1] > 0.0)
    sim.add_body("bed", grid[inside & (grid[:, 1] < top)], material=material, motion="dynamic",
                 spacing=spacing, smoothing_length=h)
    sim.add_body("cylinder", grid[~inside & (r < radius + t)], material=wall, motion="fixed",
                 spacing=spacing, smoothing_length=h, wall_friction="no-slip")
    return sim


def bed_dir(beds_dir, soil, depth, spacing):
    return os.path.join(beds_dir, f"bed_{soil}_d{depth:g}_s{spacing:g}")


def ensure_bed(beds_dir, soil, depth, spacing):
    """The prepared bed's directory (prepared now unless it holds one)."""
    return prepared_bed.ensure(bed_dir(beds_dir, soil, depth, spacing), bed_setup, spacing,
                               depth, soil)


def start_state(attitude, spin, speed, incidence, depth, spacing):
    """(rotation, centre [m], velocity [m/s], angular velocity [rad/s]) at the start."""
    if spin not in SPIN_AXES:
        raise ValueError(f"spin = {spin!r}: one of {SPIN_AXES}")
    if not (math.isfinite(incidence) and 0.0 <= incidence < 90.0):
        raise ValueError(f"incidence = {incidence!r} deg must lie in [0, 90)")
    if not (math.isfinite(speed) and speed > 0):
        raise ValueError(f"speed = {speed!r} m/s must be positive")
    rotation = attitude_rotation(attitude)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    centre = np.array([START_X, surface_height(depth, spacing) + h + lowest_offset(rotation),
                       0.0])
    a = math.radians(incidence)
    velocity = (speed * math.sin(a), -speed * math.cos(a), 0.0)
    omega = np.zeros(3) if spin == "none" else SPIN_RATE * rotation[:, "xyz".index(spin)]
    return rotation, centre, velocity, omega


def build(bed, soil, depth, spacing, attitude, spin, speed, incidence):
    """The prepared bed with the lander above it; returns (sim, metadata)."""
    rotation, centre, velocity, omega = start_state(attitude, spin, speed, incidence, depth,
                                                    spacing)
    sim = bed_setup(spacing, depth, soil)
    rs.load_bed(sim, bed)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    half = np.array(SIZE) / 2
    points = rs.lattice_fill(rs.box(tuple(-half), tuple(half)), spacing) @ rotation.T + centre
    metal = sim.add_material(rs.Rigid("lander", density=lander_2d.LANDER_MASS / math.prod(SIZE)))
    inertia = rotation @ np.diag(INERTIA) @ rotation.T   # world frame at the start
    sim.add_body("lander", points, material=metal, motion="rigid", spacing=spacing,
                 smoothing_length=h, mass=lander_2d.LANDER_MASS, inertia=inertia,
                 centre=tuple(centre), velocity=velocity, angular_velocity=tuple(omega))
    sim.set_bounds((-50.0, -1.0, -50.0), (50.0, 100.0, 50.0))  # ejecta fly far on Ryugu
    metadata = {"setup": "matrix_lander", "soil": soil, "bed_depth_m": repr(depth),
                "spacing_m": repr(spacing), "attitude": attitude, "spin_axis": spin,
                "speed_m_s": repr(speed), "incidence_deg": repr(incidence),
                "surface_m": repr(surface_height(depth, spacing)),
                "lander_mass_kg": repr(lander_2d.LANDER_MASS),
                "lander_inertia_kg_m2": repr(list(INERTIA)),
                "bounce_gate_m": repr(lowest_offset(rotation) + BOUNCE_RISE),
                "model_copies": "1"}
    return sim, metadata


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--soil", choices=sorted(SOILS), default="gravel")
    ap.add_argument("--depth", type=float, default=0.3, help="[m] of regolith")
    ap.add_argument("--incidence", type=float, default=0.0, help="[deg] from the vertical")
    ap.add_argument("--attitude", choices=ATTITUDES, default="flat")
    ap.add_argument("--spin", choices=SPIN_AXES, default="none")
    ap.add_argument("--speed", type=float, default=lander_2d.IMPACT_SPEED, help="[m/s]")
    ap.add_argument("--spacing", type=float, default=0.02, help="[m]")
    ap.add_argument("--beds-dir", required=True, help="prepared beds (made if missing)")
    run_control.add_arguments(ap, end_time=2.0)
    args = ap.parse_args()

    def make():
        bed = ensure_bed(args.beds_dir, args.soil, args.depth, args.spacing)
        return build(bed, args.soil, args.depth, args.spacing, args.attitude, args.spin,
                     args.speed, args.incidence)
    return run_control.build_and_run(make, args, diagnostics_every=5)


if __name__ == "__main__":
    sys.exit(main())
