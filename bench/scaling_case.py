#!/usr/bin/env python3
"""Worker of bench/scaling_model.py, run under mpiexec: the counts of one rank count on the 3D
lander's half bed, and rank 0 prints them as one JSON line.

    mpiexec -n 8 --oversubscribe /usr/bin/python3 bench/scaling_case.py --spacing 0.0125

The bed is examples/lander_3d.py's (regolith 1.2 x 0.3 x 0.4 m in its box of fixed walls, the
free-slip symmetry plane z = 0), built whole on every rank (`--setup whole`) or split
(`--setup split`), without the lander and not relaxed: the counts depend on where the
particles are, not on what they do over a few steps. After `--warmup` steps (distribution, the
first lists and halos) it counts `--steps` more. Per rank: owned particles (dynamic and
boundary), the halo copies and partners of the last halo build, the bytes sent (all of them,
and those of halo updates), halo updates, halo builds, migrations and rebalances, the
collective calls, the last list build's work (pair-list entries of the owned dynamic particles,
wall-row entries) and Verlet skin; and the halo, bytes and skin of the first step. Counts on
oversubscribed ranks are exact; timings would not be, and none are taken.
"""
import argparse
import json
import sys

import regosph as rs
from regosph.examples import lander_2d
from regosph.examples import lander_3d
from regosph.examples import prepared_bed

COUNTERS = ("bytes_sent", "halo_bytes_sent", "halo_updates", "halo_builds", "migrations",
            "rebalances", "collective_calls", "particles_migrated")


def build(spacing, split):
    return prepared_bed.build(depth=0.3, width=lander_2d.BED_WIDTH, gravity=lander_2d.GRAVITY,
                              spacing=spacing, dim=3, symmetry_planes=("z",),
                              breadth=lander_3d.BED_BREADTH, split_setup=split)


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spacing", type=float, required=True, help="lattice spacing [m]")
    ap.add_argument("--setup", choices=["whole", "split"], default="split")
    ap.add_argument("--warmup", type=int, default=2, help="steps before the counted ones")
    ap.add_argument("--steps", type=int, default=4, help="counted steps")
    args = ap.parse_args()
    if args.spacing <= 0 or args.warmup < 1 or args.steps < 1:
        raise SystemExit("scaling_case: --spacing must be > 0, --warmup and --steps >= 1")
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    sim = build(args.spacing, args.setup == "split")
    sim.advance(1.0)  # distribution, the first halo build
    first = sim.parallel_statistics()
    for _ in range(args.warmup - 1):
        sim.advance(1.0)
    before = sim.parallel_statistics()
    for _ in range(args.steps):
        sim.advance(1.0)
    after = sim.parallel_statistics()
    dynamic = int((sim.kind == rs.KIND_DYNAMIC).sum())
    rank = dict(owned=after["owned_particles"], dynamic=dynamic,
                halo=after["halo_particles"], partners=after["halo_partners"],
                pair_entries=after["pair_entries"], wall_entries=after["wall_entries"],
                first_step_bytes=first["bytes_sent"] - first["halo_bytes_sent"],
                first_step_halo=first["halo_particles"], trees=after["rebalances"],
                first_step_skin_m=first["neighbour_skin"], skin_m=after["neighbour_skin"],
                **{k: after[k] - before[k] for k in COUNTERS})
    ranks = comm.gather(rank, root=0)
    if comm.rank == 0:
        print(json.dumps(dict(ranks=comm.size, spacing_m=args.spacing, setup=args.setup,
                              particles=sum(r["owned"] for r in ranks),
                              dynamic=sum(r["dynamic"] for r in ranks), steps=args.steps,
                              time_s=sim.time, ranks_detail=ranks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
