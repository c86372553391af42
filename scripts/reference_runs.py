#!/usr/bin/env python3
"""Runs that show a restructuring left the results alone, and their comparison.

    /usr/bin/python3 scripts/reference_runs.py run DIR [--cases collapse rings ...]
    /usr/bin/python3 scripts/reference_runs.py compare BEFORE AFTER

`run` writes one run directory per case into DIR (PYTHONPATH must reach the build's package,
as `make` sets it). `compare` checks that every case's final snapshot holds the same arrays, to
the bit, in BEFORE and AFTER, and that their diagnostics.csv and bodies.csv are identical
(wall-clock columns excepted); it prints one line per case and exits 1 on any difference.

The cases cover every variant of the pair loop that a study takes:
- collapse: the soil collapse at the paper's resolution (validation/soil_collapse/run.py);
- sampler, sampler3d, rigid, corrected: the MPI gate's cases (tests/mpi/run_case.py), which
  exercise kinematic tools with loads, 3D, rigid bodies with contact, and the gradient
  pre-pass with Balsara's switch;
- rings, blocks3d: the elastic rings and cubes of the side-by-side benchmarks (artificial
  stress, XSPH);
- coulomb: a cohesive block sliding on a Coulomb wall (wall friction);
- lander_sleep: the 3D lander of validation/lander/study.py (--dim 3) at 2.5 cm, 30 deg, on
  the 0.3 m bed, to 1 s, with sleeping regions (physics.sleep, sleep_speed 1e-3 m/s); its bed
  is prepared once into DIR/lander_bed_0.30_0.025 (a few minutes).
"""
import argparse
import math
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = "/usr/bin/python3"

CASES = ["collapse", "sampler", "sampler3d", "rigid", "corrected", "rings", "blocks3d", "coulomb",
         "lander_sleep"]

# Columns of diagnostics.csv that measure the computer, not the state.
CLOCK_COLUMNS = ("wall_seconds", "threads", "wall_time")


def blocks3d(out):
    sys.path.insert(0, str(REPO / "bench"))
    import blocks3d_bench
    import regosph as rs
    sim, _ = blocks3d_bench.build_regosph(rs, 10)
    sim.run(2e-4, output_dir=str(out), overwrite=True, snapshot_interval=1e-4,
            progress_interval=0)


def coulomb(out):
    import regosph as rs
    dx = 2.5e-3
    beta = math.radians(35.0)
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (9.81 * math.sin(beta), -9.81 * math.cos(beta), 0.0)
    soil = sim.add_material(rs.DruckerPrager("soil", density=2000, bulk_modulus=5e6,
                                             poisson_ratio=0.3, friction_angle=30, cohesion=1e5))
    steel = sim.add_material(rs.Rigid("steel", density=2000))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.02, 0.0), (0.06, 0.02)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    sim.add_body("plane", rs.lattice_fill(rs.rectangle((-0.02, -3 * dx), (0.3, 0.0)), dx),
                 material=steel, motion="fixed", spacing=dx, smoothing_length=2.5 * dx,
                 wall_friction=0.5)
    sim.run(0.04, output_dir=str(out), overwrite=True, snapshot_interval=0.02,
            progress_interval=0)


def lander_sleep(out):
    from regosph.examples import lander_3d
    spacing, depth, incidence = 0.025, 0.3, 30.0
    bed = lander_3d.ensure_bed(str(out.parent / f"lander_bed_{depth:.2f}_{spacing:g}"), spacing,
                               depth)
    sim = lander_3d.build(bed, incidence, spacing, depth)
    sim.physics.sleep = True
    sim.physics.sleep_speed = 1e-3  # m/s
    sim.run(1.0, output_dir=str(out), overwrite=True, snapshot_interval=0.05,
            diagnostics_every=5, progress_interval=0,
            metadata=lander_3d.metadata(incidence, spacing, depth))


def run_case(case, out):
    if case == "collapse":
        cmd = [PYTHON, str(REPO / "validation/soil_collapse/run.py"), "--output", str(out),
               "--overwrite"]
    elif case in ("sampler", "sampler3d", "rigid", "corrected"):
        cmd = [PYTHON, str(REPO / "tests/mpi/run_case.py"), case, "--output", str(out)]
    elif case == "rings":
        cmd = [PYTHON, str(REPO / "examples/rubber_rings.py"), "--output", str(out),
               "--overwrite"]
    else:
        cmd = [PYTHON, __file__, "_inline", case, str(out)]
    print(f"{case}: {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # The collapse exits 1 when it misses the experiment; its snapshots still count.
    if done.returncode not in (0, 1) or not list(Path(out).glob("snapshot_*.h5")):
        sys.exit(f"{case}: exit status {done.returncode}\n{done.stderr[-2000:]}")


def final_snapshot(run):
    files = sorted(Path(run).glob("snapshot_*.h5"))
    if not files:
        raise SystemExit(f"{run}: no snapshots")
    return files[-1]


def compare_tables(a, b):
    import pandas as pd
    if not a.exists() and not b.exists():
        return None
    ta, tb = pd.read_csv(a), pd.read_csv(b)
    keep = [c for c in ta.columns if not any(k in c for k in CLOCK_COLUMNS)]
    if list(ta.columns) != list(tb.columns) or len(ta) != len(tb):
        return f"{a.name}: columns or rows differ"
    for c in keep:
        if not ta[c].equals(tb[c]):
            return f"{a.name}: column {c} differs"
    return None


def compare(before, after):
    import h5py
    import numpy as np
    bad = 0
    for case in CASES:
        ra, rb = Path(before) / case, Path(after) / case
        if not ra.exists() or not rb.exists():
            print(f"{case}: not in both")
            continue
        fa, fb = final_snapshot(ra), final_snapshot(rb)
        problems = []
        if fa.name != fb.name:
            problems.append(f"final snapshots {fa.name} / {fb.name}")
        with h5py.File(fa, "r") as ha, h5py.File(fb, "r") as hb:
            pa, pb = ha["particles"], hb["particles"]
            if ha.attrs["step"] != hb.attrs["step"]:
                problems.append(f"step {ha.attrs['step']} / {hb.attrs['step']}")
            for name in pa:
                if name not in pb:
                    problems.append(f"{name} missing")
                elif not np.array_equal(pa[name][:], pb[name][:]):
                    diff = np.max(np.abs(pa[name][:].astype(float) - pb[name][:].astype(float)))
                    problems.append(f"{name} differs (max {diff:.3e})")
        for table in ("diagnostics.csv", "bodies.csv"):
            why = compare_tables(ra / table, rb / table)
            if why:
                problems.append(why)
        print(f"{case}: {'identical' if not problems else 'DIFFERENT: ' + '; '.join(problems)}"
              f" ({fa.name})")
        bad += bool(problems)
    print("RESULT", "identical" if bad == 0 else f"{bad} cases differ")
    return 1 if bad else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_inline":
        {"blocks3d": blocks3d, "coulomb": coulomb,
         "lander_sleep": lander_sleep}[sys.argv[2]](Path(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--cases", nargs="*", choices=CASES, default=CASES)
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = ap.parse_args()
    if args.what == "compare":
        return compare(args.before, args.after)
    for case in args.cases:
        run_case(case, Path(args.dir) / case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
