#!/usr/bin/env python3
"""A MASCOT-like lander's first bounce on a prepared regolith bed, plane strain (issue 13,
item 4: the quick case; the 3D runs are the study).

Lander: a rigid box of 10 kg, 0.29 x 0.275 x 0.195 m, principal inertia diag(0.081, 0.100,
0.121) kg m^2 about the axes along those sides. Plane strain takes its 0.29 x 0.195 m
cross-section (x across, y up) and spreads it over its 0.275 m depth: mass 10 / 0.275 =
36.4 kg per metre of depth and inertia 0.100 / 0.275 = 0.364 kg m^2 per metre about the
out-of-plane axis, so that the bearing pressure (weight per contact area) and the ratio of
inertia to mass are those of the 3D lander.
Gravity: Ryugu's 1.5e-4 m/s^2 (post.RYUGU_GRAVITY: GM = 30.0 m^3/s^2, R = 448 m, Watanabe et
al. 2019, Science 364, 268). Impact: 0.19 m/s at `--incidence` degrees from the vertical,
the box level, its lowest face starting one support radius h above the surface (out of
reach of the regolith, which acts across h - spacing).
Bed: examples/prepared_bed.py, `--bed-depth` 0.3 m (or 0.15 m), bulk density 1300 kg/m^3;
prepared once into `--bed` (reused when it holds a matching bed).

    /usr/bin/python3 examples/lander_2d.py --incidence 30 --bed runs/lander/bed \\
        --output runs/lander/i30 --end-time 2.0

validation/lander/study.py runs the three incidences and measures the bounces.
"""
import argparse
import math
import sys

import regosph as rs
from regosph import post, run_control

from regosph.examples import prepared_bed

LANDER_MASS = 10.0                        # kg
LANDER_SIZE = (0.29, 0.275, 0.195)        # m: across, depth (out of plane in 2D), height
LANDER_INERTIA = (0.081, 0.100, 0.121)    # kg m^2 about the axes along those sides
PLANE_DEPTH = LANDER_SIZE[1]              # m: the 2D lander is 1 m of a prism this deep
MASS_PER_DEPTH = LANDER_MASS / PLANE_DEPTH           # kg/m
INERTIA_PER_DEPTH = LANDER_INERTIA[1] / PLANE_DEPTH  # kg m^2/m, about the out-of-plane axis
IMPACT_SPEED = 0.19                       # m/s
GRAVITY = post.RYUGU_GRAVITY              # m/s^2
BED_WIDTH = 1.2                           # m
LANDER_X = 0.45                           # m: centre at the start, the slide goes to +x


def bed_setup(spacing, bed_depth, **regolith):
    """The bed and its box (prepared_bed.build) for this study."""
    return prepared_bed.build(bed_depth, BED_WIDTH, GRAVITY, spacing, **regolith)


def loaded_bed(bed_setup, bed_dir, incidence, spacing, bed_depth, **regolith):
    """The prepared bed of bed_dir in the Simulation bed_setup builds, and where the lander
    starts: (sim, h [m], height of its lowest face [m], its material, its velocity (vx, vy)
    [m/s] at `incidence` degrees from the vertical). Shared with lander_3d."""
    if not (math.isfinite(incidence) and 0.0 <= incidence < 90.0):
        raise ValueError(f"incidence = {incidence!r} deg must lie in [0, 90)")
    sim = bed_setup(spacing, bed_depth, **regolith)
    rs.load_bed(sim, bed_dir)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    bottom = round(bed_depth / spacing) * spacing + h  # the regolith acts within h - spacing
    metal = sim.add_material(rs.Rigid("lander", density=LANDER_MASS / math.prod(LANDER_SIZE)))
    a = math.radians(incidence)
    return sim, h, bottom, metal, (IMPACT_SPEED * math.sin(a), -IMPACT_SPEED * math.cos(a))


def build(bed_dir, incidence=0.0, spacing=0.01, bed_depth=0.3, **regolith):
    """The prepared bed of bed_dir with the lander above it, moving at IMPACT_SPEED at
    `incidence` degrees from the vertical."""
    sim, h, bottom, metal, velocity = loaded_bed(bed_setup, bed_dir, incidence, spacing,
                                                 bed_depth, **regolith)
    width, height = LANDER_SIZE[0], LANDER_SIZE[2]
    box = rs.rectangle((LANDER_X - width / 2, bottom), (LANDER_X + width / 2, bottom + height))
    sim.add_body("lander", rs.lattice_fill(box, spacing), material=metal, motion="rigid",
                 spacing=spacing, smoothing_length=h, mass=MASS_PER_DEPTH,
                 inertia=INERTIA_PER_DEPTH, velocity=velocity)
    sim.set_bounds((-50.0, -1.0), (50.0, 100.0))  # ejecta fly far at 1.5e-4 m/s^2
    return sim


def ensure_bed(bed_dir, spacing, bed_depth, **regolith):
    """Prepare the bed into bed_dir unless it holds one (prepared_bed.ensure)."""
    return prepared_bed.ensure(bed_dir, bed_setup, spacing, bed_depth, **regolith)


def case_metadata(setup, incidence, spacing, bed_depth, **regolith):
    """The metadata of a lander run that lander_2d and lander_3d share."""
    soil = {**prepared_bed.REGOLITH, **regolith}
    return {"setup": setup, "incidence_deg": str(incidence), "spacing_m": str(spacing),
            "bed_depth_m": str(bed_depth), "cohesion_Pa": repr(soil["cohesion"]),
            "friction_angle_deg": repr(soil["friction_angle"]),
            "law": soil.get("law", "DruckerPrager"),
            "surface_m": repr(round(bed_depth / spacing) * spacing)}


def metadata(incidence, spacing, bed_depth, **regolith):
    return {**case_metadata("lander_2d", incidence, spacing, bed_depth, **regolith),
            "lander_mass_kg_per_m": repr(MASS_PER_DEPTH),
            "lander_inertia_kg_m2_per_m": repr(INERTIA_PER_DEPTH)}


def main(setup=None):
    """The command line of this setup, or of `setup` (a module with the same ensure_bed,
    build and metadata: lander_3d)."""
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    setup = setup or sys.modules[__name__]
    ap = argparse.ArgumentParser(description=setup.__doc__.split("\n")[0])
    ap.add_argument("--incidence", type=float, default=0.0, help="[deg] from the vertical")
    ap.add_argument("--spacing", type=float, default=0.01, help="[m]")
    ap.add_argument("--bed-depth", type=float, default=0.3, help="[m]")
    ap.add_argument("--cohesion", type=float, default=prepared_bed.REGOLITH["cohesion"])
    ap.add_argument("--friction-angle", type=float,
                    default=prepared_bed.REGOLITH["friction_angle"])
    ap.add_argument("--law", choices=sorted(prepared_bed.LAWS), default="DruckerPrager",
                    help="the soil's constitutive law (prepared_bed.build)")
    ap.add_argument("--bed", required=True, help="prepared bed directory (made if missing)")
    ap.add_argument("--end-time", type=float, default=2.0, help="[s]")
    ap.add_argument("--wall-contact", choices=("bonded", "unilateral", "tension_cut"), default=None,
                    help="the regolith's contact with the lander and the walls "
                         "(physics.wall_contact; default: the run's, tension_cut)")
    ap.add_argument("--output", required=True)
    run_control.add_arguments(ap)
    args = ap.parse_args()
    regolith = dict(cohesion=args.cohesion, friction_angle=args.friction_angle, law=args.law)
    try:
        setup.ensure_bed(args.bed, args.spacing, args.bed_depth, **regolith)
        sim = setup.build(args.bed, args.incidence, args.spacing, args.bed_depth, **regolith)
        if args.wall_contact is not None:
            sim.physics.wall_contact = args.wall_contact
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return run_control.EXIT_REFUSED
    return run_control.run(sim, args, setup.metadata(args.incidence, args.spacing,
                                                     args.bed_depth, **regolith),
                           diagnostics_every=5)


if __name__ == "__main__":
    sys.exit(main())
