#!/usr/bin/env python3
"""The seed's helical anchor in 3D (issue 47; ../shared/reference/
quadrelli_anchoring_small_bodies.txt, section VII.C): a screw anchor pushed along its axis
and turned about it by a prescribed torque, then left to rest and pulled back (the schedule
of examples/anchor_seed_2d.py: push 2 s with the torque from 0.1 s, rest 1 s, pull 1 s).

Anchor: a shaft of radius SHAFT_RADIUS (B / 2 = 2.5 cm) and LENGTH, a 60 deg cone tip, and a
helical flight out to FLIGHT_RADIUS (5 cm) of pitch PITCH over the lowest FLIGHT_LENGTH,
one lattice spacing thick along the axis; steel-tube density ROD_DENSITY of its particles
(mass and inertia from them). Free in all six degrees of freedom (the loads follow its axis:
body frame). Inclination `--inclination` from the vertical, turned about z.
Loads: `--push` F [N] along the axis, `--torque` T [N m] about it (right-handed about the
direction of travel: a right-handed flight screws in), ramped up over 0.1-0.2 s; both off
during the rest; `--pull` [N] back along the axis.
Bed: prepared_bed.build in 3D, BED_SIZE, the regolith of anchor_2d (1500 kg/m^3, `--cohesion`,
`--friction-angle`), `--gravity`; prepared once into `--bed`.

    /usr/bin/python3 examples/anchor_helical_3d.py --torque 0.5 --push 20 --pull 20 \\
        --bed runs/helical/bed --output runs/helical/t0.5 --spacing 0.02
"""
import argparse
import math
import sys

import numpy as np

import regosph as rs
from regosph import run_control

from regosph.examples import anchor_2d, anchor_seed_2d, prepared_bed

SHAFT_RADIUS, FLIGHT_RADIUS = 0.025, 0.05      # m
PITCH, FLIGHT_LENGTH, LENGTH = 0.05, 0.15, 0.4  # m
TIP_ANGLE = 60.0                                # deg, apex angle
BED_SIZE = (0.4, 0.45, 0.4)                     # m: x, depth (y), z
TORQUE_START, TORQUE_FULL = 0.1, 0.2            # s (seed: the torque from 0.1 s, gradually)


def anchor_points(spacing):
    """Lattice points of the vertical anchor, apex at the origin, axis along +y."""
    tip = SHAFT_RADIUS / math.tan(math.radians(TIP_ANGLE / 2))
    grid = rs.lattice_fill(rs.box((-FLIGHT_RADIUS, 0.0, -FLIGHT_RADIUS),
                                  (FLIGHT_RADIUS, LENGTH, FLIGHT_RADIUS)), spacing)
    r = np.hypot(grid[:, 0], grid[:, 2])
    y = grid[:, 1]
    shaft = r < SHAFT_RADIUS * np.minimum(1.0, y / tip)
    turn = np.arctan2(grid[:, 2], grid[:, 0]) / (2 * math.pi)     # [0, 1) of a turn
    along = np.mod(y - tip - PITCH * turn, PITCH)                  # from the flight's face
    flight = (r < FLIGHT_RADIUS) & (y > tip) & (y < tip + FLIGHT_LENGTH) & (along < spacing)
    return grid[shaft | flight]


def load_schedules(push, torque, pull):
    """(force, torque) schedules in the body frame, [(t [s], vector)], axis along +y of the
    anchor as built (top to apex is -y)."""
    rest, pull_start = anchor_seed_2d.PUSH_END, anchor_seed_2d.PUSH_END + anchor_seed_2d.REST
    s = anchor_seed_2d.SWITCH
    down = lambda f: (0.0, -f, 0.0)  # noqa: E731
    force = [(0.0, down(0.0)), (anchor_seed_2d.PUSH_RISE, down(push)), (rest - s, down(push)), (rest, down(0.0)), (pull_start, down(0.0)),
             (pull_start + s, down(-pull)), (anchor_seed_2d.END_TIME, down(-pull))]
    # A right-handed flight advancing along -y turns with the angular velocity along -y.
    spin = [(0.0, down(0.0)), (TORQUE_START, down(0.0)), (TORQUE_FULL, down(torque)),
            (rest - s, down(torque)), (rest, down(0.0))]
    return force, spin


def bed_setup(spacing, gravity, cohesion, friction_angle):
    return prepared_bed.build(BED_SIZE[1], BED_SIZE[0], gravity, spacing, dim=3,
                              breadth=BED_SIZE[2], **anchor_2d.regolith(cohesion, friction_angle))


def build(bed_dir, inclination=0.0, push=20.0, torque=0.0, pull=20.0, spacing=0.02,
          gravity=9.81, cohesion=1000.0, friction_angle=40.0):
    """The prepared bed with the anchor above its middle; returns (sim, metadata)."""
    if not (math.isfinite(inclination) and 0.0 <= inclination < 90.0):
        raise ValueError(f"inclination = {inclination!r} deg must lie in [0, 90)")
    for name, value in (("push", push), ("torque", torque), ("pull", pull)):
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} = {value!r} must be a number >= 0")
    sim = bed_setup(spacing, gravity, cohesion, friction_angle)
    rs.load_bed(sim, bed_dir)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    surface = round(BED_SIZE[1] / spacing) * spacing
    a = math.radians(inclination)
    turn = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0],
                     [0.0, 0.0, 1.0]])
    apex = np.array([BED_SIZE[0] / 2, surface + h + FLIGHT_RADIUS * math.sin(a),
                     BED_SIZE[2] / 2])
    points = anchor_points(spacing) @ turn.T + apex
    # The body frame is the frame the anchor is built in (its axes at t = 0): the loads of the
    # vertical anchor turned with it.
    force, spin = ([(t, tuple(float(x) for x in turn @ v)) for t, v in schedule]
                   for schedule in load_schedules(push, torque, pull))
    steel = sim.add_material(rs.Rigid("anchor", density=anchor_2d.ROD_DENSITY))
    sim.add_body("anchor", points, material=steel, motion="rigid", spacing=spacing,
                 smoothing_length=h, force=force, torque=spin, force_frame="body",
                 torque_frame="body")
    sim.set_bounds((-1.0, -1.0, -1.0), (BED_SIZE[0] + 1.0, 10.0, BED_SIZE[2] + 1.0))
    metadata = {"setup": "anchor_helical_3d", "inclination_deg": repr(inclination),
                "push_N": repr(push), "torque_N_m": repr(torque), "pull_N": repr(pull),
                "spacing_m": repr(spacing), "gravity_m_s2": repr(gravity),
                "cohesion_Pa": repr(cohesion), "friction_angle_deg": repr(friction_angle),
                "surface_m": repr(surface),
                "anchor_mass_kg": repr(anchor_2d.ROD_DENSITY * len(points) * spacing ** 3),
                "apex_from_centre_m": repr(list(apex - points.mean(axis=0))),
                "rest_s": repr(anchor_seed_2d.PUSH_END),
                "pull_start_s": repr(anchor_seed_2d.PUSH_END + anchor_seed_2d.REST)}
    return sim, metadata


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    anchor_seed_2d.add_arguments(ap, push=(20.0, "[N] along the axis"),
                                 pull=(20.0, "[N] back along the axis"))
    ap.add_argument("--torque", type=float, default=0.0, help="[N m] about the axis")
    args = ap.parse_args()

    def make():
        prepared_bed.ensure(args.bed, bed_setup, args.spacing, args.gravity, args.cohesion,
                            args.friction_angle)
        return build(args.bed, args.inclination, args.push, args.torque, args.pull,
                     args.spacing, args.gravity, args.cohesion, args.friction_angle)
    return run_control.build_and_run(make, args, diagnostics_every=5)


if __name__ == "__main__":
    sys.exit(main())
