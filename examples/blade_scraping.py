#!/usr/bin/env python3
"""A blade scraping a regolith bed under Phobos gravity, plane strain: force, power, mass moved.

Bed: examples/prepared_bed.py, BED_WIDTH x `--bed-depth`, the regolith of the other studies
(Schaefer et al. 2017: 1300 kg/m^3, K = 3.33 MPa, mu = 370 kPa, phi = 42 deg, `--cohesion`
c), prepared at rest in Phobos' gravity (5.7e-3 m/s^2, SPEC.md section 8) into `--bed`.
Blade: a vertical steel plate BLADE_THICKNESS x BLADE_HEIGHT, no-slip, a tool with prescribed
motion (motion="kinematic"). Its edge starts one support radius above the surface, out of the
regolith's reach; it goes down at `--speed` to `--cut-depth` below the surface, then along +x at
`--speed` over `--travel`, and stops.

    /usr/bin/python3 examples/blade_scraping.py --bed runs/blade/bed --output runs/blade/run

Writes in --output the run (snapshots, diagnostics.csv with blade.force_x/y [N/m],
blade.power [W/m], blade.work [J/m]), `blade.png` (the final state coloured by displacement;
force and power against time) and `report.json`:
- force_x, force_y [N/m]: mean over the second half of the horizontal travel (the cut is then
  past the transient of its start); force_x < 0 opposes the motion;
- power [W/m]: mean power the regolith takes from the blade over the same window, -F.v;
- mass_moved [kg/m]: regolith displaced by more than one spacing since t = 0; mass_heaped
  [kg/m]: regolith above the initial surface at the end;
- for scale, Rankine's passive force 1/2 K_p rho g d^2 (K_p = (1 + sin phi)/(1 - sin phi),
  cohesionless) and the inertial force rho v^2 d of soil brought to the blade's speed.

At the defaults (1 cm, 2.55 s, ~20 s on 2 cores) the steady force is about -3 N/m: 8 times the
inertial estimate (0.39 N/m) and 190 times Rankine's (0.017 N/m); it changes by 7 % when the
artificial viscosity's alpha goes from 0.3 to 0.1 and by ~10 % between runs whose time steps
differ (snapshot times), so it is the soil's elastic-plastic response that carries it, not the
viscosity. Not yet checked for convergence in spacing: compare runs with each other, not with a
formula.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

import regosph as rs
from regosph import post, run_control

from regosph.examples import prepared_bed

G_PHOBOS = 5.7e-3                 # m/s^2 (SPEC.md section 8)
BED_WIDTH = 0.5                   # m
BLADE_THICKNESS = 0.02            # m
BLADE_HEIGHT = 0.08               # m
BLADE_START_X = 0.1               # m, the blade's front face at t = 0
BLADE_DENSITY = 7800.0            # kg/m^3, steel (a tool's mass does not enter its motion)


def check_options(**options):
    """ValueError naming the first option that is not a positive number."""
    for name, value in options.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} = {value!r} must be a positive number")
    if options["cut_depth"] >= options["bed_depth"]:
        raise ValueError(f"cut_depth = {options['cut_depth']} must be less than bed_depth = "
                         f"{options['bed_depth']}")
    if BLADE_START_X + BLADE_THICKNESS + options["travel"] > BED_WIDTH - 0.05:
        raise ValueError(f"travel = {options['travel']} m takes the blade within 5 cm of the "
                         f"box's far wall (at most {BED_WIDTH - 0.05 - BLADE_START_X - BLADE_THICKNESS:.3g} m)")


def bed_setup(bed_depth, spacing, cohesion):
    return prepared_bed.build(bed_depth, BED_WIDTH, G_PHOBOS, spacing, cohesion=cohesion)


def schedule(spacing, cut_depth, speed, travel):
    """(translation segments for rs.Kinematics, time the descent ends [s], end time [s])."""
    drop = prepared_bed.SMOOTHING_FACTOR * spacing + cut_depth
    t_down = drop / speed
    t_end = t_down + travel / speed
    return [(t_down, (0.0, -speed)), (t_end, (speed, 0.0))], t_down, t_end


def build(bed_dir, bed_depth=0.1, spacing=0.01, cohesion=0.0, cut_depth=0.03, speed=0.1,
          travel=0.2):
    """The prepared bed of bed_dir with the blade above it; returns (sim, metadata)."""
    check_options(bed_depth=bed_depth, spacing=spacing, cut_depth=cut_depth, speed=speed,
                  travel=travel)
    sim = bed_setup(bed_depth, spacing, cohesion)
    rs.load_bed(sim, bed_dir)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    surface = round(bed_depth / spacing) * spacing
    x0, y0 = BLADE_START_X, surface + h
    blade = rs.rectangle((x0 - BLADE_THICKNESS, y0), (x0, y0 + BLADE_HEIGHT))
    segments, t_down, t_end = schedule(spacing, cut_depth, speed, travel)
    steel = sim.add_material(rs.Rigid("steel", density=BLADE_DENSITY))
    sim.add_body("blade", rs.lattice_fill(blade, spacing), material=steel, motion="kinematic",
                 spacing=spacing, smoothing_length=h,
                 kinematics=rs.Kinematics(translation=segments))
    sim.set_bounds((-1.0, -1.0), (BED_WIDTH + 1.0, 10.0))
    metadata = {"setup": "blade_scraping", "spacing_m": repr(spacing),
                "gravity_m_s2": repr(G_PHOBOS), "cohesion_Pa": repr(cohesion),
                "surface_m": repr(surface), "cut_depth_m": repr(cut_depth),
                "speed_m_s": repr(speed), "travel_m": repr(travel),
                "descent_end_s": repr(t_down), "end_time_s": repr(t_end)}
    return sim, metadata


def _float(run, key):
    return float(run.metadata_values[key])


def measure(run_dir):
    """report.json's figures from a finished run (see the module's docstring)."""
    run = post.Run(run_dir)
    loads = run.body_loads("blade")
    t_down, t_end = _float(run, "descent_end_s"), _float(run, "end_time_s")
    steady = loads[(loads["time"] >= 0.5 * (t_down + t_end)) & (loads["time"] <= t_end)]
    speed, spacing = _float(run, "speed_m_s"), _float(run, "spacing_m")
    first, last = run.snapshot(0), run.snapshot(len(run) - 1)
    soil = first.select(material="regolith")
    moved = np.linalg.norm(last["position"][soil] - first["position"][soil], axis=1) > spacing
    mass = first["mass"][soil]
    heaped = last["position"][soil][:, 1] > _float(run, "surface_m")
    rho, phi = prepared_bed.REGOLITH["density"], math.radians(prepared_bed.REGOLITH["friction_angle"])
    depth = _float(run, "cut_depth_m")
    k_p = (1 + math.sin(phi)) / (1 - math.sin(phi))
    return {"force_x_N_per_m": float(steady["force_x"].mean()),
            "force_y_N_per_m": float(steady["force_y"].mean()),
            "power_W_per_m": float(steady["power"].mean()),
            "minus_force_dot_velocity_W_per_m": float(-steady["force_x"].mean() * speed),
            "work_J_per_m": float(loads["work"].iloc[-1]),
            "mass_moved_kg_per_m": float(mass[moved].sum()),
            "mass_heaped_kg_per_m": float(mass[heaped].sum()),
            "rankine_passive_N_per_m": 0.5 * k_p * rho * _float(run, "gravity_m_s2") * depth ** 2,
            "inertial_N_per_m": rho * speed ** 2 * depth,
            "steady_window_s": [0.5 * (t_down + t_end), t_end]}


def plot(run_dir, out_path):
    """blade.png: the final state coloured by displacement; the blade's loads and power."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = post.Run(run_dir)
    first, last = run.snapshot(0), run.snapshot(len(run) - 1)
    soil, blade = last.select(material="regolith"), last.select(body="blade")
    disp = np.linalg.norm(last["position"] - first["position"], axis=1)
    fig, (ax, axf, axp) = plt.subplots(3, 1, figsize=(8, 9), constrained_layout=True,
                                       gridspec_kw={"height_ratios": [1.3, 1, 1]})
    sc = ax.scatter(*last["position"][soil, :2].T, c=1e3 * disp[soil], s=6, cmap="viridis")
    ax.scatter(*last["position"][blade, :2].T, c="0.3", s=6)
    ax.set_aspect("equal")
    ax.set(xlabel="x [m]", ylabel="y [m]", title=f"t = {last.time:.2f} s, Phobos gravity")
    fig.colorbar(sc, ax=ax, label="displacement [mm]")
    loads = run.body_loads("blade")
    axf.plot(loads["time"], loads["force_x"], label="F_x (+ along the motion)")
    axf.plot(loads["time"], loads["force_y"], "--", label="F_y")
    axf.set_ylabel("force on the blade [N/m]")
    axf.legend(fontsize="small")
    axp.plot(loads["time"], loads["power"])
    axp.set(xlabel="time [s]", ylabel="power [W/m]")
    for a in (axf, axp):
        a.axvline(_float(run, "descent_end_s"), color="0.6", lw=0.8)
        a.axhline(0.0, color="0.8", lw=0.5)
    fig.savefig(out_path, dpi=120)
    plt.close(fig)


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bed", required=True, help="prepared bed directory (made if missing)")
    ap.add_argument("--output", required=True)
    ap.add_argument("--bed-depth", type=float, default=0.1, help="[m]")
    ap.add_argument("--spacing", type=float, default=0.01, help="[m]")
    ap.add_argument("--cohesion", type=float, default=0.0, help="[Pa]")
    ap.add_argument("--cut-depth", type=float, default=0.03, help="[m] below the surface")
    ap.add_argument("--speed", type=float, default=0.1, help="[m/s], down and along")
    ap.add_argument("--travel", type=float, default=0.2, help="[m] along x")
    run_control.add_arguments(ap)
    args = ap.parse_args()

    def make():
        prepared_bed.ensure(args.bed, bed_setup, args.bed_depth, args.spacing, args.cohesion)
        sim, metadata = build(args.bed, args.bed_depth, args.spacing, args.cohesion,
                              args.cut_depth, args.speed, args.travel)
        args.end_time = float(metadata["end_time_s"])  # the travel at the speed sets the run
        return sim, metadata
    status = run_control.build_and_run(make, args, diagnostics_every=5)
    if status == 0 and rs.is_root():
        report = measure(args.output)
        with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
        plot(args.output, os.path.join(args.output, "blade.png"))
        print(json.dumps(report, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
