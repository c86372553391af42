#!/usr/bin/env python3
"""Steady uniform flow of a mu(I) layer down a rough incline (2D plane strain): one angle.

    /usr/bin/python3 validation/incline_flow/run.py --angle 26 [--dissipation riemann]
        [--riemann-stress-jump continuity] [--density-diffusion 0.1] [...] [--spacing 1e-3] [--length 0.6]
        [--end-time 0.25] [--smooth-base] [--output runs/incline_26]

The dissipation's options are those of every run script (run_control.add_dissipation_arguments).

Theory: the local mu(I) rheology (Jop, Forterre & Pouliquen 2005, J. Fluid Mech. 541, 167;
2006, Nature 441, 727; GDR MiDi 2004, Eur. Phys. J. E 14, 341). In a layer of thickness h at
angle theta the friction is tan(theta) at every depth, so I(theta) = I0 (tan theta - mu_s) /
(mu_2 - tan theta) everywhere, and with p = phi_s rho_s g cos(theta) (h - z) the velocity is
Bagnold's: u(z) = (2/3) I sqrt(phi_s g cos theta) (h^1.5 - (h - z)^1.5) / d, of depth mean
u_mean / sqrt(g h) = (2/5) I sqrt(phi_s cos theta) h / d. With Pouliquen's (1999)
h_stop(theta) = A d (mu_2 - tan theta) / (tan theta - mu_s) this is the flow rule
u_mean / sqrt(g h) = beta h / h_stop, beta = (2/5) I0 A sqrt(phi_s cos theta); A is taken from
beta = 0.136 at the middle angle (A = 1.66), so beta of the theory stays within 2 % of 0.136
over the study's angles.

Steady uniform flow without a periodic boundary: the layer is long (--length), starts with the
Bagnold profile and the stress of the uniform flow (sigma_xx = sigma_yy = sigma_zz = -p,
sigma_xy = tan(theta) p), and is measured in a window of its middle (WINDOW, fractions of the
length): disturbances from its two free ends travel inwards (the tail's drain downstream at
about u + sqrt(g h cos theta), the front's upstream when the flow is subcritical); the run
reports the depth-mean velocity along x so that their reach is visible. A periodic boundary
would need the minimum-image displacement in every pair term (pair_traversal.hpp, wall and
contact terms), not only in the neighbour search.

The base: three rows of fixed wall particles below y = 0 and, as teeth, every other place of
the layer's first row (a rough incline, like the glued beads of the experiments). A flat wall
of no-slip particles is not rough for a plastic layer: it takes the stress of the layer
beside it (boundary.hpp), so it resists with the layer's yield stress whatever the velocity
jump, and the layer slips on it (--smooth-base: 0.11-0.28 m/s at the base against Bagnold's
0.02-0.09 m/s, validation/incline_flow/report.md). Elastic constants: the
rheology is rigid-plastic; K = 200 kPa keeps the elastic strain below 1e-3 (p <= 150 Pa) with a
wave speed (15 m/s) about 10 times the fastest flow. Prints one JSON line of results (and
writes results.json into --output when given). Exit status: 0 done, 2 bad input, 3 blow-up.
"""
import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

import regosph as rs
from regosph import run_control, validation

G = 9.81  # [m/s^2]
# Glass beads of Jop, Forterre & Pouliquen (2005, 2006).
MU_S = math.tan(math.radians(20.9))
MU_2 = math.tan(math.radians(32.76))
I0 = 0.279
GRAIN_DIAMETER = 0.5e-3    # d [m]
GRAIN_DENSITY = 2450.0     # rho_s [kg/m^3]
PHI_S = 0.6                # solid fraction of the flowing layer
BETA = 0.136               # the flow rule's slope (Pouliquen 1999; GDR MiDi 2004)
ANGLES_DEG = (24.0, 26.0, 28.0)
A_HSTOP = 5.0 * BETA / (2.0 * I0 * math.sqrt(PHI_S * math.cos(math.radians(ANGLES_DEG[1]))))
BULK_MODULUS = 2e5         # [Pa], see the module's text
POISSON_RATIO = 0.3
THICKNESS = 10e-3          # h [m], 20 grains
WINDOW = (0.45, 0.7)       # the measuring window, fractions of the initial length
WALL_ROWS = 3


def inertial_number(angle_deg):
    t = math.tan(math.radians(angle_deg))
    if not MU_S < t < MU_2:
        raise ValueError(f"angle = {angle_deg} deg: steady flow needs atan(mu_s) = 20.9 < "
                         "angle < atan(mu_2) = 32.76 deg")
    return I0 * (t - MU_S) / (MU_2 - t)


def h_stop(angle_deg):
    """Pouliquen's h_stop(theta) [m] with Jop et al.'s constants."""
    t = math.tan(math.radians(angle_deg))
    return A_HSTOP * GRAIN_DIAMETER * (MU_2 - t) / (t - MU_S)


def bagnold_velocity(z, h, angle_deg):
    """u(z) [m/s] at heights z [m] above the base of a layer of thickness h [m]."""
    z = np.clip(np.asarray(z, dtype=float), 0.0, h)
    scale = 2.0 / 3.0 * inertial_number(angle_deg) * math.sqrt(
        PHI_S * G * math.cos(math.radians(angle_deg))) / GRAIN_DIAMETER
    return scale * (h ** 1.5 - (h - z) ** 1.5)


def bagnold_mean(h, angle_deg):
    """The depth mean of u [m/s]: (2/5) I sqrt(phi_s g cos theta) h^1.5 / d."""
    return 0.4 * inertial_number(angle_deg) * math.sqrt(
        PHI_S * G * math.cos(math.radians(angle_deg))) * h ** 1.5 / GRAIN_DIAMETER


def beads():
    return rs.MuIRheology("beads", density=PHI_S * GRAIN_DENSITY, bulk_modulus=BULK_MODULUS,
                          poisson_ratio=POISSON_RATIO, static_friction=MU_S,
                          limit_friction=MU_2, reference_inertial_number=I0,
                          grain_diameter=GRAIN_DIAMETER, grain_density=GRAIN_DENSITY)


def build(angle_deg, spacing, length, end_time, options=None, rough=True):
    """The layer on its base in the incline's frame (x down the slope, y normal to it), with
    the uniform flow's velocity and stress. options: the dissipation's
    (run_control.dissipation_options; None: the defaults). rough: the base's roughness, wall
    particles taking every other place of the layer's first row (see the module's text).
    Returns the Simulation."""
    inertial_number(angle_deg)  # refuses angles without steady flow
    theta = math.radians(angle_deg)
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (G * math.sin(theta), -G * math.cos(theta))
    run_control.apply_dissipation(sim, options or run_control.dissipation_options())
    layer = sim.add_material(beads())
    wall = sim.add_material(rs.Rigid("base", density=PHI_S * GRAIN_DENSITY))
    h = 2.5 * spacing
    grains = rs.lattice_fill(rs.rectangle((0.0, 0.0), (length, THICKNESS)), spacing)
    teeth = rough & (grains[:, 1] < spacing) & (np.round(grains[:, 0] / spacing - 0.5) % 2 == 0)
    sim.add_body("layer", grains[~teeth], material=layer, motion="dynamic", spacing=spacing,
                 smoothing_length=h)
    # The front runs at most at the surface speed (5/3 of the mean) beyond the layer's end.
    reach = length + 2.0 * bagnold_mean(THICKNESS, angle_deg) * end_time + 4 * h
    base = rs.lattice_fill(rs.rectangle((-4 * h, -WALL_ROWS * spacing), (reach, 0.0)), spacing,
                           origin=(-4 * h, -WALL_ROWS * spacing))
    if rough:
        top = np.arange(-4 * h + spacing / 2, reach, 2 * spacing)
        base = np.vstack([base, np.column_stack([top, np.full_like(top, spacing / 2)])])
    sim.add_body("base", base, material=wall, motion="fixed", spacing=spacing,
                 smoothing_length=h)
    dynamic = sim.kind == rs.KIND_DYNAMIC
    x = sim.positions
    v = np.zeros_like(sim.velocities)
    v[dynamic, 0] = bagnold_velocity(x[dynamic, 1], THICKNESS, angle_deg)
    sim.velocities = v
    p = PHI_S * GRAIN_DENSITY * G * math.cos(theta) * (THICKNESS - x[dynamic, 1])
    stress = sim.stress
    stress[dynamic, :3] = -p[:, None]
    stress[dynamic, 3] = math.tan(theta) * p  # xy: the layer above pulls it down the slope
    sim.stress = stress
    return sim


def measure(sim, angle_deg, length, spacing, rough=True):
    """The window's depth-mean velocity, thickness, profile and flow rule, and the depth mean
    along x (2 cm bins) with where it stays within 5 % of the window's. The thickness is the
    particles' volume per unit length, h = sum(m / rho) / window, and phi = mass / (rho_s
    volume) its solid fraction: the weight above the base, which sets the pressure, is then
    exact (the layer's density may change under shear; the theory is given at both phi_s and the
    measured phi). On the rough base the teeth's half row counts: h is measured from y = 0."""
    dynamic = sim.kind == rs.KIND_DYNAMIC
    x, u = sim.positions[dynamic], sim.velocities[dynamic, 0]
    volume = sim.mass[dynamic] / sim.density[dynamic]
    inside = (x[:, 0] >= WINDOW[0] * length) & (x[:, 0] < WINDOW[1] * length)
    if inside.sum() < 10:
        raise RuntimeError("fewer than 10 particles in the measuring window")
    xw, uw = x[inside], u[inside]
    window = (WINDOW[1] - WINDOW[0]) * length
    h = float(volume[inside].sum() / window) + (0.5 * spacing if rough else 0.0)
    phi = float(sim.mass[dynamic][inside].sum() / (GRAIN_DENSITY * volume[inside].sum()))
    # The thickness the layer's weight would have at the theory's phi_s: what sets p and I.
    h_mass = float(sim.mass[dynamic][inside].sum() / (PHI_S * GRAIN_DENSITY * window)) + (
        0.5 * spacing if rough else 0.0)
    mean = float(np.average(uw, weights=volume[inside]))
    layers = np.clip((xw[:, 1] / spacing).astype(int), 0, None)
    # Rows of at least 5 particles (a grain thrown above the surface is no row).
    rows = [k for k in range(layers.max() + 1) if (layers == k).sum() >= 5]
    z = (np.array(rows) + 0.5) * spacing
    profile = np.array([uw[layers == k].mean() for k in rows])
    theory = bagnold_velocity(z, h, angle_deg)
    froude = mean / math.sqrt(G * h)
    edges = np.arange(0.0, x[:, 0].max() + 0.02, 0.02)
    bins = np.digitize(x[:, 0], edges)
    along = [(float(edges[k - 1] + 0.01), float(u[bins == k].mean()))
             for k in np.unique(bins) if (bins == k).sum() >= 10]
    settled = [c for c, m in along if abs(m - mean) <= 0.05 * mean]
    beta_theory = 0.4 * I0 * A_HSTOP * math.sqrt(PHI_S * math.cos(math.radians(angle_deg)))
    return dict(angle_deg=angle_deg, thickness_m=h, solid_fraction=phi,
                mean_velocity_m_s=mean, bagnold_mean_m_s=bagnold_mean(h, angle_deg),
                mean_error=mean / bagnold_mean(h, angle_deg) - 1.0,
                froude=froude, h_stop_m=h_stop(angle_deg),
                beta=froude * h_stop(angle_deg) / h, beta_theory=beta_theory,
                thickness_mass_m=h_mass, beta_mass=mean / math.sqrt(G * h_mass) *
                h_stop(angle_deg) / h_mass,
                beta_theory_at_phi=beta_theory * math.sqrt(phi / PHI_S),
                base_velocity_m_s=float(profile[0]), base_bagnold_m_s=float(theory[0]),
                profile_rms_error=float(np.sqrt(np.mean((profile - theory) ** 2)) /
                                        theory.max()),
                shear_profile_rms_error=float(np.sqrt(np.mean(
                    ((profile - profile[0]) - (theory - theory[0])) ** 2)) / theory.max()),
                profile_z_m=z.tolist(), profile_u_m_s=profile.tolist(),
                along_x_m=[c for c, _ in along], along_mean_m_s=[m for _, m in along],
                settled_from_m=min(settled) if settled else None,
                settled_to_m=max(settled) if settled else None,
                tail_m=float(x[:, 0].min()), front_m=float(x[:, 0].max()))


def scheme_name(options):
    """The numerical scheme of a run (run_control.dissipation_options), as the study's tables
    name it."""
    step = ", SSP-RK3" if options.time_scheme == "ssp_rk3" else ""
    if options.dissipation == "monaghan":  # the Riemann solver's options do not apply
        return options.dissipation + step
    return options.dissipation + "".join(
        text for text, on in ((" + stress jump", options.riemann_stress_jump ==
                               "continuity_and_strain_rate"),
                              (" + stress jump (continuity)",
                               options.riemann_stress_jump == "continuity"),
                              (f" + density diffusion {options.density_diffusion:g}",
                               options.density_diffusion > 0.0),
                              (" + reconstruction", options.riemann_reconstruction),
                              (f" + limiter floor {options.riemann_limiter_floor:g}",
                               options.riemann_limiter_floor > 0.0)) if on) + step


def run_case(angle_deg, options=None, spacing=1e-3, length=0.6, end_time=0.25, output=None,
             rough=True):
    """Build, run in two halves (the window's mean at both shows whether the flow is steady)
    and measure. options: the dissipation's (run_control.dissipation_options; None: the
    defaults). Returns the result dict, the numerical share over the whole run included."""
    options = options or run_control.dissipation_options()
    sim = build(angle_deg, spacing, length, end_time, options, rough)
    scheme = total = 0.0
    halves, steps, wall = [], 0, 0.0
    for t in (end_time / 2, end_time):
        summary = sim.run(t, output_dir=output or "", progress_interval=0, overwrite=True,
                          metadata={"setup": "incline flow validation"})
        share = validation.dissipation_share(sim.diagnostics())  # of this half
        scheme, total = scheme + share.scheme, total + share.total
        steps, wall = steps + summary.steps, wall + summary.wall_seconds
        halves.append(measure(sim, angle_deg, length, spacing, rough))
    result = halves[-1]
    share = validation.DissipationShare(scheme, total)
    result.update(dissipation=options.dissipation, scheme=scheme_name(options),
                  spacing_m=spacing, length_m=length,
                  end_time_s=end_time, rough_base=rough,
                  half_time_mean_m_s=halves[0]["mean_velocity_m_s"],
                  numerical_share=share.share, dissipation_J_per_m=share.total,
                  steps=steps, wall_seconds=wall)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--angle", type=float, required=True, help="incline angle [deg]")
    run_control.add_dissipation_arguments(ap)
    ap.add_argument("--spacing", type=float, default=1e-3, help="particle spacing [m]")
    ap.add_argument("--length", type=float, default=0.6, help="initial layer length [m]")
    ap.add_argument("--end-time", type=float, default=0.25, help="simulated time [s]")
    ap.add_argument("--smooth-base", action="store_true",
                    help="a flat wall instead of the rough base (the flow slips on it)")
    ap.add_argument("--output", help="run directory (diagnostics.csv, run.json, "
                                     "results.json)")
    args = ap.parse_args(argv)
    try:
        result = run_case(args.angle, args, args.spacing, args.length, args.end_time,
                          args.output, rough=not args.smooth_base)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    if args.output:
        (Path(args.output) / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
