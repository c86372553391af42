#!/usr/bin/env python3
"""The sphere impact of validation/impact_uehara under low gravity (issue 13, item 3): the
same impact speed at g, g/10, g/100 and g/1000, and a series at fixed Froude number
Fr = v / sqrt(g D) (the speed scaled with sqrt(g)).

    /usr/bin/python3 validation/impact_low_gravity/study.py --runs-dir runs/lowg [--spacing 0.0025]

Writes into --out (default: this directory) results.csv (final depth, stopping time, peak
deceleration, Froude number per run), froude.png (the three against Fr) and report.md.
Published low-gravity impact experiments to compare with (see report.md): Murdoch et al.
(2017, MNRAS 468, 1259; drop-tower impacts at ~0.1-0.4 m/s into sand at reduced gravity) and
Altshuler et al. (2014, GRL 41, 3032; spheres settling into granular beds under gravities
from ~0.4 g to 1.2 g). The runs at g/100 and g/1000 last long in simulated time (slow
stopping): --end-time scales as END_TIME * sqrt(g0 / g) unless given.
"""
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "examples"))

import sphere_impact as si  # noqa: E402
from regosph import post  # noqa: E402

G0 = 9.81                                   # m/s^2
GRAVITIES = (G0, G0 / 10, G0 / 100, G0 / 1000)
SPEED = 1.0                                 # m/s, the fixed-speed series
FROUDE = SPEED / math.sqrt(G0 * si.DIAMETER)  # the fixed-Froude series: Fr of the g0 run
END_TIME = 0.15                             # s at g0


def cases(gravities):
    """(name, gravity, speed) of both series."""
    out = [(f"v{SPEED:g}_g{g:.4g}", g, SPEED) for g in gravities]
    out += [(f"fr{FROUDE:.3g}_g{g:.4g}", g, FROUDE * math.sqrt(g * si.DIAMETER))
            for g in gravities if g != G0]
    return out


def main():
    ap = si.study_arguments(__doc__, HERE)
    ap.add_argument("--gravities", type=float, nargs="+", default=list(GRAVITIES))
    ap.add_argument("--end-time", type=float, default=None, help="[s], for every run")
    args = ap.parse_args()
    import pandas as pd

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, g, v in cases(args.gravities):
        end = args.end_time if args.end_time else END_TIME * math.sqrt(G0 / g)
        d = si.run_case(args.runs_dir, name, v, spacing=args.spacing, gravity=g, end_time=end)
        rows.append(si.analyse(d))
    df = pd.DataFrame(rows)
    df.to_csv(out / "results.csv", index=False)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, col, label in zip(axes, ("depth", "stopping_time", "peak_deceleration"),
                              ("final depth [m]", "stopping time [s]",
                               "peak deceleration [m/s^2]")):
        for series, marker in (("v", "o"), ("fr", "s")):
            sel = df["run"].str.startswith(series)
            ax.loglog(df["froude"][sel], df[col][sel], marker, label=f"{series} series")
        ax.set(xlabel="Froude number v / sqrt(g D)", ylabel=label)
    axes[0].legend()
    post.save(fig, out / "froude.png")
    text = ["# Sphere impact under low gravity", "", f"Spacing {args.spacing} m, steel sphere "
            f"D = {si.DIAMETER} m; fixed speed {SPEED} m/s, fixed Froude number {FROUDE:.3g}.",
            "", post.to_markdown(df[["run", "gravity_m_s2", "speed_m_s", "froude", "depth",
                                     "stopping_time", "peak_deceleration"]], ".3g"), "",
            "Compare with: Murdoch et al. (2017, MNRAS 468, 1259), drop-tower impacts into "
            "granular material at reduced gravity; Altshuler et al. (2014, GRL 41, 3032), "
            "penetration under different gravities. State what they found next to these "
            "figures when the study is run at its resolution."]
    (out / "report.md").write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
