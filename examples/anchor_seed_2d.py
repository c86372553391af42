#!/usr/bin/env python3
"""The seed's anchoring experiment in plane strain (issue 47;
../shared/reference/quadrelli_anchoring_small_bodies.txt, section VII.C): an anchor at
`--inclination` from the vertical pushed into a regolith bed by a force along its axis for
PUSH_END (2 s), left to rest for REST (1 s), then pulled back along its axis for PULL (1 s).

Anchor: the wedge-tipped plate of examples/anchor_2d.py (B = 5 cm, 0.5 m, its mass per
metre), its attitude held (rz locked: the seed constrains the anchor's motion and applies
forces), x and y free. Its apex starts one support radius h above the surface (plus the
half-width the inclined shoulder reaches below the axis), at APEX_X.
Loads (world frame, N/m, along the axis d = (sin a, -cos a)): `--push` x the thrust of
anchor_2d.design_loads for 0 <= t < PUSH_END (rising over PUSH_RISE), none while resting, `--pull` x the uplift
capacity of anchor_2d.design_loads (Meyerhof & Adams) along -d from PUSH_END + REST on; the
push's end and the pull's start take SWITCH (0.02 s: the seed saw instabilities from an
instantaneous pull).
Bed: prepared_bed.build with the regolith of anchor_2d (bulk density 1500 kg/m^3, `--cohesion`,
`--friction-angle`), BED_WIDTH (1.0 m: long enough for shallow anchors, as in the seed) x
anchor_2d.BED_DEPTH, under `--gravity`; prepared once into `--bed`.
The seed's torque (helical anchor) has no plane-strain counterpart: it turns the anchor about
its own axis, which lies in the plane.

    /usr/bin/python3 examples/anchor_seed_2d.py --inclination 30 --bed runs/anchor_seed/bed \\
        --output runs/anchor_seed/a30
"""
import argparse
import math
import sys

import numpy as np

import regosph as rs
from regosph import run_control

from regosph.examples import anchor_2d, prepared_bed

PUSH_END, REST, PULL = 2.0, 1.0, 1.0       # s (seed: push 2 s, rest 1 s, pull 1 s)
SWITCH = 0.02                              # s a load takes to switch off, or the pull on
PUSH_RISE = 0.1                            # s the push takes to rise: the anchor reaches the
                                           # bed gradually instead of striking it at speed
BED_WIDTH = 1.0                            # m
APEX_X = 0.35                              # m: where the apex starts
END_TIME = PUSH_END + REST + PULL          # s


def axis(inclination):
    """The unit vector along the anchor, top to apex, `inclination` deg from the vertical."""
    a = math.radians(inclination)
    return np.array([math.sin(a), -math.cos(a)])


def force_schedule(push, pull, inclination):
    """[(t [s], (F_x, F_y) [N/m])]: push along the axis, rest, pull back along it."""
    d = axis(inclination)
    rest_start, pull_start = PUSH_END, PUSH_END + REST
    knots = [(0.0, 0.0), (PUSH_RISE, push), (rest_start - SWITCH, push), (rest_start, 0.0), (pull_start, 0.0),
             (pull_start + SWITCH, -pull), (END_TIME, -pull)]
    return [(t, tuple(float(v) for v in f * d)) for t, f in knots]


def bed_setup(spacing, gravity, cohesion, friction_angle):
    return prepared_bed.build(anchor_2d.BED_DEPTH, BED_WIDTH, gravity, spacing,
                              **anchor_2d.regolith(cohesion, friction_angle))


def ensure_bed(bed_dir, spacing, gravity, cohesion, friction_angle):
    return prepared_bed.ensure(bed_dir, bed_setup, spacing, gravity, cohesion, friction_angle)


def build(bed_dir, inclination=0.0, push=1.0, pull=1.0, spacing=0.02, gravity=9.81,
          cohesion=1000.0, friction_angle=40.0):
    """The prepared bed with the anchor above it; returns (sim, metadata). push, pull:
    multiples of anchor_2d.design_loads' thrust and uplift capacity."""
    if not (math.isfinite(inclination) and 0.0 <= inclination < 90.0):
        raise ValueError(f"inclination = {inclination!r} deg must lie in [0, 90): a horizontal "
                         "anchor one support radius above the surface never reaches the bed")
    for name, value in (("push", push), ("pull", pull)):
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} = {value!r} must be a number >= 0")
    thrust, pull_rate = anchor_2d.design_loads(cohesion, friction_angle, gravity)
    uplift = pull_rate * anchor_2d.PULL_TIME
    sim = bed_setup(spacing, gravity, cohesion, friction_angle)
    rs.load_bed(sim, bed_dir)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    surface = round(anchor_2d.BED_DEPTH / spacing) * spacing
    a = math.radians(inclination)
    apex = np.array([APEX_X, surface + h + anchor_2d.ROD_WIDTH / 2 * math.sin(a)])
    turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    vertical = np.asarray(anchor_2d.rod_points(spacing, 0.0))[:, :2]
    vertical[:, 0] -= anchor_2d.BED_WIDTH / 2          # apex at the origin
    points = vertical @ turn.T + apex
    steel = sim.add_material(rs.Rigid("anchor", density=anchor_2d.ROD_DENSITY))
    sim.add_body("anchor", points, material=steel, motion="rigid", spacing=spacing,
                 smoothing_length=h, mass=anchor_2d.rod_mass(), fixed_dofs=["rz"],
                 force=force_schedule(push * thrust, pull * uplift, inclination))
    # An anchor may skim off or be pulled out fast, and soil flung over the walls falls on
    # below the floor.
    sim.set_bounds((-50.0, -100.0), (BED_WIDTH + 50.0, 100.0))
    centre = points.mean(axis=0)
    metadata = {"setup": "anchor_seed_2d", "inclination_deg": repr(inclination),
                "push_factor": repr(push), "pull_factor": repr(pull),
                "push_N_per_m": repr(push * thrust), "pull_N_per_m": repr(pull * uplift),
                "spacing_m": repr(spacing), "gravity_m_s2": repr(gravity),
                "cohesion_Pa": repr(cohesion), "friction_angle_deg": repr(friction_angle),
                "surface_m": repr(surface), "apex_from_centre_m": repr(list(apex - centre)),
                "rod_mass_kg_per_m": repr(anchor_2d.rod_mass()),
                "rest_s": repr(PUSH_END), "pull_start_s": repr(PUSH_END + REST)}
    return sim, metadata


def add_arguments(ap, push, pull, end_time=END_TIME):
    """The options of this script and anchor_helical_3d: --inclination [deg], --push and
    --pull (each a (default, help)), the bed's soil, --bed and the run control's."""
    ap.add_argument("--inclination", type=float, default=0.0, help="[deg] from the vertical")
    ap.add_argument("--push", type=float, default=push[0], help=push[1])
    ap.add_argument("--pull", type=float, default=pull[0], help=pull[1])
    prepared_bed.add_soil_arguments(ap, spacing=0.02, cohesion=1000.0, friction_angle=40.0)
    ap.add_argument("--bed", required=True, help="prepared bed directory (made if missing)")
    run_control.add_arguments(ap, end_time=end_time)


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(ap, push=(1.0, "x the design thrust"), pull=(1.0, "x the uplift capacity"))
    args = ap.parse_args()

    def make():
        ensure_bed(args.bed, args.spacing, args.gravity, args.cohesion, args.friction_angle)
        return build(args.bed, args.inclination, args.push, args.pull, args.spacing,
                     args.gravity, args.cohesion, args.friction_angle)
    return run_control.build_and_run(make, args, diagnostics_every=5)


if __name__ == "__main__":
    sys.exit(main())
