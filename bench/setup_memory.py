#!/usr/bin/env python3
"""Peak resident memory per MPI rank of a 3D bed, built whole on every rank or split.

The bed of examples/prepared_bed.py in 3D (regolith in a box of fixed walls), built either with
its bodies as positions (every rank builds every particle, and the first step keeps its own) or
as shapes (each rank builds only its share: Simulation.add_body with a Shape), then advanced by
--steps steps. Each rank reads its peak resident memory (VmHWM, /proc/self/status) after the
setup and after the steps; rank 0 prints one JSON line with every rank's figures, the particle
count and the particle-steps integrated:

    mpirun -n 4 --oversubscribe --bind-to none /usr/bin/python3 bench/setup_memory.py \\
        --spacing 3.75e-3 --setup split

Timings on a shared machine are not figures of speed; memory and counts are.
"""
import argparse
import json
import sys

import regosph as rs
from regosph.examples import prepared_bed


def peak_resident_mb():
    """This process's peak resident memory [MB] (VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("/proc/self/status has no VmHWM")


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spacing", type=float, default=3.75e-3, help="[m]; 3.75 mm: 2.2 M particles")
    ap.add_argument("--setup", choices=["whole", "split"], required=True)
    ap.add_argument("--steps", type=int, default=2)
    args = ap.parse_args()
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    sim = prepared_bed.build(depth=0.3, width=0.6, spacing=args.spacing, dim=3,
                             split_setup=args.setup == "split")
    total = sum(b["particles"] for b in json.loads(sim.describe())["bodies"])
    held = comm.gather(sim.size)
    after_setup = comm.gather(peak_resident_mb())
    for _ in range(args.steps):
        sim.advance(1.0)
    owned = comm.gather(sim.size)
    after_steps = comm.gather(peak_resident_mb())
    dynamic = comm.allreduce(int((sim.kind == rs.KIND_DYNAMIC).sum()))
    if comm.rank == 0:
        print(json.dumps(dict(setup=args.setup, ranks=comm.size, spacing_m=args.spacing,
                              particles=total, dynamic=dynamic, steps=args.steps,
                              particle_steps=dynamic * args.steps, held_at_setup=held,
                              owned_after_steps=owned, vmhwm_setup_mb=after_setup,
                              vmhwm_steps_mb=after_steps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
