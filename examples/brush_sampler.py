#!/usr/bin/env python3
"""Rotary brush sampler of Schaefer et al. (2017), section 4.2: two counter-rotating brushes
sweep regolith up into a collecting tray (SPEC.md section 8). Plane strain.

    /usr/bin/python3 examples/brush_sampler.py --run P0 --output runs/sampler/P0
    /usr/bin/python3 examples/brush_sampler.py --run E3 --resolution paper --output ...
    /usr/bin/python3 examples/brush_sampler.py --sweep runs/sampler          # all 13, in turn
    /usr/bin/python3 examples/brush_sampler.py --sweep runs/sampler --batch  # one job per run

Each run directory holds the snapshots, observers.csv/.h5 (particles and mass of regolith in
the tray), diagnostics.csv (with the force and torque on every tool), run.json, and
speed_<t>.png (particles coloured by speed) at the --plot-times. A sweep also writes
<DIR>/tray_count.png, the tray count of all its finished runs against time.

Geometry (origin: midway between the pivots on the initial regolith surface, y up), from the
prototype's CAD data as given in the paper; choices the paper leaves open are marked (*):
- brushes: pivots at x = -/+47.5 mm, 43.4 mm above the surface, so that the lowest of the 12
  bristles (30 deg apart, one pointing straight down) ends 8.4 mm above it. Hub radius 15 mm,
  bristles 20 mm long (tip radius 35 mm), two particle rows thick (*: the real bristle tufts
  are thinner than any affordable resolution).
- shields: an 80-deg arc around the outer side of each brush (centred on the horizontal
  through the pivot, pointing away from the other brush), inner radius 38 mm (*), two rows.
- tray: 82 mm wide, 63 mm high, walls two rows thick, a 26 mm opening in the middle of its
  floor; the floor's underside is 3 mm (*) above the circle swept by the bristle tips.
- regolith bed (*): an inner region of spacing dx, 0.30 m wide and 0.06 m deep, embedded in two
  damping zones of spacing 2 dx and 4 dx (same bulk density, heavier particles, larger h;
  0.50 x 0.14 m and 0.74 x 0.24 m), and a fixed wall at least one support radius thick around
  them. Zone sizes are rounded to whole coarse cells.
Kinematics: brushes, tray and shields descend at 5 cm/s for 0.2 s, then stay; the brushes turn
from t = 0, the left one counter-clockwise and the right one clockwise for positive rpm
(collecting), both reversed for negative rpm (clearing). With --spin-up T they start from rest
and reach their rate linearly over T seconds, as a motor would (the paper starts them at once).
Materials: regolith Drucker-Prager (K = 3.33 MPa, mu = 370 kPa, rho = 1500 kg/m^3, psi = 0; phi
and c per run); tools Murnaghan (K0 = 24.2 GPa, rho0 = 2700 kg/m^3, n = 6) moving kinematically.
"""
import argparse
import collections
import math
import os
import sys
from pathlib import Path

import numpy as np

import regosph as rs
from regosph import run_control
from regosph.bed import elastic_k0
from regosph import sweep as sw

# --- the run table of SPEC.md section 8 -------------------------------------------------------
G_EARTH, G_PHOBOS = 9.81, 5.7e-3  # m/s^2
RUNS = {  # name: (gravity [m/s^2], rpm, friction angle [deg], cohesion [Pa])
    "E0": (G_EARTH, 100, 42, 0.0),
    "E1": (G_EARTH, 100, 42, 500.0),
    "E2": (G_EARTH, 300, 42, 0.0),
    "E3": (G_EARTH, 500, 42, 0.0),
    "P0": (G_PHOBOS, 100, 42, 0.0),
    "P1": (G_PHOBOS, 100, 42, 500.0),
    "P2": (G_PHOBOS, 100, 20, 1000.0),
    "P3": (G_PHOBOS, 100, 42, 1000.0),
    "P4": (G_PHOBOS, 100, 60, 1000.0),
    "P5": (G_PHOBOS, 500, 42, 0.0),
    "P6": (G_PHOBOS, 500, 42, 1000.0),
    "P7": (G_PHOBOS, -100, 42, 0.0),
    "P8": (G_PHOBOS, -100, 42, 100.0),
}

# --- materials (SPEC.md section 8) ------------------------------------------------------------
REGOLITH = dict(density=1500.0, bulk_modulus=3.33e6, shear_modulus=3.7e5, dilatancy_angle=0.0)
TOOL = dict(density=2700.0, bulk_modulus=24.2e9, murnaghan_n=6.0)

# --- resolution -------------------------------------------------------------------------------
SMOOTHING_FACTOR = 2.5  # support radius / spacing, as in the soil collapse (every setup)
RESOLUTIONS = {
    # inner-region spacing [m]. paper: support radius 3 mm as in the source.
    "paper": 3e-3 / SMOOTHING_FACTOR,
    # default: 1 s of physical time in minutes on 2 cores (docs/validation/brush_sampler.md).
    "default": 2.5e-3,
    # coarse: for tests and the notebook's smoke runs only; not a physical result.
    "coarse": 5e-3,
}

# --- geometry [m] -----------------------------------------------------------------------------
PIVOT_DISTANCE = 0.095
HUB_RADIUS = 0.015
BRISTLE_LENGTH = 0.020
N_BRISTLES = 12
TIP_RADIUS = HUB_RADIUS + BRISTLE_LENGTH
TIP_CLEARANCE = 0.0084          # lowest bristle tip above the surface at t = 0
PIVOT_HEIGHT = TIP_CLEARANCE + TIP_RADIUS
SHIELD_INNER_RADIUS = 0.038
SHIELD_OPENING = 80.0           # deg
TRAY_WIDTH, TRAY_HEIGHT, TRAY_OPENING = 0.082, 0.063, 0.026
TRAY_FLOOR_CLEARANCE = 0.003    # floor underside above the bristle-tip circle
DESCENT_SPEED, DESCENT_TIME = 0.05, 0.2  # m/s, s
INNER = (0.30, 0.06)            # bed regions: width, depth
DAMPING = ((0.50, 0.14), (0.74, 0.24))
ZONE_SPACING_FACTORS = (1, 2, 4)  # spacing of the inner region and damping zones / dx

# The setup's own choices where the paper is silent (marked (*) above), as one record so that a
# study can run each of them either way (validation/brush_sampler/choices.py):
# bristle_rows: particle rows across a bristle [-]; tray_clearance: tray floor underside above
# the bristle-tip circle [m]; shield_gap: shield inner radius minus the tip radius [m].
Choices = collections.namedtuple("Choices", "bristle_rows tray_clearance shield_gap")
DEFAULT_CHOICES = Choices(bristle_rows=2, tray_clearance=TRAY_FLOOR_CLEARANCE,
                          shield_gap=SHIELD_INNER_RADIUS - TIP_RADIUS)


def check_choices(choices):
    """The choices, or ValueError naming the field that is out of range."""
    c = Choices(*choices)
    if c.bristle_rows not in (1, 2, 3, 4):
        raise ValueError(f"bristle_rows = {c.bristle_rows!r} must be 1, 2, 3 or 4")
    for name in ("tray_clearance", "shield_gap"):
        v = getattr(c, name)
        if not (math.isfinite(v) and 0.0 < v <= 0.02):
            raise ValueError(f"{name} = {v!r} m must lie in (0, 0.02] m")
    return c


def _rotate(points, angle, centre):
    """Points (N, 2) rotated by angle [rad] counter-clockwise about centre."""
    c, s = math.cos(angle), math.sin(angle)
    d = points - centre
    return np.column_stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]]) + centre


def brush_points(pivot, dx, rows=2):
    """Hub (a disc on a lattice centred at the pivot) and 12 bristles, each `rows` rows of
    particles along its axis from the hub surface to the tip radius."""
    pivot = np.asarray(pivot, dtype=float)
    hub = rs.lattice_fill(rs.rectangle(tuple(pivot - HUB_RADIUS), tuple(pivot + HUB_RADIUS)), dx,
                          origin=(pivot[0] - HUB_RADIUS, pivot[1] - HUB_RADIUS, 0.0))
    hub = hub[np.hypot(*(hub - pivot).T) < HUB_RADIUS]
    # Along the bristle: from half a spacing outside the hub to the tip; across: rows spaced dx,
    # centred on the axis (+-dx/2 for two).
    n_along = int(round((BRISTLE_LENGTH - 0.5 * dx) / dx))
    r = HUB_RADIUS + 0.5 * dx + (np.arange(n_along) + 0.5) * (BRISTLE_LENGTH - 0.5 * dx) / n_along
    offsets = (np.arange(rows) - 0.5 * (rows - 1)) * dx
    bristle = np.vstack([np.column_stack([r, np.full_like(r, off)]) for off in offsets]) + pivot
    # One bristle points straight down (-90 deg), the others every 30 deg from it.
    parts = [hub] + [_rotate(bristle, math.radians(-90.0 + 360.0 * k / N_BRISTLES), pivot)
                     for k in range(N_BRISTLES)]
    return np.vstack(parts)


def arc_points(centre, r_inner, start_deg, opening_deg, dx, rows=2):
    """Particles of an arc band: `rows` rows from r_inner outwards, spaced about dx."""
    out = []
    for j in range(rows):
        r = r_inner + (j + 0.5) * dx
        n = max(2, int(round(math.radians(opening_deg) * r / dx)))
        a = np.radians(start_deg + (np.arange(n) + 0.5) * opening_deg / n)
        out.append(np.column_stack([centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)]))
    return np.vstack(out)


def tray_geometry(dx, clearance=TRAY_FLOOR_CLEARANCE):
    """(walls, interior, outline, corner) of the tray: the walls (a floor with the central
    opening, two side walls and a ceiling, two rows thick), the region they enclose, the outer
    rectangle and its lower-left corner (x, y) [m]; its floor's underside `clearance` [m]
    above the bristle-tip circle."""
    wall = 2 * dx
    bottom = PIVOT_HEIGHT + TIP_RADIUS + clearance
    half = 0.5 * TRAY_WIDTH
    outer = rs.rectangle((-half, bottom), (half, bottom + TRAY_HEIGHT))
    interior = rs.rectangle((-half + wall, bottom + wall), (half - wall, bottom + TRAY_HEIGHT - wall))
    opening = rs.rectangle((-0.5 * TRAY_OPENING, bottom - 1e-9), (0.5 * TRAY_OPENING, bottom + wall + 1e-9))
    return outer - interior - opening, interior, outer, (-half, bottom)


def snap(length, cell):
    """length rounded up to whole cells."""
    return math.ceil(length / cell - 1e-9) * cell


# A body of the sampler in the (x, y) plane. role: "regolith" (dynamic), "bed wall" (fixed) or
# "tool" (kinematic, with its Kinematics); points (N, 2) [m]; spacing [m].
Part = collections.namedtuple("Part", "name role points spacing kinematics")
MOTION = {"regolith": "dynamic", "bed wall": "fixed", "tool": "kinematic"}


def inner_spacing(resolution="default", spacing=None):
    """The inner-region spacing [m]: `spacing` if given, else that of `resolution`."""
    dx = spacing if spacing is not None else RESOLUTIONS.get(resolution)
    if dx is None:
        raise ValueError(f"resolution: {resolution!r} is not one of {', '.join(RESOLUTIONS)}")
    if not (math.isfinite(dx) and 0.0 < dx <= 0.01):
        raise ValueError(f"spacing = {dx!r} m must lie in (0, 0.01] m")
    return dx


def brush_rotation(rpm, spin_up):
    """Kinematics arguments of a brush turning at rpm [rev/min] (+: counter-clockwise): at once
    (the paper), or reaching it linearly over spin_up [s] from rest, like a motor."""
    if not (math.isfinite(spin_up) and spin_up >= 0.0):
        raise ValueError(f"spin_up = {spin_up!r} s must be a finite time >= 0")
    return {"rpm": rpm} if spin_up == 0.0 else {"rpm_schedule": [(0.0, 0.0), (spin_up, rpm)]}


def layout(run, dx, spin_up=0.0, choices=DEFAULT_CHOICES):
    """The sampler in the (x, y) plane for one row of the run table at inner spacing dx [m],
    shared by the plane-strain setup and its extrusion (brush_sampler_3d.py): the bodies as
    Parts in the order they are added, and the tray's (walls, interior, outline, corner).
    spin_up [s]: the brushes reach their rate over this time from rest (0: at once); choices:
    the setup's open choices (Choices)."""
    if run not in RUNS:
        raise ValueError(f"run: {run!r} is not one of {', '.join(RUNS)}")
    choices = check_choices(choices)
    rpm = RUNS[run][1]
    parts = []
    # Regolith bed: inner region and two damping zones, lattices aligned at the bed's corner
    # so that neighbouring zones meet at the mean of their spacings.
    spacings = tuple(f * dx for f in ZONE_SPACING_FACTORS)
    coarse = spacings[-1]
    sizes = [(snap(0.5 * w, coarse), snap(d, coarse)) for w, d in (INNER,) + DAMPING]
    half_w, depth = sizes[-1]
    origin = (-half_w, -depth, 0.0)
    previous = None
    for k, ((hw, d), s) in enumerate(zip(sizes, spacings)):
        zone = rs.rectangle((-hw, -d), (hw, 0.0))
        region = zone if previous is None else zone - previous
        name = "regolith" if k == 0 else f"regolith damping {k}"
        parts.append(Part(name, "regolith", rs.lattice_fill(region, s, origin=origin), s, None))
        previous = zone
    # The outermost layer is fixed (SPEC.md section 6): a wall one coarse support radius thick.
    t = snap(SMOOTHING_FACTOR * coarse, coarse)
    box = rs.rectangle((-half_w - t, -depth - t), (half_w + t, 0.0))
    parts.append(Part("bed wall", "bed wall", rs.lattice_fill(box - previous, coarse, origin=origin),
                      coarse, None))

    # Tools: all descend together; the brushes turn about their own (descending) pivots.
    descent = [(DESCENT_TIME, (0.0, -DESCENT_SPEED))]
    for side, sign in (("left", -1.0), ("right", 1.0)):
        pivot = (sign * 0.5 * PIVOT_DISTANCE, PIVOT_HEIGHT)
        # Collecting (rpm > 0): left counter-clockwise (+), right clockwise (-).
        turn = rs.Kinematics(translation=descent, pivot=pivot, **brush_rotation(-sign * rpm, spin_up))
        parts.append(Part(f"brush {side}", "tool", brush_points(pivot, dx, choices.bristle_rows),
                          dx, turn))
        start = 180.0 - 0.5 * SHIELD_OPENING if sign < 0 else -0.5 * SHIELD_OPENING
        parts.append(Part(f"shield {side}", "tool",
                          arc_points(pivot, TIP_RADIUS + choices.shield_gap, start,
                                     SHIELD_OPENING, dx), dx,
                          rs.Kinematics(translation=descent, pivot=pivot)))
    tray = tray_geometry(dx, choices.tray_clearance)
    walls, corner = tray[0], tray[3]
    parts.append(Part("tray", "tool", rs.lattice_fill(walls, dx, origin=(corner[0], corner[1], 0.0)),
                      dx, rs.Kinematics(translation=descent, pivot=(0.0, corner[1]))))
    return parts, tray


def add_materials(sim, run):
    """Regolith (phi and c of the run), tool and bed-wall materials: {role: material index}."""
    _, _, phi, cohesion = RUNS[run]
    regolith = sim.add_material(rs.DruckerPrager("regolith", **REGOLITH, friction_angle=phi,
                                                 cohesion=cohesion))
    tool = sim.add_material(_tool_material())
    wall = sim.add_material(rs.Rigid("bed wall", density=REGOLITH["density"]))
    return {"regolith": regolith, "tool": tool, "bed wall": wall}


def add_part(sim, materials, part, points=None):
    """Add one Part as a body (points overrides its 2D points, e.g. extruded); returns its index."""
    return sim.add_body(part.name, part.points if points is None else points,
                        material=materials[part.role], motion=MOTION[part.role],
                        spacing=part.spacing, smoothing_length=SMOOTHING_FACTOR * part.spacing,
                        kinematics=part.kinematics)


def build(run="P0", resolution="default", spacing=None, spin_up=0.0, choices=DEFAULT_CHOICES):
    """The sampler setup for one row of the run table. spacing [m] overrides the resolution;
    spin_up [s]: the brushes' time to reach their rate from rest (0: at once, as the paper);
    choices: the setup's open choices (Choices)."""
    dx = inner_spacing(resolution, spacing)
    parts, (_, interior, _, _) = layout(run, dx, spin_up, choices)
    g = RUNS[run][0]
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -g)
    materials = add_materials(sim, run)
    index = {p.name: add_part(sim, materials, p) for p in parts}
    set_geostatic_stress(sim, g)
    sim.add_observer("tray", interior, material=materials["regolith"], body=index["tray"])
    # The domain only catches blow-ups, so it must hold every physical trajectory over 2 s (the
    # longest the paper simulates): on Phobos grains thrown at ~2 m/s fly up and sideways for
    # seconds; on Earth grains thrown past the edge of the bed (x > 0.4 m) fall freely,
    # g t^2 / 2 = 20 m in 2 s.
    sim.set_bounds((-20.0, -50.0, 0.0), (20.0, 40.0, 0.0))
    return sim


def set_geostatic_stress(sim, g):
    """The bed starts in equilibrium under gravity instead of collapsing onto itself: vertical
    stress sigma_yy = rho g y (y < 0 below the surface, compression negative) and horizontal
    sigma_xx = sigma_zz = K0 sigma_yy with the elastic at-rest ratio K0 = nu / (1 - nu) of a
    laterally confined bed (nu from K and mu: 0.446, K0 = 0.81), well inside the yield surface
    for every run of the table."""
    rho = REGOLITH["density"]
    k0 = elastic_k0(REGOLITH["bulk_modulus"], REGOLITH["shear_modulus"])
    stress = sim.stress
    y = sim.positions[:, 1]
    soil = sim.kind == rs.KIND_DYNAMIC
    sigma_yy = np.where(soil, rho * g * np.minimum(y, 0.0), 0.0)
    stress[:, 1] = sigma_yy                  # yy
    stress[:, 0] = stress[:, 2] = k0 * sigma_yy  # xx, zz
    sim.stress = stress


def _tool_material():
    """Brushes, tray and shields: Murnaghan solid; moving kinematically, only its density
    enters the equations (SPEC.md section 6)."""
    if hasattr(rs, "ElasticSolid"):
        return rs.ElasticSolid("tool", density=TOOL["density"], bulk_modulus=TOOL["bulk_modulus"],
                               shear_modulus=0.0, murnaghan_n=TOOL["murnaghan_n"])
    return rs.Rigid("tool", density=TOOL["density"])


def metadata(run, resolution, spacing, spin_up=0.0, choices=DEFAULT_CHOICES):
    g, rpm, phi, cohesion = RUNS[run]
    extra = {"spin_up_s": repr(spin_up)} if spin_up else {}
    # Every choice is recorded, so that a run states the geometry it used.
    extra.update({f"choice_{k}": repr(v) for k, v in Choices(*choices)._asdict().items()})
    return {"setup": "brush_sampler", "run": run, "gravity_m_s2": repr(g), "rpm": repr(rpm),
            "friction_angle_deg": repr(phi), "cohesion_Pa": repr(cohesion),
            "resolution": resolution, "spacing_m": repr(spacing), **extra}


def plot_speed(run_dir, times, out_dir=None, name="speed_{time:.3f}s.png"):
    """speed_<t>.png (or `name`, formatted with the snapshot's time [s]) in out_dir (default:
    the run directory) for the snapshots nearest to each time [s]: regolith coloured by
    speed, tools grey."""
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    snaps = sorted(run_dir.glob("snapshot_*.h5"))
    if not snaps:
        raise FileNotFoundError(f"{run_dir}: no snapshot_*.h5 files")
    stamps = []
    for f in snaps:
        with h5py.File(f, "r") as h:
            stamps.append(float(h.attrs["time"]))
    written = []
    for t in times:
        f = snaps[int(np.argmin(np.abs(np.array(stamps) - t)))]
        with h5py.File(f, "r") as h:
            time = float(h.attrs["time"])
            p = h["particles"]
            x = p["position"][:]
            v = p["velocity"][:]
            kind = p["kind"][:]
        speed = np.hypot(v[:, 0], v[:, 1])
        fig, ax = plt.subplots(figsize=(9, 4.2))
        tools = kind != rs.KIND_DYNAMIC
        ax.scatter(x[tools, 0], x[tools, 1], s=1, c="0.6", lw=0)
        sc = ax.scatter(x[~tools, 0], x[~tools, 1], s=1.5, c=speed[~tools], cmap="viridis", lw=0,
                        vmin=0.0, vmax=max(1e-3, np.percentile(speed[~tools], 99.5)))
        fig.colorbar(sc, ax=ax, label="speed [m/s]")
        ax.set(xlim=(-0.2, 0.2), ylim=(-0.06, 0.16), aspect="equal", xlabel="x [m]", ylabel="y [m]",
               title=f"{run_dir.name}: t = {time:.3f} s")
        path = Path(out_dir or run_dir) / name.format(time=time)
        fig.savefig(path, dpi=130, bbox_inches="tight")
        plt.close(fig)
        written.append(path)
    return written


def plot_tray_counts(run_dirs, path):
    """The tray count of the runs against time, Earth runs left and Phobos runs right (by the
    gravity in their metadata), written to `path` (PNG)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from regosph import post

    runs = [post.Run(d) for d in run_dirs]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, g, title in zip(axes, (G_EARTH, G_PHOBOS),
                            ("Earth, g = 9.81 m/s²", "Phobos, g = 5.7e-3 m/s²")):
        group = [r for r in runs if float(r.metadata["gravity_m_s2"]) == g]
        if group:
            post.plot_observer(group, ax=ax, lw=1.4)
        ax.set(xlabel="time [s]", ylabel="regolith particles in the tray", title=title)
        ax.grid(alpha=0.3)
    post.save(fig, path, dpi=130)
    return path


def main(argv=None):
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", choices=list(RUNS), help="row of the run table (SPEC.md section 8)")
    what.add_argument("--sweep", metavar="DIR", help="all 13 runs into DIR/<run>, one after another")
    ap.add_argument("--output", help="run directory (with --run)")
    ap.add_argument("--resolution", choices=list(RESOLUTIONS), default="default")
    ap.add_argument("--spacing", type=float, help="inner-region spacing [m]; overrides --resolution")
    ap.add_argument("--end-time", type=float, default=1.0, help="simulated time [s]")
    ap.add_argument("--plot-times", type=float, nargs="*", default=[0.25, 0.5, 1.0],
                    help="times [s] of the speed plots; those after --end-time are dropped "
                         "(the end time is plotted when none is left)")
    ap.add_argument("--batch", action="store_true",
                    help="with --sweep: write one SLURM job script per run instead of running")
    sw.add_jobs_argument(ap, "with --sweep: ")
    ap.add_argument("--observe-every", type=int, default=20, help="steps between tray counts")
    ap.add_argument("--spin-up", type=float, default=0.0,
                    help="[s] the brushes reach their rate linearly from rest over this time "
                         "(0: at once, as in the paper)")
    ap.add_argument("--bristle-rows", type=int, default=DEFAULT_CHOICES.bristle_rows,
                    help="(*) particle rows across a bristle")
    ap.add_argument("--tray-clearance", type=float, default=DEFAULT_CHOICES.tray_clearance,
                    help="(*) [m] tray floor underside above the bristle-tip circle")
    ap.add_argument("--shield-gap", type=float, default=DEFAULT_CHOICES.shield_gap,
                    help="(*) [m] shield inner radius minus the bristle-tip radius")
    run_control.add_arguments(ap)
    args = ap.parse_args(argv)
    try:
        args.choices = check_choices((args.bristle_rows, args.tray_clearance, args.shield_gap))
    except ValueError as e:
        ap.error("--" + str(e).replace("_", "-", 1))  # "--tray-clearance = ... must ..."
    if args.sweep:
        return sweep(args)
    if not args.output:
        ap.error("--output is required with --run")
    return run_one(args)


def run_one(args):
    spacing = args.spacing or RESOLUTIONS[args.resolution]
    sim = build(args.run, args.resolution, args.spacing, args.spin_up, args.choices)
    root = rs.is_root()  # under MPI only rank 0 prints and plots
    if root:
        print(f"brush sampler {args.run}: {sim.size} particles, inner spacing {spacing * 1e3:.2f} mm")
    status = run_control.run(sim, args, metadata(args.run, args.resolution, spacing, args.spin_up,
                                                  args.choices),
                             diagnostics_every=args.observe_every, observe_every=args.observe_every)
    if status == 0 and root:
        for f in plot_speed(args.output, plot_times(args.plot_times, args.end_time)):
            print(f"wrote {f}")
    return status


def plot_times(requested, end_time):
    """The requested plot times [s] up to the end time. Those after it are dropped, saying so;
    when that leaves none (e.g. --end-time 0.2 with the default 0.25 0.5 1.0), the end time is
    plotted instead."""
    times = [t for t in requested if t <= end_time + 1e-12]
    later = [t for t in requested if t > end_time + 1e-12]
    if later:
        note = f"plot times {', '.join(f'{t:g}' for t in later)} s come after the end time " \
               f"{end_time:g} s: "
        if not times:
            times = [end_time]
            print(note + "plotting the speed at the end time instead")
        else:
            print(note + "not plotted")
    return times


def sweep(args):
    """All runs of the table into <DIR>/<run>, skipping finished ones (regosph.sweep)."""
    rows = [{"run": name} for name in RUNS]
    command = [sys.executable, os.path.abspath(__file__), "--run", "{run}", "--output", "{output}",
               "--resolution", args.resolution, "--end-time", repr(args.end_time),
               "--observe-every", str(args.observe_every), "--plot-times",
               *[repr(t) for t in args.plot_times]]
    if args.spacing:
        command += ["--spacing", repr(args.spacing)]
    if args.spin_up:
        command += ["--spin-up", repr(args.spin_up)]
    command += ["--bristle-rows", str(args.choices.bristle_rows),
                "--tray-clearance", repr(args.choices.tray_clearance),
                "--shield-gap", repr(args.choices.shield_gap)]
    # A directory with an unfinished run (stopped by SIGTERM, which checkpoints) continues.
    status = sw.run_sweep(command, rows, args.sweep, mode="batch" if args.batch else "local",
                          name=lambda row: row["run"], resume_args=["--restart"], jobs=args.jobs)
    finished = [Path(args.sweep) / name for name in RUNS
                if sw.is_finished(Path(args.sweep) / name, args.end_time)]
    if finished:
        print(f"wrote {plot_tray_counts(finished, Path(args.sweep) / 'tray_count.png')}")
    return status


if __name__ == "__main__":
    sys.exit(main())
