#!/usr/bin/env python3
"""Impact of a sphere into a cohesionless bed against Uehara et al. (2003, Phys. Rev. Lett.
90, 194301), d = 0.14 / mu (rho_b / rho_g)^(1/2) D^(2/3) H^(1/3) (issue 13, item 2), with the
Katsuragi & Durian (2007) force law fitted to one trajectory.

    /usr/bin/python3 validation/impact_uehara/study.py --runs-dir runs/uehara [--spacing 0.0025]
        [--jobs 2]

Runs (examples/sphere_impact.py, a quarter sphere between free-slip symmetry planes) every
drop height of DROP_HEIGHTS for steel and glass spheres that has not finished, then writes
into --out (default: this directory) results.csv, depth.png (measured against predicted,
log-log) and report.md with the acceptance checks: every depth within 30 % of the law, the
fitted exponents on H and rho_b within 0.1 of 1/3 and 1/2. Exits 1 when a check fails.
Cost: see report.md (the spacing sets it; 2.5 mm is ~10 particles across the ball).
"""
import math
import sys
from pathlib import Path

import numpy as np

from regosph import post, run_control, validation
from regosph.examples import sphere_impact as si

HERE = Path(__file__).resolve().parent

DROP_HEIGHTS = (0.05, 0.2, 0.5)                        # m
DENSITIES = {"steel": si.STEEL, "glass": si.GLASS}     # kg/m^3
END_TIME = 0.15                                        # s: the ball stops within ~0.05 s


def exponents(rows):
    """Least-squares exponents of d on H (per density) and on rho_b (per height), averaged."""
    on_h, on_rho = [], []
    for rho in {r["sphere_density_kg_m3"] for r in rows}:
        sel = [r for r in rows if r["sphere_density_kg_m3"] == rho]
        if len(sel) >= 2:
            H = np.array([r["drop_height_m"] + r["depth"] for r in sel])
            on_h.append(np.polyfit(np.log(H), np.log([r["depth"] for r in sel]), 1)[0])
    for h in {r["drop_height_m"] for r in rows}:
        sel = [r for r in rows if r["drop_height_m"] == h]
        if len(sel) >= 2:
            rho = np.array([r["sphere_density_kg_m3"] for r in sel])
            on_rho.append(np.polyfit(np.log(rho), np.log([r["depth"] for r in sel]), 1)[0])
    return (float(np.mean(on_h)) if on_h else float("nan"),
            float(np.mean(on_rho)) if on_rho else float("nan"))


def main():
    ap = si.study_arguments(__doc__, HERE)
    ap.add_argument("--drop-heights", type=float, nargs="+", default=list(DROP_HEIGHTS))
    ap.add_argument("--spheres", nargs="+", default=list(DENSITIES), choices=list(DENSITIES))
    ap.add_argument("--end-time", type=float, default=END_TIME, help="[s]")
    args = ap.parse_args()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = [{"name": f"h{h:g}_{name}", "gravity": 9.81, "drop_height": h,
              "sphere_density": DENSITIES[name], "end_time": args.end_time}
             for name in args.spheres for h in args.drop_heights]
    runs = si.run_cases(args.runs_dir, cases, spacing=args.spacing, jobs=args.jobs,
                        options=run_control.dissipation_command_line(args))
    if not si.all_finished(runs, cases, args.runs_dir):
        return 2
    rows = [si.analyse(d) for d in runs]
    for r in rows:
        r["ratio"] = r["depth"] / r["uehara_depth"]
    df = validation.save_results(rows, out)
    e_h, e_rho = exponents(rows)
    checks = [validation.Check(f"{r['run']}: depth within 30 % of the law",
                               abs(r["depth"] / r["uehara_depth"] - 1) <= 0.3,
                               f"{r['depth'] * 1e3:.1f} mm vs {r['uehara_depth'] * 1e3:.1f} mm")
              for r in rows]
    checks.append(validation.Check("exponent on H within 0.1 of 1/3", abs(e_h - 1 / 3) <= 0.1,
                                   f"{e_h:.3f}"))
    checks.append(validation.Check("exponent on rho_b within 0.1 of 1/2",
                                   abs(e_rho - 0.5) <= 0.1, f"{e_rho:.3f}"))
    checks.append(validation.numerical_share_check("every run", {
        r["run"]: validation.DissipationShare.from_row(r, "dissipation_J") for r in rows}))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.loglog(df["uehara_depth"], df["depth"], "o")
    lim = [0.5 * df[["uehara_depth", "depth"]].min().min(), 2 * df[["uehara_depth", "depth"]].max().max()]
    ax.loglog(lim, lim, "k-", lim, [0.7 * v for v in lim], "k:", lim, [1.3 * v for v in lim], "k:")
    ax.set(xlabel="Uehara et al. (2003) depth [m]", ylabel="simulated depth [m]")
    post.save(fig, out / "depth.png")
    kd = rows[0]
    text = ["# Sphere impact against Uehara et al. (2003)", "",
            f"Spacing {args.spacing} m, D = {si.DIAMETER} m, bed: glass-bead stand-in "
            f"({si.GLASS_BEADS}), quarter domain with free-slip symmetry planes.", "",
            validation.results_table(df, ["run", "speed_m_s", "depth", "uehara_depth", "ratio",
                                          "stopping_time", "peak_deceleration", "kd_d1_m",
                                          "kd_k_N_m", "numerical_share"]), "",
            f"Fitted exponents: H {e_h:.3f} (law 1/3), rho_b {e_rho:.3f} (law 1/2).",
            f"Katsuragi-Durian fit of {kd['run']}: d1 = {kd['kd_d1_m']:.4g} m, "
            f"k = {kd['kd_k_N_m']:.4g} N/m.", "", *validation.acceptance_section(checks)]
    return validation.finish(text, checks, out)


if __name__ == "__main__":
    sys.exit(main())
