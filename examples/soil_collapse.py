#!/usr/bin/env python3
"""Soil collapse of Bui et al. (2008), as simulated by Schaefer et al. (2017), section 4.

A block of aluminium bars, 0.20 m long and 0.10 m high, rests on a flat floor against a fixed
wall at x = 0. The retaining wall at x = 0.20 m is removed at t = 0 and the block collapses
under gravity. Plane strain. Walls and floor are no-slip.

    /usr/bin/python3 examples/soil_collapse.py --output runs/collapse [--spacing 2.582e-3]

validation/soil_collapse/run.py runs this setup and compares it with the experiment.
"""
import argparse
import math
import sys

import regosph as rs
from regosph import run_control

# The experiment and the soil parameters (Bui 2008, Schaefer 2017, reference README).
BLOCK_LENGTH = 0.20       # m
BLOCK_HEIGHT = 0.10       # m
GRAVITY = 9.81            # m/s^2
SOIL = dict(density=2650.0,          # kg/m^3
            bulk_modulus=0.7e6,      # Pa
            poisson_ratio=0.3,
            friction_angle=19.8,     # deg
            cohesion=0.0,            # Pa
            dilatancy_angle=0.0)     # deg
# Schaefer 2017: 77 x 38 particles at 2.582 mm, h = 2.5 x spacing (support radius),
# artificial viscosity alpha = 0.3, beta = 0.7 with a fixed sound speed of 600 m/s.
PAPER_SPACING = 2.582e-3  # m
SMOOTHING_FACTOR = 2.5
PAPER_VISCOSITY_SOUND_SPEED = 600.0  # m/s
# regosph's default for every setup: the viscosity uses the material's own elastic wave speed
# (~20.7 m/s here). The paper's 600 m/s is an option; docs/validation/collapse.md compares both.
VISCOSITY_SOUND_SPEED = 0.0  # m/s, 0 = the material's own
FLOOR_LENGTH = 0.60       # m, beyond the runout (~0.45 m)
WALL_HEIGHT = 0.12        # m


# The strength laws the collapse can run (docs/guide/physics.md, "Strength surfaces"): Bui's
# Drucker-Prager with its plane-strain constants, and Mohr-Coulomb, exact in plane strain.
# And mu(I) (Jop, Forterre & Pouliquen 2006), with mu_s = tan(phi) of SOIL and the rise
# Delta mu = mu_2 - mu_s and I_0 Jop et al. measured on glass beads (mu_s = tan 20.9 deg,
# mu_2 = tan 32.76 deg, I_0 = 0.279; no value was fitted to this experiment); the grains are
# the bars (diameters 1 and 1.5 mm, GRAIN_DIAMETER the larger) of the soil's density.
LAWS = ("DruckerPrager", "MohrCoulomb", "MuIRheology")
MU_I_RISE = math.tan(math.radians(32.76)) - math.tan(math.radians(20.9))  # Delta mu [-]
MU_I_REFERENCE_INERTIAL_NUMBER = 0.279  # I_0 [-]
GRAIN_DIAMETER = 1.5e-3  # m


def soil_material(law="DruckerPrager", dilatancy_angle=None, grain_diameter=GRAIN_DIAMETER,
                  mu_i_rise=MU_I_RISE, **options):
    """The aluminium bars as the strength law `law` (LAWS) with SOIL's constants; dilatancy_angle
    [deg] replaces SOIL's psi = 0 (Bui's) when given; grain_diameter [m] and mu_i_rise: mu(I)'s
    d and Delta mu. options go to the material (its viscosity_sound_speed, kernel_correction)."""
    soil = dict(SOIL)
    if dilatancy_angle is not None:
        soil["dilatancy_angle"] = dilatancy_angle
    if law not in LAWS:
        raise ValueError(f"law = {law!r} is not one of {', '.join(LAWS)}")
    if law == "MuIRheology":
        if dilatancy_angle is not None:
            raise ValueError("dilatancy_angle: mu(I) has no dilatancy angle")
        mu_s = math.tan(math.radians(soil["friction_angle"]))
        return rs.MuIRheology("aluminium bars", density=soil["density"],
                              bulk_modulus=soil["bulk_modulus"],
                              poisson_ratio=soil["poisson_ratio"], static_friction=mu_s,
                              limit_friction=mu_s + mu_i_rise,
                              reference_inertial_number=MU_I_REFERENCE_INERTIAL_NUMBER,
                              grain_diameter=grain_diameter, grain_density=soil["density"],
                              cohesion=soil["cohesion"], **options)
    return getattr(rs, law)("aluminium bars", **soil, **options)


def build(spacing=PAPER_SPACING, viscosity_sound_speed=VISCOSITY_SOUND_SPEED, depth=None,
          kernel_correction=False, av_balsara=False, dissipation="monaghan",
          law="DruckerPrager", dilatancy_angle=None, gravity=GRAVITY, geostatic=False,
          grain_diameter=GRAIN_DIAMETER, mu_i_rise=MU_I_RISE, material=None):
    """The collapse setup at the given particle spacing [m]: plane strain, or with depth [m]
    the block extruded in z between two fixed side walls (examples/soil_collapse_3d.py).

    viscosity_sound_speed: c of the artificial viscosity [m/s]; 0 uses the soil's own
    elastic wave speed (~21 m/s) instead of the paper's 600 m/s. kernel_correction,
    av_balsara: the numerics options of docs/guide/physics.md (both off by default).
    dissipation: the pair dissipation, "monaghan" (the paper's artificial viscosity) or
    "riemann" (the Riemann solver of Zhang et al. 2017; docs/guide/physics.md).
    law, dilatancy_angle: the soil's strength law and psi [deg] (soil_material; default Bui's
    Drucker-Prager with psi = 0), grain_diameter [m] and mu_i_rise mu(I)'s d and Delta mu.
    gravity [m/s^2]: its magnitude (the experiment's 9.81).
    geostatic: the block starts at rest in its own weight, as behind the gate before its
    release (rs.geostatic_stress, Jaky's K0 = 1 - sin phi); otherwise stress-free (the paper's).
    material: a soil material of one's own in place of soil_material's (law, dilatancy_angle,
    grain_diameter, mu_i_rise, viscosity_sound_speed and kernel_correction then unused).
    """
    if not (math.isfinite(spacing) and spacing > 0.0):
        raise ValueError(f"spacing = {spacing!r} m must be a positive, finite length")
    if depth is not None and not (math.isfinite(depth) and depth >= spacing):
        raise ValueError(f"depth = {depth!r} m must be finite and at least one spacing "
                         f"({spacing!r} m)")
    sim = rs.Simulation(dim=2 if depth is None else 3)
    if not (math.isfinite(gravity) and gravity > 0.0):
        raise ValueError(f"gravity = {gravity!r} m/s^2 must be a positive, finite acceleration")
    sim.physics.gravity = (0.0, -gravity, 0.0)
    sim.physics.av_alpha, sim.physics.av_beta = 0.3, 0.7
    sim.physics.av_balsara = av_balsara
    sim.physics.dissipation = dissipation

    if material is None:
        material = soil_material(law, dilatancy_angle, grain_diameter, mu_i_rise,
                                 viscosity_sound_speed=viscosity_sound_speed,
                                 kernel_correction=kernel_correction)
    soil = sim.add_material(material)
    wall = sim.add_material(rs.Rigid("wall", density=SOIL["density"]))

    # Whole particles only: floor(L / spacing) columns and rows (77 x 38 at the paper's spacing).
    nx, ny = int(BLOCK_LENGTH / spacing), int(BLOCK_HEIGHT / spacing)
    h = SMOOTHING_FACTOR * spacing
    # Fixed wall at x < 0 and floor at y < 0 (3D: side walls at z < 0 and z > depth), at
    # least one support radius thick.
    layers = -(-h // spacing) * spacing
    if depth is None:
        block = rs.rectangle((0.0, 0.0), (nx * spacing, ny * spacing))
        outer = rs.rectangle((-layers, -layers), (FLOOR_LENGTH, WALL_HEIGHT))
        inside = rs.rectangle((0.0, 0.0), (FLOOR_LENGTH + 1.0, WALL_HEIGHT + 1.0))
    else:
        width = int(depth / spacing) * spacing
        block = rs.box((0.0, 0.0, 0.0), (nx * spacing, ny * spacing, width))
        outer = rs.box((-layers, -layers, -layers), (FLOOR_LENGTH, WALL_HEIGHT, width + layers))
        inside = rs.box((0.0, 0.0, 0.0), (FLOOR_LENGTH + 1.0, WALL_HEIGHT + 1.0, width))
    sim.add_body("soil", rs.lattice_fill(block, spacing), material=soil, motion="dynamic",
                 spacing=spacing, smoothing_length=h)
    sim.add_body("walls", rs.lattice_fill(outer - inside, spacing), material=wall,
                 motion="fixed", spacing=spacing, smoothing_length=h)
    if geostatic:
        rs.geostatic_stress(sim)
    return sim


def main(argv=None):
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", required=True, help="run directory")
    ap.add_argument("--spacing", type=float, default=PAPER_SPACING, help="particle spacing [m]")
    ap.add_argument("--end-time", type=float, default=1.0, help="simulated time [s]")
    ap.add_argument("--viscosity-sound-speed", type=float, default=VISCOSITY_SOUND_SPEED,
                    help="sound speed of the artificial viscosity [m/s]; 0 = the soil's own "
                         f"(default); the paper used {PAPER_VISCOSITY_SOUND_SPEED:g}")
    run_control.add_arguments(ap)
    args = ap.parse_args(argv)
    sim = build(args.spacing, args.viscosity_sound_speed)
    return run_control.run(sim, args, metadata={"setup": "soil_collapse",
                                                 "spacing_m": repr(args.spacing)})


if __name__ == "__main__":
    sys.exit(main())
