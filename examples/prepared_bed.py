#!/usr/bin/env python3
"""A regolith bed in a box, brought to rest in its own weight and saved for later runs.

The bed is `--depth` deep and `--width` wide (plane strain; with --dim 3 also `--width` in z,
gravity along -y as in the other 3D setups), inside fixed walls one support radius thick.
prepare_bed (regosph/bed.py) gives it the geostatic stress with Jaky's K0, relaxes it with
kinetic damping, checks it at rest without damping and saves it in --output:

    /usr/bin/python3 examples/prepared_bed.py --gravity 1.5e-4 --depth 0.3 --output runs/bed

A later setup builds the same bed with build(...) and calls rs.load_bed(sim, "runs/bed")
before adding its own bodies (examples/lander_2d.py).
"""
import argparse
import json
import math
import os
import sys

import regosph as rs

# Regolith of the studies (issue 13): bulk density ~1300 kg/m^3 (MASCOT-like bed); elastic
# moduli and friction angle of Schaefer et al. (2017) for regolith (SPEC.md section 8: K =
# 3.33 MPa, mu = 370 kPa, phi = 42 deg), cohesionless.
REGOLITH = dict(density=1300.0,          # kg/m^3
                bulk_modulus=3.33e6,     # Pa
                shear_modulus=0.37e6,    # Pa
                friction_angle=42.0,     # deg
                cohesion=0.0,            # Pa
                dilatancy_angle=0.0)     # deg
SMOOTHING_FACTOR = 2.5   # support radius h / spacing
WALL_FREEBOARD = 2       # wall rows above the bed's surface [spacings]


# The soil laws a bed can be made of (docs/guide/physics.md, "Strength surfaces"), with the
# parameters each takes beyond REGOLITH's.
LAWS = {"DruckerPrager": (), "MohrCoulomb": ("tensile_strength", "tensile_softening_strain",
                                              "artificial_stress", "artificial_stress_exponent")}


def build(depth=0.3, width=0.6, gravity=9.81, spacing=0.01, dim=2, wall_friction="no-slip",
          symmetry_planes=(), breadth=None, bed_positions=None, law="DruckerPrager",
          split_setup=False, **regolith):
    """The bed and its box as a Simulation, not yet run: `width` along x, `depth` along y
    and, in 3D, `breadth` along z (default: width). regolith: overrides of REGOLITH (e.g.
    cohesion=10.0, friction_angle=30.0), and elasticity=rs.Houlsby(...) for moduli that follow
    the pressure. law: the soil's constitutive law, "DruckerPrager" (Bui's cone, the
    default) or "MohrCoulomb" (true on every stress path; then also tensile_strength,
    tensile_softening_strain and artificial_stress among the overrides). symmetry_planes: axes among "x" and "z" (3D) whose walls on the negative
    side (x < 0, z < 0) become a separate free-slip, bonded body "symmetry": the bed is then one half
    (or quarter) of a bed mirrored about those planes. bed_positions:
    the bed's particles instead of its lattice (rs.carve_bed's, for a tool buried in it).
    split_setup: the bodies are given as shapes, so that under MPI each rank builds only its
    share of them (Simulation.add_body); such a bed runs as built, while rs.prepare_bed and
    rs.load_bed need the whole bed on every rank."""
    for name, value in (("depth", depth), ("width", width), ("spacing", spacing),
                        ("gravity", gravity)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} = {value!r} must be a positive number")
    if dim not in (2, 3):
        raise ValueError(f"dim = {dim!r} must be 2 or 3")
    planes = tuple(symmetry_planes)
    if not set(planes) <= ({"x", "z"} if dim == 3 else {"x"}):
        raise ValueError(f"symmetry_planes = {symmetry_planes!r}: axes among "
                         f"{'x, z' if dim == 3 else 'x'}")
    breadth = width if breadth is None else breadth
    if not (isinstance(breadth, (int, float)) and math.isfinite(breadth) and breadth > 0):
        raise ValueError(f"breadth = {breadth!r} must be a positive number")
    if law not in LAWS:
        raise ValueError(f"law = {law!r}: one of {sorted(LAWS)}")
    known = sorted(REGOLITH) + ["elasticity", *LAWS[law]]
    unknown = set(regolith) - set(known)
    if unknown:
        raise ValueError(f"regolith: unknown parameter(s) {sorted(unknown)} for {law} "
                         f"(known: {known})")
    sim = rs.Simulation(dim=dim)
    sim.physics.gravity = (0.0, -gravity, 0.0)
    soil = sim.add_material(getattr(rs, law)("regolith", **{**REGOLITH, **regolith}))
    wall = sim.add_material(rs.Rigid("wall", density=REGOLITH["density"]))
    h = SMOOTHING_FACTOR * spacing
    t = math.ceil(h / spacing) * spacing             # wall thickness: at least h
    nx, ny, nz = round(width / spacing), round(depth / spacing), round(breadth / spacing)
    top = ny * spacing + WALL_FREEBOARD * spacing
    if dim == 2:
        bed = rs.rectangle((0.0, 0.0), (nx * spacing, ny * spacing))
        outer = rs.rectangle((-t, -t), (nx * spacing + t, top))
        inner = rs.rectangle((0.0, 0.0), (nx * spacing, top + 1.0))
    else:
        bed = rs.box((0.0, 0.0, 0.0), (nx * spacing, ny * spacing, nz * spacing))
        outer = rs.box((-t, -t, -t), (nx * spacing + t, top, nz * spacing + t))
        inner = rs.box((0.0, 0.0, 0.0), (nx * spacing, top + 1.0, nz * spacing))
    def fill(shape):
        return shape if split_setup else rs.lattice_fill(shape, spacing)

    points = fill(bed) if bed_positions is None else bed_positions
    sim.add_body("bed", points, material=soil, motion="dynamic",
                 spacing=spacing, smoothing_length=h)
    walls = outer - inner
    if planes:
        far = 10.0 * (max(nx, nz) * spacing + top)  # beyond the box on every side
        x0 = 0.0 if "x" in planes else -far
        if dim == 2:
            half = rs.rectangle((x0, -far), (far, far))
        else:
            half = rs.box((x0, -far, 0.0 if "z" in planes else -far), (far, far, far))
        # A symmetry plane: the soil goes on beyond it, so it slides freely along it and
        # carries tension across it (bonded), where a wall (the box) lets the soil separate.
        sim.add_body("symmetry", fill(walls - half), material=wall,
                     motion="fixed", spacing=spacing, smoothing_length=h,
                     wall_friction="free-slip", contact="bonded")
        walls = walls & half
    sim.add_body("box", fill(walls), material=wall, motion="fixed",
                 spacing=spacing, smoothing_length=h, wall_friction=wall_friction)
    return sim


def ensure(bed_dir, setup, *args, **kwargs):
    """Prepare the bed setup(*args, **kwargs) builds into bed_dir unless bed_dir holds a
    prepared bed already (rs.load_bed then checks that it matches); returns bed_dir."""
    if not os.path.isfile(os.path.join(bed_dir, rs.bed.REPORT_FILE)):
        rs.prepare_bed(setup(*args, **kwargs), bed_dir)
    return bed_dir


def add_soil_arguments(ap, spacing, cohesion=REGOLITH["cohesion"],
                       friction_angle=REGOLITH["friction_angle"]):
    """--cohesion [Pa], --friction-angle [deg], --gravity [m/s^2] (default 9.81) and --spacing [m]
    of a prepared bed's soil, with these defaults."""
    ap.add_argument("--cohesion", type=float, default=cohesion, help="[Pa]")
    ap.add_argument("--friction-angle", type=float, default=friction_angle, help="[deg]")
    ap.add_argument("--gravity", type=float, default=9.81, help="[m/s^2]")
    ap.add_argument("--spacing", type=float, default=spacing, help="[m]")


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depth", type=float, default=0.3, help="[m]")
    ap.add_argument("--width", type=float, default=0.6, help="[m]")
    ap.add_argument("--dim", type=int, default=2)
    add_soil_arguments(ap, spacing=0.01)
    ap.add_argument("--law", choices=sorted(LAWS), default="DruckerPrager",
                    help="the soil's constitutive law")
    ap.add_argument("--output", required=True)
    ap.add_argument("--overwrite", action="store_true")
    args = ap.parse_args()
    try:
        sim = build(args.depth, args.width, args.gravity, args.spacing, args.dim, law=args.law,
                    cohesion=args.cohesion, friction_angle=args.friction_angle)
        report = rs.prepare_bed(sim, args.output, overwrite=args.overwrite)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if rs.is_root():
        summary = {k: report[k] for k in ("bulk_density", "gravity", "relaxation", "residual")}
        summary["max_error_v"] = report["stress"]["max_error_v"]
        summary["mean_k"] = report["stress"]["mean_k"]
        print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
