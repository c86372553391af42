#!/usr/bin/env python3
"""An anchor driven into a prepared regolith bed, then pulled out, plane strain (issue 13,
item 5).

Anchor: a cone-tipped rod becomes, in plane strain, a plate ROD_WIDTH B = 5 cm wide with a
wedge tip of 60 deg apex (the angle of a standard penetrometer cone), ROD_LENGTH long, a
thin-walled steel tube (2000 kg/m^3 of its volume; its mass per metre from the polygon's
area), perfectly rough (no-slip). Only its vertical motion is free (x and the rotation are
locked: a guided rod). Its tip starts one support radius h above the surface, out of the
regolith's reach, and falls onto it under its weight as the thrust begins to rise.
Bed: examples/prepared_bed.py, BED_WIDTH x BED_DEPTH, bulk density 1500 kg/m^3, the moduli
of the other studies (Schaefer et al. 2017), `--cohesion` c and `--friction-angle` phi (the
same Drucker-Prager law), under `--gravity` g; prepared once into `--bed`.

Loading, one applied-force schedule (world frame, N/m, + up):
1. insertion, `--mode thrust`: a thrust F_T rises linearly over RISE_TIME (slowly, so that
   the rod follows the soil's resistance instead of overshooting on its momentum) and is
   then held constant until HOLD_END; `--mode velocity`: no thrust, the rod enters at
   `--speed` (default 1 m/s);
2. the thrust is released over RELEASE_TIME (the rod is then held by the soil alone);
3. the pull rises from 0 at `--pull-rate` [N/m per s] until the rod is extracted (its tip
   has risen by its embedment) or `--end-time`.
design_loads() gives the study's thrust (Terzaghi's capacity at a design embedment of B,
post.anchor) and pull rate (Meyerhof & Adams' uplift capacity reached after PULL_TIME).

    /usr/bin/python3 examples/anchor_2d.py --cohesion 1000 --friction-angle 40 \\
        --bed runs/anchor/bed --output runs/anchor/c1000 --end-time 4.0

validation/anchor/study.py runs the cases and compares them with the formulas.
"""
import argparse
import math
import sys

import numpy as np

import regosph as rs
from regosph import post, run_control

from regosph.examples import prepared_bed

ROD_WIDTH = 0.05                 # m, B
TIP_ANGLE = 60.0                 # deg, apex angle of the wedge
ROD_LENGTH = 0.5                 # m, apex to top
ROD_DENSITY = 2000.0             # kg/m^3 of the rod's volume: a thin-walled steel tube
BED_WIDTH, BED_DEPTH = 0.5, 0.45  # m: 10 B wide, 9 B deep
BULK_DENSITY = 1500.0            # kg/m^3 (issue 13)
DESIGN_EMBEDMENT = ROD_WIDTH     # m: depth of the shoulder (full width) the thrust is sized for
MAX_BEARING_PRESSURE = 1.0e6     # Pa: cap of F_T / B, 0.3 K (linear moduli beyond it are
                                 # compressed by > 30 %, outside the small-strain model)
ENTRY_SPEED = 1.0                # m/s, --mode velocity
RISE_TIME, HOLD_END, RELEASE_TIME = 0.5, 2.0, 0.1   # s
PULL_TIME = 0.5                  # s to reach Meyerhof & Adams' capacity (design_loads)


def tip_length():
    """Height [m] of the wedge, apex to the full-width shoulder."""
    return ROD_WIDTH / 2 / math.tan(math.radians(TIP_ANGLE / 2))


def rod_mass():
    """Mass per metre [kg/m] of the wedge-tipped plate."""
    return ROD_DENSITY * ROD_WIDTH * (ROD_LENGTH - tip_length() / 2)


def regolith(cohesion, friction_angle):
    return dict(density=BULK_DENSITY, cohesion=cohesion, friction_angle=friction_angle)


def design_loads(cohesion, friction_angle, gravity, embedment=DESIGN_EMBEDMENT,
                 pull_time=PULL_TIME):
    """(thrust F_T [N/m], pull rate [N/m per s]) the study applies: F_T brings the resistance
    Terzaghi and Meyerhof & Adams predict for the shoulder `embedment` deep, B q + 2 c D +
    gamma D^2 K_u tan phi, less the rod's weight, capped at MAX_BEARING_PRESSURE B; the pull
    reaches their uplift capacity there after pull_time."""
    gamma = BULK_DENSITY * gravity
    weight = rod_mass() * gravity
    resistance = ROD_WIDTH * post.bearing_capacity(cohesion, friction_angle, gamma, ROD_WIDTH,
                                                   embedment) + \
        post.shaft_resistance(cohesion, friction_angle, gamma, embedment)
    thrust = max(min(resistance, MAX_BEARING_PRESSURE * ROD_WIDTH) - weight, 0.0)
    uplift = post.uplift_capacity(cohesion, friction_angle, gamma, embedment, weight)
    return thrust, uplift / pull_time


def force_schedule(thrust, pull_rate, end_time):
    """The applied force [(t [s], (0, F_y [N/m]))]: thrust, hold, release, pull ramp."""
    release_end = HOLD_END + RELEASE_TIME
    last = max(end_time, release_end + 1.0)  # the ramp's last knot; held after it
    knots = [(0.0, 0.0), (RISE_TIME, -thrust), (HOLD_END, -thrust), (release_end, 0.0),
             (last, pull_rate * (last - release_end))]
    return [(t, (0.0, f)) for t, f in knots]


def bed_setup(spacing, gravity, cohesion, friction_angle):
    return prepared_bed.build(BED_DEPTH, BED_WIDTH, gravity, spacing,
                              **regolith(cohesion, friction_angle))


def ensure_bed(bed_dir, spacing, gravity, cohesion, friction_angle):
    """Prepare the bed into bed_dir unless it holds one (prepared_bed.ensure)."""
    return prepared_bed.ensure(bed_dir, bed_setup, spacing, gravity, cohesion, friction_angle)


def rod_points(spacing, apex_height):
    """Lattice points of the rod whose apex is at (BED_WIDTH / 2, apex_height)."""
    x0, b, tip = BED_WIDTH / 2, ROD_WIDTH / 2, tip_length()
    shape = rs.polygon([(x0, apex_height), (x0 + b, apex_height + tip),
                        (x0 + b, apex_height + ROD_LENGTH), (x0 - b, apex_height + ROD_LENGTH),
                        (x0 - b, apex_height + tip)])
    return rs.lattice_fill(shape, spacing)


def check_options(mode, thrust, pull_rate, speed, end_time):
    """ValueError naming the first bad option (thrust and pull_rate may be None: defaults)."""
    if mode not in ("thrust", "velocity"):
        raise ValueError(f"mode = {mode!r} must be 'thrust' or 'velocity'")
    for name, value in (("thrust", thrust), ("pull_rate", pull_rate), ("speed", speed),
                        ("end_time", end_time)):
        if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)
                                      and value >= 0):
            raise ValueError(f"{name} = {value!r} must be a number >= 0")
    if mode == "thrust" and thrust is not None and thrust <= 0:
        raise ValueError("thrust must be > 0 in mode 'thrust'")


def build(bed_dir, spacing=0.01, gravity=9.81, cohesion=1000.0, friction_angle=40.0,
          mode="thrust", thrust=None, pull_rate=None, speed=ENTRY_SPEED, end_time=4.0):
    """The prepared bed of bed_dir with the rod above its middle. thrust [N/m] and pull_rate
    [N/m per s] default to design_loads(); returns (sim, metadata)."""
    default_thrust, default_rate = design_loads(cohesion, friction_angle, gravity)
    thrust = default_thrust if thrust is None else thrust
    pull_rate = default_rate if pull_rate is None else pull_rate
    check_options(mode, thrust, pull_rate, speed, end_time)
    if mode == "velocity":
        thrust = 0.0
    sim = bed_setup(spacing, gravity, cohesion, friction_angle)
    rs.load_bed(sim, bed_dir)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    surface = round(BED_DEPTH / spacing) * spacing
    points = rod_points(spacing, surface + h)
    steel = sim.add_material(rs.Rigid("anchor", density=ROD_DENSITY))
    sim.add_body("anchor", points, material=steel, motion="rigid", spacing=spacing,
                 smoothing_length=h, mass=rod_mass(), fixed_dofs=["x", "rz"],
                 velocity=(0.0, -speed if mode == "velocity" else 0.0),
                 force=force_schedule(thrust, pull_rate, end_time))
    sim.set_bounds((-1.0, -1.0), (BED_WIDTH + 1.0, 10.0))
    centre = float(np.asarray(points)[:, 1].mean())
    metadata = {"setup": "anchor_2d", "mode": mode, "spacing_m": repr(spacing),
                "gravity_m_s2": repr(gravity), "cohesion_Pa": repr(cohesion),
                "friction_angle_deg": repr(friction_angle),
                "bulk_density_kg_m3": repr(BULK_DENSITY), "surface_m": repr(surface),
                "rod_width_m": repr(ROD_WIDTH), "tip_length_m": repr(tip_length()),
                "apex_below_centre_m": repr(centre - (surface + h)),
                "rod_mass_kg_per_m": repr(rod_mass()), "thrust_N_per_m": repr(thrust),
                "entry_speed_m_s": repr(speed if mode == "velocity" else 0.0),
                "pull_rate_N_per_m_s": repr(pull_rate),
                "release_s": repr(HOLD_END), "pull_start_s": repr(HOLD_END + RELEASE_TIME)}
    return sim, metadata


def apex_height(sim, metadata):
    """Height [m] of the rod's apex now."""
    return sim.bodies_state()["anchor"]["centre"][1] - float(metadata["apex_below_centre_m"])


def run(sim, metadata, output_dir, end_time, chunk=0.1, overwrite=True):
    """Run in chunks of `chunk` [s] of simulated time until end_time, or until the rod is
    extracted (its apex above the surface after the pull started) or has gone through the bed
    (its apex within one support radius of the floor, where the box's walls would act on it);
    returns the summaries of the chunks."""
    summaries = []
    floor = prepared_bed.SMOOTHING_FACTOR * float(metadata["spacing_m"])  # h above y = 0
    while sim.time < end_time - 1e-12:
        summaries.append(sim.run(min(end_time, sim.time + chunk), output_dir=output_dir,
                                 snapshot_interval=0.1, diagnostics_every=5,
                                 overwrite=overwrite and not summaries, progress_interval=0.0,
                                 metadata=metadata))
        apex = apex_height(sim, metadata)
        if apex < floor or (sim.time > float(metadata["pull_start_s"])
                            and apex > float(metadata["surface_m"])):
            break
    return summaries


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=("thrust", "velocity"), default="thrust")
    ap.add_argument("--cohesion", type=float, default=1000.0, help="[Pa]")
    ap.add_argument("--friction-angle", type=float, default=40.0, help="[deg]")
    ap.add_argument("--gravity", type=float, default=9.81, help="[m/s^2]")
    ap.add_argument("--spacing", type=float, default=0.01, help="[m] (B / 5)")
    ap.add_argument("--thrust", type=float, default=None, help="[N/m] (default: design_loads)")
    ap.add_argument("--pull-rate", type=float, default=None,
                    help="[N/m per s] (default: design_loads)")
    ap.add_argument("--speed", type=float, default=ENTRY_SPEED, help="[m/s], --mode velocity")
    ap.add_argument("--bed", required=True, help="prepared bed directory (made if missing)")
    run_control.add_arguments(ap, end_time=4.0)
    args = ap.parse_args()
    try:
        check_options(args.mode, args.thrust, args.pull_rate, args.speed, args.end_time)
        ensure_bed(args.bed, args.spacing, args.gravity, args.cohesion, args.friction_angle)
        sim, metadata = build(args.bed, args.spacing, args.gravity, args.cohesion,
                              args.friction_angle, args.mode, args.thrust, args.pull_rate,
                              args.speed, args.end_time)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return run_control.EXIT_REFUSED
    return run_control.run(sim, args, metadata, diagnostics_every=5)


if __name__ == "__main__":
    sys.exit(main())
