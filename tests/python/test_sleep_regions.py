"""Sleeping regions (physics.sleep, src/sph/sleep_regions.hpp) and the bed preparation in the
core (Simulation.relax_with_kinetic_damping): a bed at rest falls asleep and stays exactly as
it is; a disc dropped on it wakes the particles it reaches, and its motion matches the run
without sleeping; a restart with sleeping particles is bit-identical; the core's kinetic
damping gives the Python loop's bed bit for bit. A coarse bed (1 cm, 1200 particles): each
run takes a few seconds."""
import json

import numpy as np
import pytest

import regosph as rs
from regosph import bed as B

from regosph.examples import prepared_bed

DEPTH, WIDTH, DX = 0.3, 0.4, 0.01
ASLEEP = 2.0


@pytest.fixture(scope="module")
def bed_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sleep") / "bed"
    rs.prepare_bed(prepared_bed.build(DEPTH, WIDTH, 9.81, DX), str(out), progress_interval=0)
    return out


def loaded(bed_dir, sleep, disc_speed=None):
    sim = prepared_bed.build(DEPTH, WIDTH, 9.81, DX)
    rs.load_bed(sim, str(bed_dir))
    if disc_speed is not None:
        h = prepared_bed.SMOOTHING_FACTOR * DX
        metal = sim.add_material(rs.Rigid("disc", density=7800.0))
        sim.add_body("disc", rs.lattice_fill(rs.disc((0.2, DEPTH + h + 0.032), 0.03), DX),
                     material=metal, motion="rigid", spacing=DX, smoothing_length=h,
                     velocity=(0.0, -disc_speed))
    sim.physics.sleep = sleep
    sim.integrator.tune_threads = False
    return sim


def dynamic(sim):
    return np.asarray(sim.kind) == 0


def test_bed_at_rest_sleeps_and_stays_as_it_is(bed_dir):
    sim = loaded(bed_dir, True)
    for _ in range(3):
        sim.advance(1.0)
    assert np.all(sim.history("sleep_state")[dynamic(sim)] == ASLEEP)
    x, stress = sim.positions.copy(), sim.stress.copy()
    for _ in range(5):
        r = sim.advance(1.0)
        assert r.integrated_particles == 0
    assert np.array_equal(sim.positions, x) and np.array_equal(sim.stress, stress)
    physics = json.loads(sim.describe())["physics"]
    assert physics["sleep"] is True and physics["sleep_speed_m_s"] == 1e-3


def test_disc_wakes_what_it_reaches_and_moves_as_without_sleep(bed_dir):
    sim = loaded(bed_dir, True, disc_speed=1.0)
    while sim.time < 0.01:  # in flight: the bed sleeps
        sim.advance(1.0)
    assert np.all(sim.history("sleep_state")[dynamic(sim)] == ASLEEP)
    while sim.time < 0.02:  # the disc's particles came within the bed's pair lists
        sim.advance(1.0)
    state = sim.history("sleep_state")
    x = sim.positions
    under = dynamic(sim) & (np.abs(x[:, 0] - 0.2) < 0.03) & (x[:, 1] > DEPTH - 0.03)
    far = dynamic(sim) & (x[:, 1] < 0.05) & (np.abs(x[:, 0] - 0.2) > 0.15)
    assert np.all(state[under] != ASLEEP)
    assert np.all(state[far] == ASLEEP)  # the disturbance has not reached the lower corners
    full = loaded(bed_dir, False, disc_speed=1.0)
    end = 0.04
    for s in (sim, full):
        while s.time < end:
            s.advance(end - s.time)
    a, b = sim.bodies_state()["disc"], full.bodies_state()["disc"]
    # Observed: centres 5e-6 m apart, vertical speeds within 0.1 % of the impact speed.
    assert a["centre"][1] == pytest.approx(b["centre"][1], abs=5e-5)
    assert a["velocity"][1] == pytest.approx(b["velocity"][1], abs=0.01)


def test_restart_with_sleeping_particles_is_bit_identical(bed_dir, tmp_path):
    # The split at a snapshot time of both runs: a run that stops where the whole run steps
    # over ends with a shortened step, and what follows differs in the last bits.
    options = dict(progress_interval=0, diagnostics_every=10, checkpoint_every=15,
                   snapshot_interval=0.002)
    whole = loaded(bed_dir, True, disc_speed=1.0)
    whole.run(0.01, output_dir=str(tmp_path / "whole"), **options)
    first = loaded(bed_dir, True, disc_speed=1.0)
    first.run(0.006, output_dir=str(tmp_path / "split"), **options)
    assert np.any(first.history("sleep_state") == ASLEEP)
    second = loaded(bed_dir, True, disc_speed=1.0)
    second.restart(str(tmp_path / "split"))
    second.run(0.01, output_dir=str(tmp_path / "split"), **options)
    for field in ("positions", "velocities", "stress", "density"):
        assert np.array_equal(getattr(second, field), getattr(whole, field)), field
    assert np.array_equal(second.history("sleep_state"), whole.history("sleep_state"))


def test_core_relaxation_gives_the_python_loops_bed():
    def geostatic():
        sim = prepared_bed.build(0.2, 0.2, 9.81, 0.02)
        sim.integrator.tune_threads = False
        bed = B._bed_bodies(sim)
        B.set_geostatic_stress(sim, bed, B.up_direction(sim.physics.gravity), 9.81, "jaky")
        return sim, 1e-6 * B.elastic_strain_energy(sim, bed)

    sim, tolerance = geostatic()
    core = sim.relax_with_kinetic_damping(tolerance, 5000)
    assert core["resets"] >= 1 and core["last_peak_energy"] <= tolerance
    loop, _ = geostatic()
    previous = 0.0
    for step in range(1, core["steps"] + 1):  # regosph.bed's former Python loop
        loop.advance(1.0)
        energy = loop.diagnostics().kinetic_energy
        if energy < previous:
            loop.velocities = np.zeros_like(loop.velocities)
            energy = 0.0
        previous = energy
    assert loop.time == core["time"] == sim.time
    assert np.array_equal(loop.positions, sim.positions)
    assert np.array_equal(loop.stress, sim.stress)
    with pytest.raises(RuntimeError, match="did not relax within max_steps = 2"):
        geostatic()[0].relax_with_kinetic_damping(tolerance, 2)
