#!/usr/bin/env python3
"""Soil-collapse validation: run the Bui (2008) collapse and compare it with the experiment.

    /usr/bin/python3 validation/soil_collapse/run.py --output runs/soil_collapse [--overwrite]
        [--spacing 2.582e-3] [--viscosity-sound-speed 0] [--compare-only]
        [--kernel-correction] [--av-balsara] [--dissipation riemann]
        [--law MohrCoulomb] [--dilatancy-angle 19.8] [--gravity 9.81e-3] [--geostatic]
        [--riemann-pairs separating] [--density-diffusion 0.1] [--riemann-stress-jump continuity]
        [--riemann-reconstruction] [--hourglass-control 4]
        [--law MuIRheology --grain-diameter 1.5e-3]

Writes the run (snapshots, series.xdmf, diagnostics.csv, run.json) and collapse.png,
report.json, report.txt into the output directory. Exit status: 0 the comparison passed; 1 the
surface RMS exceeds 5 mm or the runout misses the experiment's by more than 2 cm; 2 bad input;
4 the experiment's reference data are missing (checked before the run, set
REGOSPH_REFERENCE_DIR); the other statuses of regosph.run_control (3 blow-up, 5 output could
not be written, 128 + signal).
"""
import argparse
import sys
from pathlib import Path

import compare
import regosph as rs
from regosph import run_control, validation
from regosph.examples import soil_collapse

EXIT_NO_REFERENCE = 4  # apart from 1, a comparison that failed


def viscosity_text(sound_speed):
    """How the figure names the artificial viscosity's sound speed [m/s]: 0 means the soil's
    own elastic wave speed, which it states."""
    if sound_speed == 0.0:
        own = rs.DruckerPrager("soil", **soil_collapse.SOIL).wave_speed
        return f"viscosity sound speed: the soil's own ({own:.1f} m/s)"
    return f"viscosity sound speed: {sound_speed:g} m/s"


def numerics_text(args):
    """The physics and numerics options the figure's title names, when any differs from the
    paper's setting."""
    on = [name for name, flag in (
        ("Mohr-Coulomb", args.law == "MohrCoulomb"),
        (f"psi = {args.dilatancy_angle} deg", args.dilatancy_angle is not None),
        (f"g = {args.gravity:g} m/s^2", args.gravity != soil_collapse.GRAVITY),
        ("geostatic start", args.geostatic),
        ("kernel correction", args.kernel_correction), ("Balsara switch", args.av_balsara),
        ("Morris-Monaghan switch", args.av_switch),
        ("Riemann dissipation", args.dissipation == "riemann"),
        (f"stress jump ({args.riemann_stress_jump.replace('_', ' ')})",
         args.riemann_stress_jump != "none"),
        ("damping separating pairs", args.riemann_pairs == "separating"),
        ("linear reconstruction", args.riemann_reconstruction),
        (f"hourglass control {args.hourglass_control:g}", args.hourglass_control > 0.0),
        (f"density diffusion {args.density_diffusion:g}", args.density_diffusion > 0.0),
        (f"d = {args.grain_diameter * 1e3:g} mm", args.law == "MuIRheology")) if flag]
    return ", " + " + ".join(on) if on else ""


def parser():
    """The command line of the collapse validation."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", required=True, help="run directory")
    ap.add_argument("--spacing", type=float, default=soil_collapse.PAPER_SPACING,
                    help="particle spacing [m] (default: the paper's 2.582e-3)")
    ap.add_argument("--end-time", type=float, default=1.0, help="simulated time [s]")
    ap.add_argument("--viscosity-sound-speed", type=float,
                    default=soil_collapse.VISCOSITY_SOUND_SPEED,
                    help="sound speed of the artificial viscosity [m/s]; 0 (default) = the "
                         "soil's own elastic wave speed; the paper used 600")
    ap.add_argument("--kernel-correction", action="store_true",
                    help="the soil uses the kernel gradient correction (docs/guide/physics.md; "
                         "off by default)")
    run_control.add_dissipation_arguments(ap)
    ap.add_argument("--law", choices=soil_collapse.LAWS, default="DruckerPrager",
                    help="the soil's strength law: Drucker-Prager with the plane-strain "
                         "constants (default, the paper's), Mohr-Coulomb (exact in plane "
                         "strain; docs/guide/physics.md 'Strength surfaces') or mu(I) (Jop et "
                         "al. 2006's glass-bead Delta mu and I_0, mu_s = tan phi)")
    ap.add_argument("--mu-i-rise", type=float, default=soil_collapse.MU_I_RISE,
                    help="mu(I)'s Delta mu = mu_2 - mu_s (default Jop et al.'s 0.262; a tiny "
                         "value leaves mu = mu_s, the rate-independent surface)")
    ap.add_argument("--grain-diameter", type=float, default=soil_collapse.GRAIN_DIAMETER,
                    help="mu(I)'s grain diameter d [m] (default 1.5e-3, the larger bars)")
    ap.add_argument("--dilatancy-angle", type=float, default=None,
                    help="dilatancy angle psi [deg] (default: the paper's 0)")
    ap.add_argument("--gravity", type=float, default=soil_collapse.GRAVITY,
                    help="gravity [m/s^2] (default 9.81; at g/1000 scale --end-time by "
                         "sqrt(1000))")
    ap.add_argument("--geostatic", action="store_true",
                    help="the block starts in its own weight (Jaky's K0), as behind the gate "
                         "before its release; default stress-free (the paper's)")
    ap.add_argument("--wall-contact", choices=("tension_cut", "unilateral", "bonded"),
                    default=None,
                    help="the soil's contact with the walls (physics.wall_contact; default "
                         "the run's, tension_cut)")
    ap.add_argument("--compare-only", action="store_true",
                    help="do not run; compare the existing run in --output")
    run_control.add_arguments(ap)
    return ap


def build_case(args):
    """The collapse of the command line's options, and the run's metadata (the options that
    differ from the paper's setting; run.json records them in the materials and physics too)."""
    sim = soil_collapse.build(args.spacing, args.viscosity_sound_speed,
                              kernel_correction=args.kernel_correction,
                              av_balsara=args.av_balsara, dissipation=args.dissipation,
                              law=args.law, dilatancy_angle=args.dilatancy_angle,
                              gravity=args.gravity, geostatic=args.geostatic,
                              grain_diameter=args.grain_diameter,
                              mu_i_rise=args.mu_i_rise)
    run_control.apply_dissipation(sim, args)
    if args.wall_contact is not None:
        sim.physics.wall_contact = args.wall_contact
    metadata = {"setup": "soil_collapse validation", "spacing_m": repr(args.spacing),
                "viscosity_sound_speed_m_s": repr(args.viscosity_sound_speed)}
    if args.kernel_correction:
        metadata["kernel_correction"] = "on"
    if args.av_balsara:
        metadata["av_balsara"] = "on"
    if args.av_switch:
        metadata["av_switch"] = "Morris & Monaghan 1997"
    if args.dissipation != "monaghan":
        metadata["dissipation"] = args.dissipation
    if args.riemann_stress_jump != "none":
        metadata["riemann_stress_jump"] = args.riemann_stress_jump
    if args.law != "DruckerPrager":
        metadata["law"] = args.law
    if args.law == "MuIRheology":
        metadata["grain_diameter_m"] = repr(args.grain_diameter)
        metadata["mu_i_rise"] = repr(args.mu_i_rise)
    if args.dilatancy_angle is not None:
        metadata["dilatancy_angle_deg"] = repr(args.dilatancy_angle)
    if args.geostatic:
        metadata["initial_stress"] = "geostatic"
    if args.gravity != soil_collapse.GRAVITY:
        metadata["gravity_m_s2"] = repr(args.gravity)
    return sim, metadata


def compare_run(args, out):
    """Compares the run in `out` with the experiment: report, figure and exit status."""
    snapshots = sorted(out.glob("snapshot_*.h5"))
    if len(snapshots) < 2:
        sys.exit(f"error: '{out}' holds fewer than two snapshots; nothing to compare")
    initial, ids0, _ = compare.read_soil(snapshots[0])
    final, ids1, t_final = compare.read_soil(snapshots[-1])
    if not (ids0.shape == ids1.shape and (ids0 == ids1).all()):
        sys.exit("error: the first and last snapshots hold different particles")
    metrics = compare.compare(initial, final, args.spacing,
                              soil_collapse.SMOOTHING_FACTOR * args.spacing)
    metrics.update(time_s=t_final, spacing_m=args.spacing,
                   viscosity_sound_speed_m_s=args.viscosity_sound_speed,
                   **compare.energy_shares(out / "diagnostics.csv"))
    compare.plot(initial, final, metrics, out / "collapse.png",
                 f"Soil collapse at t = {t_final:.2f} s, spacing {args.spacing * 1e3:.3f} mm, "
                 f"{viscosity_text(args.viscosity_sound_speed)}{numerics_text(args)}", args.spacing)
    print(compare.write_report(metrics, out), end="")
    print(f"figure: {out / 'collapse.png'}")
    return validation.exit_status(compare.acceptance(metrics))


def main(argv=None):
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    args = parser().parse_args(argv)
    out = Path(args.output)
    # The comparison needs the experiment's data: find out before running for minutes.
    try:
        compare.load_reference()
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_NO_REFERENCE
    if not args.compare_only:
        sim, metadata = build_case(args)
        status = run_control.run(sim, args, metadata=metadata)
        if status != 0:
            return status
        if not rs.is_root():
            return 0  # under MPI, rank 0 compares and writes the report
    return compare_run(args, out)


if __name__ == "__main__":
    sys.exit(main())
