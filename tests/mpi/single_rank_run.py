"""Run under mpiexec: a small block of regolith settling on a floor.

With one rank it must run and write its output; with more ranks (no domain decomposition
yet) every rank must stop with a clear error instead of running the same problem twice.
Prints 'RESULT ok <steps>' or 'RESULT error <message>' on each rank.
"""
import sys
import tempfile

from mpi4py import MPI

import regosph as rs


def main():
    comm = MPI.COMM_WORLD
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    dx = 5e-3
    soil = sim.add_material(rs.DruckerPrager("soil", density=2650, bulk_modulus=0.7e6,
                                             poisson_ratio=0.3, friction_angle=19.8, cohesion=0))
    wall = sim.add_material(rs.Rigid("wall", density=2650))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.03)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    sim.add_body("floor", rs.lattice_fill(rs.rectangle((-0.02, -0.015), (0.07, 0)), dx),
                 material=wall, motion="fixed", spacing=dx, smoothing_length=2.5 * dx)
    with tempfile.TemporaryDirectory() as out:
        try:
            summary = sim.run(0.01, output_dir=out if comm.size == 1 else "",
                              progress_interval=0)
            print(f"RESULT ok {summary.steps} rank {comm.rank} of {comm.size}", flush=True)
        except ValueError as e:
            print(f"RESULT error {e}", flush=True)
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
