#!/usr/bin/env python3
"""Incline-flow study of the mu(I) rheology: three angles, each with Monaghan's viscosity, the
Riemann dissipation and the Riemann dissipation with its normal-stress jump, one run at a time (run.py's case at its defaults), against the local
theory's flow rule u_mean / sqrt(g h) = beta h / h_stop(theta), beta = 0.136, and Bagnold's
profile.

    /usr/bin/python3 validation/incline_flow/study.py [--out validation/incline_flow]

Writes results.csv and report.md into --out. Exit status: 0 every required check passed
(beta within 10 % of 0.136 at every angle with the Riemann solver's stress jump; h_stop inferred from
the measured flow rule decreasing with the angle), 1 otherwise, 3 a run blew up.
"""
import argparse
import json
import sys
from pathlib import Path

import run as incline
from regosph import run_control, validation

# The dissipation of each scheme (run_control.dissipation_options); the required checks are
# those of the last, the complete Riemann solver.
SCHEMES = tuple(run_control.dissipation_options(**settings) for settings in (
    {"dissipation": "monaghan"},
    {"dissipation": "riemann", "riemann_stress_jump": "none", "density_diffusion": 0.0},
    {"dissipation": "riemann", "riemann_stress_jump": "continuity_and_strain_rate",
     "density_diffusion": 0.0}))
REQUIRED = incline.scheme_name(SCHEMES[-1])
TOLERANCE = 0.10  # on beta


def inferred_h_stop(row):
    """h_stop [m] that the measured flow rule implies: beta h / Fr."""
    return incline.BETA * row["thickness_m"] / row["froude"]


def checks_of(rows):
    checks = []
    for scheme in (incline.scheme_name(s) for s in SCHEMES):
        mine = sorted((r for r in rows if r["scheme"] == scheme),
                      key=lambda r: r["angle_deg"])
        worst = max(mine, key=lambda r: abs(r["beta"] / incline.BETA - 1.0))
        checks.append(validation.Check(
            f"{scheme}: flow rule beta within {100 * TOLERANCE:.0f} % of {incline.BETA} at every "
            "angle",
            all(abs(r["beta"] / incline.BETA - 1.0) <= TOLERANCE for r in mine),
            f"worst {worst['angle_deg']:g} deg: {worst['beta']:.3f}",
            required=scheme == REQUIRED))
        worst_m = max(mine, key=lambda r: abs(r["beta_mass"] / incline.BETA - 1.0))
        checks.append(validation.Check(
            f"{scheme}: beta at the weight's thickness h_m within {100 * TOLERANCE:.0f} % of "
            f"{incline.BETA} at every angle",
            all(abs(r["beta_mass"] / incline.BETA - 1.0) <= TOLERANCE for r in mine),
            f"worst {worst_m['angle_deg']:g} deg: {worst_m['beta_mass']:.3f}", required=False))
        stops = [inferred_h_stop(r) for r in mine]
        checks.append(validation.Check(
            f"{scheme}: h_stop from the measured flow rule decreases with the angle",
            all(b < a for a, b in zip(stops, stops[1:])),
            ", ".join(f"{s * 1e3:.2f} mm" for s in stops), required=scheme == REQUIRED))
        checks.append(validation.numerical_share_check(
            scheme, {f"{r['angle_deg']:g} deg": validation.DissipationShare.from_row(r)
                for r in mine}))
    return checks


def report_text(rows, checks):
    head = ("| angle [deg] | scheme | h [mm] | phi | u_mean [m/s] (half time) | Bagnold [m/s] | "
            "Fr | h/h_stop | beta | h_m [mm] | beta at h_m | base u / Bagnold's [m/s] | "
            "profile RMS (shear part) | "
            "scheme's share | wall [s] |")
    table = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        share = validation.DissipationShare.from_row(r)
        table.append(
            f"| {r['angle_deg']:g} | {r['scheme']} | {r['thickness_m'] * 1e3:.2f} | "
            f"{r['solid_fraction']:.3f} | {r['mean_velocity_m_s']:.3f} "
            f"({r['half_time_mean_m_s']:.3f}) | {r['bagnold_mean_m_s']:.3f} | "
            f"{r['froude']:.3f} | {r['thickness_m'] / r['h_stop_m']:.2f} | {r['beta']:.3f} | "
            f"{r['thickness_mass_m'] * 1e3:.2f} | {r['beta_mass']:.3f} | "
            f"{r['base_velocity_m_s']:.3f} / {r['base_bagnold_m_s']:.3f} | "
            f"{100 * r['profile_rms_error']:.1f} % ({100 * r['shear_profile_rms_error']:.1f} %) | "
            f"{share.text('J/m')} | {r['wall_seconds']:.0f} |")
    reach = "; ".join(
        f"{r['angle_deg']:g} deg {r['scheme']}: {r['settled_from_m']:.2f}-"
        f"{r['settled_to_m']:.2f} m (tail {r['tail_m']:.2f}, front {r['front_m']:.2f} m)"
        for r in rows if r["settled_from_m"] is not None)
    r0 = rows[0]
    return [
        "# Incline flow of the mu(I) rheology (2D plane strain)", "",
        "Produced by `/usr/bin/python3 validation/incline_flow/study.py` (run.py's case: "
        f"layer {r0['length_m']:g} m long and 10 mm = 20 d thick on a rough base of fixed "
        "wall particles (three rows below y = 0 and every other place of the first row above "
        f"it), spacing {r0['spacing_m'] * 1e3:g} mm, {r0['end_time_s']:g} s, "
        "started from Bagnold's profile and the uniform flow's stress; the window "
        f"{incline.WINDOW[0]:g}-{incline.WINDOW[1]:g} of the length is measured). Parameters: "
        "the glass beads of Jop, Forterre & Pouliquen (2005, J. Fluid Mech. 541, 167; 2006, "
        "Nature 441, 727): mu_s = tan 20.9 deg, mu_2 = tan 32.76 deg, I0 = 0.279, d = 0.5 mm, "
        f"rho_s = 2450 kg/m^3, phi_s = 0.6; h_stop = A d (mu_2 - tan theta)/(tan theta - mu_s) "
        f"with A = {incline.A_HSTOP:.3f} from beta = 0.136 (Pouliquen 1999; GDR MiDi 2004) at "
        "26 deg. The same for every angle.", "",
        "The local theory's flow rule u_mean/sqrt(gh) = beta h/h_stop holds with beta = "
        "(2/5) I0 A sqrt(phi_s cos theta) (0.1374, 0.136, 0.1345 at 24, 26, 28 deg); 'beta' "
        "below is the measured Fr h_stop/h, h the particles' volume per length and phi the "
        "layer's measured solid fraction (with the plain Riemann solver the continuity lets "
        "the layer's density fall under shear; the stress jump keeps it near phi_s). h_m is the thickness the layer's weight would have at phi_s (mass / (phi_s "
        "rho_s) per length), which sets the pressure and I, and 'beta at h_m' the flow rule "
        "measured with it (a check that is not required). 'base u' is the first row's mean velocity (between the base's teeth) against "
        "Bagnold's at its height; the profile RMS is relative to the surface speed, in brackets "
        "that of u - u(first row). A local mu(I) has no h_stop of its own: h_stop(theta) is "
        "Pouliquen's "
        "definition, and the checked h_stop is the one the measured flow rule implies, "
        "beta h / Fr.", "",
        *table, "",
        "Depth-mean velocity along the layer within 5 % of the window's (the end disturbances' "
        f"reach at the end of the run): {reach}.", "",
        *validation.acceptance_section(checks), "",
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    ap.add_argument("--runs-dir", help="keep each run's directory here")
    args = ap.parse_args(argv)
    rows = []
    for angle in incline.ANGLES_DEG:
        for options in SCHEMES:
            name = incline.scheme_name(options)
            out = (str(Path(args.runs_dir) / f"{name.replace(' + ', '_').replace(' ', '_')}"
                                             f"_{angle:g}") if args.runs_dir else None)
            try:
                rows.append(incline.run_case(angle, options, output=out))
            except RuntimeError as e:
                print(f"error: {angle:g} deg {name}: {e}", file=sys.stderr)
                return 3
            print(json.dumps({k: v for k, v in rows[-1].items()
                              if not isinstance(v, list)}), flush=True)
    scalar = [{k: v for k, v in r.items() if not isinstance(v, list)} for r in rows]
    validation.save_results(scalar, args.out)
    (Path(args.out) / "profiles.json").write_text(json.dumps(
        [{k: r[k] for k in ("angle_deg", "scheme", "profile_z_m", "profile_u_m_s",
                            "along_x_m", "along_mean_m_s")} for r in rows]) + "\n")
    checks = checks_of(rows)
    return validation.finish(report_text(rows, checks), checks, args.out)


if __name__ == "__main__":
    sys.exit(main())
