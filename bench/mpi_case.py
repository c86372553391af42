"""Worker of bench/mpi_scaling.py, run under mpiexec: one timed run of a soil collapse with
about --particles soil particles, and rank 0 prints one JSON line with the speed, the halo
traffic and the memory of every rank.

    mpiexec -n 2 /usr/bin/python3 bench/mpi_case.py --particles 200000 --steps 30

The timed part is a run of --steps steps (estimated from the first steps' time step) after a
warm-up that distributes the particles and builds the first neighbour lists and halos.
"""
import argparse
import json
import math
import resource
import sys
import time

from mpi4py import MPI

import regosph as rs
from regosph.examples import soil_collapse


def build(particles, dim):
    if dim == 2:
        # The collapse block is 0.2 m x 0.1 m: spacing from the particle count.
        spacing = math.sqrt(soil_collapse.BLOCK_LENGTH * soil_collapse.BLOCK_HEIGHT / particles)
        return soil_collapse.build(spacing), spacing
    from regosph.examples import soil_collapse_3d  # 3D: the count includes the walls
    return soil_collapse_3d.build(target_particles=particles)


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--particles", type=float, default=2e5,
                    help="soil particles (2D), all particles (3D); a target")
    ap.add_argument("--steps", type=int, default=30, help="timed steps")
    ap.add_argument("--dim", type=int, default=2, choices=[2, 3])
    ap.add_argument("--output", help="run directory: the timed run also writes its initial and "
                                     "final snapshots (parallel HDF5) there")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD

    sim, spacing = build(int(args.particles), args.dim)
    total = sim.size
    dynamic = int((sim.kind == rs.KIND_DYNAMIC).sum())
    # Warm-up: distribute, build the first lists and halos, and learn the time step from a
    # few steps.
    h = float(sim.smoothing_length.min())
    warm = sim.run(5 * 0.3 * h / 20.0, progress_interval=0)  # ~5 steps: c_p ~ 20 m/s
    dt = sim.time / warm.steps
    before = sim.parallel_statistics()
    comm.Barrier()
    start = time.perf_counter()
    summary = sim.run(sim.time + args.steps * dt, progress_interval=0,
                      output_dir=args.output or "", overwrite=True)
    comm.Barrier()
    wall = time.perf_counter() - start
    after = sim.parallel_statistics()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    per_rank = comm.gather(dict(
        owned=after["owned_particles"], halo=after["halo_particles"],
        partners=after["halo_partners"],
        halo_bytes=after["halo_bytes_sent"] - before["halo_bytes_sent"],
        bytes=after["bytes_sent"] - before["bytes_sent"],
        halo_builds=after["halo_builds"] - before["halo_builds"],
        migrations=after["migrations"] - before["migrations"],
        rebalances=after["rebalances"], max_rss_kib=rss_kib), root=0)
    if comm.rank == 0:
        steps = summary.steps
        print(json.dumps(dict(
            ranks=comm.size, threads=int(__import__("os").environ.get("OMP_NUM_THREADS", "0")),
            dim=args.dim, spacing_m=spacing, particles=total, dynamic_particles=dynamic,
            steps=steps, wall_s=wall, particle_steps_per_s=dynamic * steps / wall,
            dt_s=dt, neighbour_builds=summary.neighbour_builds,
            halo_bytes_per_step=sum(r["halo_bytes"] for r in per_rank) / max(steps, 1),
            bytes_per_step=sum(r["bytes"] for r in per_rank) / max(steps, 1),
            bytes_per_particle=[r["max_rss_kib"] * 1024 / max(r["owned"], 1) for r in per_rank],
            ranks_detail=per_rank, warmup_steps=warm.steps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
