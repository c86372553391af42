"""One case of the MPI correctness gate (issue "Run across MPI ranks"), run by CTest under
mpiexec with 1, 2, 3 and 4 ranks (and 1 rank with 2 OpenMP threads); compare_runs.py then
checks that every run ends in the same state as the 1-rank run.

    mpiexec -n N /usr/bin/python3 tests/mpi/run_case.py collapse --output DIR
    mpiexec -n N /usr/bin/python3 tests/mpi/run_case.py sampler --output DIR

collapse: the soil collapse of examples/soil_collapse.py at twice the paper's spacing for the
full 1 s, with an observer counting the soil beyond the initial toe (x > 0.2 m), so that the
observer sums are checked too. sampler: the brush sampler's P0 run at the coarse resolution for
0.06 s (the tools descend, turn and touch the bed), with its tray observer and an observer on
the bed under the left brush. sampler3d: the 3D sampler (examples/brush_sampler_3d.py, E3,
coarse) for 0.01 s. rigid: a rigid disc thrown spinning into a soil bed in a box (2D) for
0.06 s, and a pebble thrown against the box's wall (contact): their states (bodies.csv) come
from loads summed over all ranks in particle-id order. split: the rigid case with its bodies
given as shapes, so that each rank builds only its share of the setup (Simulation.add_body with
a Shape); its runs are compared with the rigid case's 1-rank run. bed: a bed prepared on N ranks
(rs.prepare_bed: kinetic damping resets the velocities of each rank's particles) and loaded
into a new run with a rigid block dropped on it, for 0.05 s. sleep: the block dropped on the
bed case's 1-rank bed with sleeping regions (physics.sleep: half-way most of the bed sleeps,
its rows next to another rank's particles keep their pair lists, the others have none). corrected: two elastic discs
meeting head-on with the kernel gradient correction and Balsara's switch, for 0.03 s (the
gradient pre-pass's values of halo copies come from their owners, Domain::update_halo_values).
riemann: the collapse of mu(I) soil (its friction and open volume strain, history variables)
with the Riemann solver's dissipation, its normal-stress jump from reconstructed stresses and
the density diffusion (physics.dissipation, physics.riemann_stress_jump,
physics.riemann_reconstruction, physics.density_diffusion) for 0.3 s (the pre-pass's stress
gradients of halo copies).
hourglass: the corrected case's discs with the Riemann solver, its hourglass control and its
reconstructed jump (physics.hourglass_control, physics.riemann_reconstruction) for 0.03 s
(the pre-pass's velocity gradients of halo copies, the control's history columns).
houlsby: the rigid case with Mohr-Coulomb soil (Rankine cut-off, its tensile plastic strain a
history variable) of pressure-dependent moduli (elasticity=rs.Houlsby), for 0.03 s.
unilateral: the rigid case with the unilateral contact of soil and walls
(physics.wall_contact) and the disc's own 'tension_cut' contact (the cohesive bed holds no
tension on it as it rebounds), the soil with the artificial stress.
rk3: the rigid case stepped by SSP-RK3 (integrator.scheme: three evaluations per step, the
bodies' rates and loads combined) with the Riemann solver's reconstructed jump, the
limiter's floor (physics.riemann_limiter_floor) and the stress jump in the soil's density rate
(physics.riemann_stress_jump = "continuity").
porous: the piston of validation/compaction_front/run.py driven into the porous column at 5 mm
for 15 ms (the compaction front crosses the ranks' cuts; the distension and volumetric strain,
history variables, travel with migrating particles and halo copies).
"""
import argparse
import json
import sys
import regosph as rs


def collapse():
    from regosph.examples import soil_collapse
    sim = soil_collapse.build(spacing=2 * soil_collapse.PAPER_SPACING)
    soil = [m.name for m in sim.materials].index("aluminium bars")
    sim.add_observer("runout", rs.rectangle((0.2, -0.01), (0.7, 0.2)), material=soil)
    return sim, 1.0, 0.25


def riemann():
    from regosph.examples import soil_collapse
    sim = soil_collapse.build(spacing=2 * soil_collapse.PAPER_SPACING, dissipation="riemann",
                              law="MuIRheology")
    sim.physics.riemann_stress_jump = "continuity_and_strain_rate"
    sim.physics.riemann_reconstruction = True
    sim.physics.density_diffusion = 0.1
    soil = [m.name for m in sim.materials].index("aluminium bars")
    sim.add_observer("runout", rs.rectangle((0.2, -0.01), (0.7, 0.2)), material=soil)
    return sim, 0.3, 0.1


def corrected():
    dx = 4e-3
    sim = rs.Simulation(dim=2)
    sim.physics.av_balsara = True
    rubber = sim.add_material(rs.ElasticSolid("rubber", density=1000.0, youngs_modulus=1e6,
                                              poisson_ratio=0.3, kernel_correction=True))
    for name, centre, v in (("left", (-0.06, 0.0), 1.0), ("right", (0.06, 0.01), -1.0)):
        sim.add_body(name, rs.lattice_fill(rs.disc(centre, 0.05), dx), material=rubber,
                     motion="dynamic", spacing=dx, smoothing_length=2.5 * dx, velocity=(v, 0.0))
    sim.add_observer("middle", rs.rectangle((-0.02, -0.1), (0.02, 0.1)), material=rubber)
    return sim, 0.03, 0.01


def hourglass():
    dx = 4e-3
    sim = rs.Simulation(dim=2)
    sim.physics.dissipation = "riemann"
    sim.physics.hourglass_control = 4.0
    sim.physics.riemann_reconstruction = True
    rubber = sim.add_material(rs.ElasticSolid("rubber", density=1000.0, youngs_modulus=1e6,
                                              poisson_ratio=0.3))
    for name, centre, v in (("left", (-0.06, 0.0), 1.0), ("right", (0.06, 0.01), -1.0)):
        sim.add_body(name, rs.lattice_fill(rs.disc(centre, 0.05), dx), material=rubber,
                     motion="dynamic", spacing=dx, smoothing_length=2.5 * dx, velocity=(v, 0.0))
    sim.add_observer("middle", rs.rectangle((-0.02, -0.1), (0.02, 0.1)), material=rubber)
    return sim, 0.03, 0.01


def sampler():
    from regosph.examples import brush_sampler
    sim = brush_sampler.build("P0", resolution="coarse")
    regolith = [m.name for m in sim.materials].index("regolith")
    sim.add_observer("under_left_brush", rs.rectangle((-0.09, -0.03), (-0.01, 0.02)),
                     material=regolith)
    return sim, 0.06, 0.03


def sampler3d():
    from regosph.examples import brush_sampler_3d
    sim = brush_sampler_3d.build("E3")  # coarse, 4 cm deep; 500 rpm: the brushes dig at once
    return sim, 0.01, 0.005


def rigid(elasticity=None, mohr_coulomb=False, fill=None, artificial_stress=0.0,
          disc_contact=None):
    """fill(shape, dx): a body's positions, or the shape itself for a split setup;
    artificial_stress: the soil's epsilon; disc_contact: the disc's own contact law."""
    fill = fill or rs.lattice_fill
    dx = 5e-3
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    soil_parameters = dict(density=1500, bulk_modulus=1e6, poisson_ratio=0.3, friction_angle=30,
                           cohesion=500, elasticity=elasticity)
    if mohr_coulomb:  # with the Rankine cut-off: a history variable that softens
        soil = sim.add_material(rs.MohrCoulomb("soil", **soil_parameters, tensile_strength=200.0,
                                               tensile_softening_strain=1e-3))
    else:
        soil = sim.add_material(rs.DruckerPrager("soil", **soil_parameters,
                                                 artificial_stress=artificial_stress))
    steel = sim.add_material(rs.Rigid("steel", density=3000, youngs_modulus=1e6, restitution=0.5,
                                      friction=0.5))
    wall = sim.add_material(rs.Rigid("wall", density=1500))
    sim.add_body("bed", fill(rs.rectangle((0.0, 0.0), (0.3, 0.08)), dx), material=soil,
                 motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    t = 3 * dx
    box = rs.subtract(rs.rectangle((-t, -t), (0.3 + t, 0.2)), rs.rectangle((0.0, 0.0), (0.3, 1.0)))
    sim.add_body("box", fill(box, dx), material=wall, motion="fixed", spacing=dx,
                 smoothing_length=2.5 * dx)
    sim.add_body("disc", fill(rs.disc((0.12, 0.12), 0.025), dx), material=steel,
                 motion="rigid", spacing=dx, smoothing_length=2.5 * dx, velocity=(0.5, -2.0),
                 angular_velocity=3.0, **({"contact": disc_contact} if disc_contact else {}))
    sim.add_body("pebble", fill(rs.disc((0.29, 0.1), 0.01), dx), material=steel,
                 motion="rigid", spacing=dx, smoothing_length=2.5 * dx, velocity=(1.0, -0.5))
    sim.add_observer("crater", rs.rectangle((0.08, 0.04), (0.2, 0.1)), material=soil)
    return sim, 0.06, 0.02


def split():
    # The rigid case with every body given as its shape: each rank builds only its share of
    # every body (the rigid bodies whole first, for their mass properties), and the first step
    # sends each particle to its owner. CMake compares it with the rigid case's 1-rank run.
    sim, end_time, interval = rigid(fill=lambda shape, dx: shape)
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    total = sum(b["particles"] for b in json.loads(sim.describe())["bodies"])
    held = comm.allgather(sim.size)
    # Each rank's share of each of the four bodies differs from the others' by one at most.
    if sum(held) != total or max(held) > total / comm.size + 4 or sim.split_setup != (comm.size > 1):
        raise SystemExit(f"RESULT failed: the ranks hold {held} particles before the run, of "
                         f"{total} (split setup: {sim.split_setup})")
    return sim, end_time, interval


def houlsby():
    # The moduli follow the pressure: each particle's wave speed, and so the step, follows its
    # stress (elasticity=rs.Houlsby; SPEC.md's soil at p_r = 1 kPa, n = 1/2). Until the disc
    # has entered the bed.
    # The soil is Mohr-Coulomb with its tension cut-off.
    sim, _, _ = rigid(rs.Houlsby(reference_pressure=1e3, exponent=0.5, floor_pressure=0.01),
                      mohr_coulomb=True)
    return sim, 0.03, 0.01


def unilateral():
    sim, end_time, interval = rigid(artificial_stress=0.3, disc_contact="tension_cut")
    sim.physics.wall_contact = "unilateral"
    return sim, end_time, interval


def rk3():
    sim, end_time, interval = rigid()
    sim.integrator.scheme = "ssp_rk3"
    sim.physics.dissipation = "riemann"
    sim.physics.riemann_reconstruction = True
    sim.physics.riemann_limiter_floor = 0.03
    sim.physics.riemann_stress_jump = "continuity"
    return sim, end_time, interval


def bed(output, sleep=False):
    from pathlib import Path
    from regosph.examples import prepared_bed
    if sleep:  # the bed case's 1-rank bed
        bed_dir = str(Path(output).parent / "bed_1x1_bed")
    else:
        bed_dir = output + "_bed"
        rs.prepare_bed(prepared_bed.build(0.15, 0.3, 9.81, 0.01), bed_dir, overwrite=True,
                       progress_interval=0)
    sim = prepared_bed.build(0.15, 0.3, 9.81, 0.01)
    rs.load_bed(sim, bed_dir)
    sim.physics.sleep = sleep
    steel = sim.add_material(rs.Rigid("steel", density=3000))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.1, 0.18), (0.2, 0.22)), 0.01),
                 material=steel, motion="rigid", spacing=0.01, smoothing_length=0.025,
                 velocity=(0.0, -0.5))
    sim.add_observer("under_block", rs.rectangle((0.08, 0.1), (0.22, 0.15)))
    return sim, 0.05, 0.025


def porous():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "validation" / "compaction_front" / "run.py"
    spec = importlib.util.spec_from_file_location("compaction_front", path)
    front = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(front)
    sim = front.build(0.005, 4.0)
    sim.add_observer("upper", rs.rectangle((0.0, 0.15), (front.COLUMN_WIDTH, 0.3)), material=0)
    return sim, 0.015, 0.005


def main():
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case",
                    choices=["collapse", "sampler", "sampler3d", "rigid", "split", "bed",
                             "corrected", "riemann", "hourglass", "houlsby", "porous",
                             "unilateral", "sleep", "rk3"])
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    sim, end_time, interval = {"collapse": collapse, "sampler": sampler,
                                "sampler3d": sampler3d, "rigid": rigid, "split": split,
                                "bed": lambda: bed(args.output),
                                "corrected": corrected, "riemann": riemann,
                                "hourglass": hourglass,
                                "houlsby": houlsby, "porous": porous,
                                "unilateral": unilateral, "rk3": rk3,
                                "sleep": lambda: bed(args.output, sleep=True)}[args.case]()
    summary = sim.run(end_time, output_dir=args.output, overwrite=True,
                      snapshot_interval=interval, observe_every=5, progress_interval=0)
    # The decomposition must have done its work: particles that crossed into another rank's
    # region migrated (the soil flows across the cuts), and halos were exchanged.
    from mpi4py import MPI
    stats = sim.parallel_statistics()
    comm = MPI.COMM_WORLD
    migrated = comm.allreduce(stats["particles_migrated"])
    halo_bytes = comm.allreduce(stats["halo_bytes_sent"])
    flows = args.case in ("collapse", "riemann")
    if comm.size > 1 and flows and not (migrated > 0 and halo_bytes > 0):
        print(f"RESULT failed: {migrated} particles migrated, {halo_bytes} halo bytes sent")
        return 1
    # Load balance (parallel/domain.hpp): dynamic particles weigh 1, wall particles 0.25, and
    # the decomposition is redone when the heaviest rank exceeds the mean by 5 %.
    load = float((sim.kind == rs.KIND_DYNAMIC).sum() + 0.25 * (sim.kind != rs.KIND_DYNAMIC).sum())
    loads = comm.allgather(load)
    imbalance = max(loads) / (sum(loads) / len(loads))
    if args.case == "sleep":  # rows with and without a pair list: half-way, most of the bed sleeps
        import h5py
        from pathlib import Path
        with h5py.File(Path(args.output) / "snapshot_000001.h5") as h:
            p = h["particles"]
            state = p["sleep_state"][:][p["kind"][:] == rs.KIND_DYNAMIC]
        asleep, awake = int((state == 2).sum()), int((state != 2).sum())
        if not (asleep > 0 and awake > 0):
            print(f"RESULT failed: {asleep} particles asleep, {awake} awake half-way")
            return 1
    if imbalance > 1.10:
        print(f"RESULT failed: load imbalance {imbalance:.3f} (rank loads {loads})")
        return 1
    print(f"RESULT ok {args.case}: {summary.steps} steps on {rs.mpi_size()} ranks, "
          f"{summary.wall_seconds:.1f} s wall; {migrated} particles migrated, "
          f"{halo_bytes / 1e6:.1f} MB of halo updates, {stats['rebalances']} decompositions, "
          f"load imbalance {imbalance:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
