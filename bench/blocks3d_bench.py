#!/usr/bin/env python3
"""Benchmark: two colliding elastic cubes in 3D, regosph side by side with PySPH (issue 14).

The peer is ../shared/peers/pysph_blocks3d.py (set REGOSPH_PEERS_DIR to move it): PySPH's own
elastic-solid equations (those of its rings example, with the 3D velocity gradient) on two
cubes of nx^3 particles (edge 20 mm, spacing 20 mm / nx, 2 spacings apart) flying at each other
at 0.059 c0 each. The material, the viscosity constants, the artificial stress, XSPH and the
fixed step dt = 1e-8 s are those of the rings (bench/rings_bench.py, whose runner, timing and
cross-check this script reuses); the kernel reaches 3 spacings, so the cubes interact from the
first step. Timed: the integration loop of each code, on the same threads, the codes taking
turns in blocks of 25 steps (rings_bench.timed).

    OMP_NUM_THREADS=2 PYTHONPATH=build/python /usr/bin/python3 bench/blocks3d_bench.py
        [--nx 20] [--steps 40] [--check-steps 100] [--codes pysph regosph] [--json out.json]
"""
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rings_bench as rb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PEERS = Path(os.environ.get("REGOSPH_PEERS_DIR", ROOT.parent / "shared" / "peers"))
EDGE = 0.02  # cube edge [m]


def cube_particles(nx):
    """Positions (N, 3) [m] and cube label (0: x < 0, moving +x), built with the peer's
    floating-point operations (the script checks that both codes start identically)."""
    dx = EDGE / nx
    g = (np.arange(nx) + 0.5) * dx - 0.01
    x, y, z = (a.ravel() for a in np.meshgrid(g, g, g, indexing="ij"))
    gap = 2 * dx
    x = np.concatenate([x - 0.01 - gap / 2, x + 0.01 + gap / 2])
    pos = np.column_stack([x, np.concatenate([y, y]), np.concatenate([z, z])])
    return pos, (x >= 0).astype(int)


def build_regosph(rs, nx):
    pos, label = cube_particles(nx)
    dx = EDGE / nx
    sim = rs.Simulation(dim=3)
    mat = rb.pysph_solid(rs, sim)
    for r, name, u in ((0, "left cube", rb.SPEED), (1, "right cube", -rb.SPEED)):
        # PySPH's h = 1.5 dx; regosph's h is the support radius 2 h_PySPH.
        sim.add_body(name, pos[label == r], material=mat, motion="dynamic", spacing=dx,
                     smoothing_length=2 * rb.PYSPH_HDX * dx, velocity=(u, 0.0, 0.0))
    rb.pysph_numerics(sim)
    return sim, label


def prepare_pysph(nx, workdir):
    spec = importlib.util.spec_from_file_location("pysph_blocks3d", PEERS / "pysph_blocks3d.py")
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    return rb.prepare_pysph_app(peer.Blocks3D(output_dir=workdir), ["--nx", str(nx)], workdir,
                                lambda x: (x >= 0).astype(int), dim=3)


def main():
    args = rb.arguments(__doc__.splitlines()[0], 40, 100, lambda ap: ap.add_argument(
        "--nx", type=int, default=20, help="particles per cube edge (default 20)"))
    nx = args.nx
    print(f"3D blocks: 2 x {nx}^3 particles, spacing {EDGE / nx * 1e3:g} mm, support "
          f"{2 * rb.PYSPH_HDX * EDGE / nx * 1e3:g} mm, speed {rb.SPEED:.3f} m/s each, dt {rb.DT} s; "
          f"{args.steps} timed steps, {rb.threads_and_load()}", flush=True)
    rb.side_by_side(args, lambda tmp: prepare_pysph(nx, tmp),
                    lambda: rb.prepare_regosph(build=lambda rs: build_regosph(rs, nx)),
                    names=("left cube", "right cube"))


if __name__ == "__main__":
    main()
