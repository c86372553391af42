#!/usr/bin/env python3
"""A rigid sphere dropped into a cohesionless bed (3D), one quarter of it between two
free-slip symmetry planes x = 0 and z = 0 (issue 13, items 2 and 3).

The sphere (diameter --diameter, density --sphere-density) starts with its lowest point one
support radius above the surface, moving down at the speed of a drop from --drop-height h,
sqrt(2 g h), or at --speed; only its vertical motion is free (the symmetry planes hold the
others). The bed (examples/prepared_bed.py with symmetry_planes) is --bed-depth deep and
--bed-radius wide on each side of the axis, prepared once into --bed.

    /usr/bin/python3 examples/sphere_impact.py --drop-height 0.2 --bed runs/uehara/bed \\
        --output runs/uehara/h0.2_steel --end-time 0.15

The bed's regolith stands for the dry glass beads of Uehara et al. (2003): bulk density
1500 kg/m^3 and friction angle = repose angle 24 deg (mu = tan theta_r = 0.45), values typical
of dry glass beads (check them against the paper's table of media before a production run);
elastic moduli of Schaefer et al. (2017)'s regolith. validation/impact_uehara/study.py and validation/impact_low_gravity/study.py
run the tables and compare with the laws.
"""
import argparse
import math
import os
import sys

import regosph as rs
from regosph import run_control, sweep

from regosph.examples import prepared_bed

GLASS_BEADS = dict(density=1500.0, friction_angle=24.0)   # kg/m^3, deg (see above)
DIAMETER = 0.0254                                          # m, a one-inch ball
STEEL, GLASS = 7800.0, 2500.0                              # kg/m^3, sphere densities


def bed_setup(spacing, bed_depth, bed_radius, gravity):
    return prepared_bed.build(bed_depth, bed_radius, gravity, spacing, dim=3,
                              symmetry_planes=("x", "z"), **GLASS_BEADS)


def ensure_bed(bed_dir, spacing, bed_depth, bed_radius, gravity):
    """Prepare the bed into bed_dir unless it holds one (prepared_bed.ensure)."""
    return prepared_bed.ensure(bed_dir, bed_setup, spacing, bed_depth, bed_radius, gravity)


def quarter_sphere_mass(diameter, density):
    """Mass [kg] of the quarter of the sphere that the simulation holds."""
    return density * math.pi * diameter ** 3 / 6.0 / 4.0


def build(bed_dir, speed, spacing=0.005, bed_depth=0.1, bed_radius=0.08, gravity=9.81,
          diameter=DIAMETER, sphere_density=STEEL):
    """The prepared bed of bed_dir with the quarter sphere above the corner x = z = 0."""
    for name, value in (("speed", speed), ("diameter", diameter),
                        ("sphere_density", sphere_density)):
        if not (math.isfinite(value) and value >= 0 and (value > 0 or name == "speed")):
            raise ValueError(f"{name} = {value!r} must be a positive number")
    sim = bed_setup(spacing, bed_depth, bed_radius, gravity)
    rs.load_bed(sim, bed_dir)
    h = prepared_bed.SMOOTHING_FACTOR * spacing
    surface = round(bed_depth / spacing) * spacing
    centre = (0.0, surface + h + diameter / 2, 0.0)
    far = 10.0 * diameter
    quarter = rs.sphere(centre, diameter / 2) & rs.box((0.0, -far, 0.0), (far, far, far))
    metal = sim.add_material(rs.Rigid("sphere", density=sphere_density))
    sim.add_body("sphere", rs.lattice_fill(quarter, spacing), material=metal, motion="rigid",
                 spacing=spacing, smoothing_length=h,
                 mass=quarter_sphere_mass(diameter, sphere_density),
                 fixed_dofs=["x", "z", "rx", "ry", "rz"], velocity=(0.0, -speed, 0.0))
    sim.set_bounds((-1.0, -1.0, -1.0), (1.0, 10.0, 1.0))
    return sim


def metadata(speed, spacing, bed_depth, gravity, diameter, sphere_density, drop_height):
    surface = round(bed_depth / spacing) * spacing
    return {"setup": "sphere_impact", "speed_m_s": repr(speed), "spacing_m": repr(spacing),
            "gravity_m_s2": repr(gravity), "diameter_m": repr(diameter),
            "sphere_density_kg_m3": repr(sphere_density), "drop_height_m": repr(drop_height),
            "surface_m": repr(surface),
            "sphere_mass_kg": repr(quarter_sphere_mass(diameter, sphere_density)),
            "bed_density_kg_m3": repr(GLASS_BEADS["density"]),
            "friction_angle_deg": repr(GLASS_BEADS["friction_angle"])}


def bed_dir(runs_dir, gravity, spacing):
    """The bed of one gravity and resolution, shared by the runs of a study."""
    return os.path.join(runs_dir, f"bed_g{gravity:g}_dx{spacing:g}")


def run_cases(runs_dir, cases, *, spacing=0.005, bed_depth=0.1, bed_radius=0.08,
              diameter=DIAMETER, jobs=1, options=()):
    """The impacts of `cases` into <runs_dir>/<name>, for the studies in validation/.

    cases: dicts with name, gravity [m/s^2], sphere_density [kg/m^3], end_time [s] and either
    drop_height [m] (speed sqrt(2 g h), recorded for the Uehara law) or speed [m/s]. The beds
    (one per gravity, <runs_dir>/bed_g<gravity>_dx<spacing>) are prepared here first; the runs
    go through regosph.sweep as this script's command line: finished runs are skipped, a
    stopped one continues from its checkpoint (every 10 wall minutes), and jobs > 1 runs that
    many at once, one process each; `options`: more of this script's options for every run
    (the dissipation's, run_control.dissipation_command_line). Returns the run directories that
    finished, in case order.
    """
    for g in sorted({c["gravity"] for c in cases}, reverse=True):
        ensure_bed(bed_dir(runs_dir, g, spacing), spacing, bed_depth, bed_radius, g)
    rows = []
    for c in cases:
        row = {"case": c["name"], "bed": bed_dir(runs_dir, c["gravity"], spacing),
               "gravity": repr(c["gravity"]),
               "sphere_density": repr(c["sphere_density"]), "end_time": repr(c["end_time"]),
               "snapshot_interval": repr(c["end_time"] / 10)}  # ten snapshots a run
        if "drop_height" in c:
            row["drop_height"] = repr(c["drop_height"])
        else:
            row["speed"] = repr(c["speed"])
        rows.append(row)
    command = [sys.executable, os.path.abspath(__file__), "--output", "{output}",
               "--spacing", repr(spacing), "--bed-depth", repr(bed_depth),
               "--bed-radius", repr(bed_radius), "--diameter", repr(diameter),
               "--checkpoint-minutes", "10", *options]
    sweep.run_sweep(command, rows, runs_dir, name="case",
                    resume_args=["--restart"], jobs=jobs)
    return [os.path.join(runs_dir, c["name"]) for c in cases
            if sweep.is_finished(os.path.join(runs_dir, c["name"]), c["end_time"])]


def all_finished(runs, cases, runs_dir):
    """Whether run_cases finished every case; if not, says how many did not (stderr)."""
    if len(runs) == len(cases):
        return True
    print(f"{len(cases) - len(runs)} of {len(cases)} runs have not finished "
          f"(see {runs_dir}/sweep.csv)", file=sys.stderr)
    return False


def analyse(run_dir):
    """The penetration of one run: a dict of its parameters (from the metadata), the final
    depth, stopping time and peak deceleration (post.impact_summary), the Uehara et al. (2003)
    depth for H = h + d, the Katsuragi-Durian fit (post.katsuragi_durian_fit) and the scheme's
    share of the dissipation (validation.dissipation_share)."""
    from regosph import post, validation

    run = post.Run(run_dir)
    m = run.metadata_values
    g = m["gravity_m_s2"]
    way = post.penetration(run.rigid_body("sphere"), m["surface_m"], m["diameter_m"] / 2,
                           m["sphere_mass_kg"], (0.0, -g, 0.0))
    row = {"run": os.path.basename(run_dir), **{k: m[k] for k in (
        "speed_m_s", "gravity_m_s2", "diameter_m", "sphere_density_kg_m3", "drop_height_m",
        "spacing_m")}}
    row["froude"] = m["speed_m_s"] / math.sqrt(g * m["diameter_m"])
    row.update(post.impact_summary(way, m["speed_m_s"]))
    h = m["drop_height_m"]
    if math.isfinite(h):
        row["uehara_depth"] = post.uehara_depth(m["sphere_density_kg_m3"],
                                                m["bed_density_kg_m3"], m["diameter_m"],
                                                h + row["depth"], m["friction_angle_deg"])
    fit = post.katsuragi_durian_fit(way, (0.0, -g, 0.0))
    row["kd_d1_m"], row["kd_k_N_m"] = fit["d1"], fit["k_over_m"] * 4 * m["sphere_mass_kg"]
    share = validation.dissipation_share(run.diagnostics)
    row["numerical_share"], row["dissipation_J"] = share.share, share.total
    return row


def study_arguments(doc, out_default):
    """The options the impact studies share: --runs-dir, --out, --spacing (2.5 mm: ~10
    particles across the ball), --jobs and the dissipation's (run_control; run_cases passes
    them on as options=run_control.dissipation_command_line(args))."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--runs-dir", required=True)
    ap.add_argument("--out", default=str(out_default))
    ap.add_argument("--spacing", type=float, default=0.0025, help="[m]")
    sweep.add_jobs_argument(ap)
    run_control.add_dissipation_arguments(ap)
    return ap


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--drop-height", type=float, default=0.2, help="[m]; or --speed")
    ap.add_argument("--speed", type=float, default=None,
                    help="[m/s] at the surface (the drop height is then not recorded)")
    ap.add_argument("--gravity", type=float, default=9.81, help="[m/s^2]")
    ap.add_argument("--diameter", type=float, default=DIAMETER, help="[m]")
    ap.add_argument("--sphere-density", type=float, default=STEEL, help="[kg/m^3]")
    ap.add_argument("--spacing", type=float, default=0.005, help="[m]")
    ap.add_argument("--bed-depth", type=float, default=0.1, help="[m]")
    ap.add_argument("--bed-radius", type=float, default=0.08, help="[m]")
    ap.add_argument("--bed", required=True, help="prepared bed directory (made if missing)")
    run_control.add_dissipation_arguments(ap)
    run_control.add_arguments(ap, end_time=0.15)
    args = ap.parse_args()
    speed = args.speed if args.speed is not None else math.sqrt(2 * args.gravity * args.drop_height)
    drop_height = args.drop_height if args.speed is None else float("nan")  # what set the speed

    def make():
        ensure_bed(args.bed, args.spacing, args.bed_depth, args.bed_radius, args.gravity)
        sim = build(args.bed, speed, args.spacing, args.bed_depth, args.bed_radius,
                    args.gravity, args.diameter, args.sphere_density)
        run_control.apply_dissipation(sim, args)
        return sim, metadata(speed, args.spacing, args.bed_depth, args.gravity, args.diameter,
                             args.sphere_density, drop_height)
    return run_control.build_and_run(make, args, diagnostics_every=5)


if __name__ == "__main__":
    sys.exit(main())
