"""Blow-up guard (issue 2, item 9) and the 3D code path (SPEC.md sections 1-3 in 3D)."""
import math

import h5py
import numpy as np
import pytest

import regosph as rs

DX = 5e-3  # m


def soil_on_floor(dim, out=None):
    """A small block of cohesionless soil resting on a fixed floor under gravity."""
    sim = rs.Simulation(dim=dim)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=3.33e6,
                                             shear_modulus=0.37e6, friction_angle=42,
                                             cohesion=0))
    wall = sim.add_material(rs.Rigid("wall", density=1500))
    if dim == 2:
        block = rs.rectangle((0, 0), (0.04, 0.03))
        floor = rs.rectangle((-0.02, -3 * DX), (0.06, 0))
    else:
        block = rs.box((0, 0, 0), (0.03, 0.02, 0.03))
        floor = rs.box((-0.015, -3 * DX, -0.015), (0.045, 0, 0.045))
    sim.add_body("soil", rs.lattice_fill(block, DX), material=soil, motion="dynamic",
                 spacing=DX, smoothing_length=2.5 * DX)
    sim.add_body("floor", rs.lattice_fill(floor, DX), material=wall, motion="fixed",
                 spacing=DX, smoothing_length=2.5 * DX)
    return sim


def test_step_below_floor_stops_with_time_step_and_ids(tmp_path):
    sim = soil_on_floor(2)
    before = sim.positions.copy()
    # A floor above the Courant step: the first step cannot be taken.
    sim.integrator.dt_min = 1e-3  # s; the Courant step is ~6e-5 s
    with pytest.raises(rs.BlowUpError) as err:
        sim.run(0.01, output_dir=str(tmp_path), progress_interval=0)
    msg = str(err.value)
    assert "t = 0 s" in msg and "step 0" in msg and "dt_min" in msg
    ids = [int(tok) for tok in msg.replace(":", " ").split() if tok.isdigit()]
    assert any(i in set(sim.ids.tolist()) for i in ids)
    # The state is the last good one and the initial snapshot is intact and complete.
    np.testing.assert_array_equal(sim.positions, before)
    snaps = sorted(tmp_path.glob("snapshot_*.h5"))
    assert [s.name for s in snaps] == ["snapshot_000000.h5"]
    assert not list(tmp_path.glob("*.tmp"))
    with h5py.File(snaps[0]) as f:
        np.testing.assert_array_equal(f["particles/position"][:, :2], before)
    # The report names the worst particles' fields, and a crash dump holds the last good state.
    assert "velocity" in msg and "stress" in msg and "crash dump" in msg
    (dump,) = tmp_path.glob("crash_*.h5")
    with h5py.File(dump) as f:
        np.testing.assert_array_equal(f["particles/position"][:, :2], before)
        assert "blow-up" in f.attrs["crash_report"]


def test_a_step_that_fails_before_its_predictor_keeps_the_present_state():
    # The predictor saves the step's start; a step that stops before it (here its Courant
    # step is below the floor dt_min) must keep the particles where they are, not where the
    # previous step began.
    sim = soil_on_floor(2)
    for _ in range(3):
        sim.advance(1.0)
    v = sim.velocities.copy()
    v[0, 0] = 1e9  # [m/s]: a Courant step of ~4e-12 s, below the default dt_min of 1e-10 s
    sim.velocities = v
    before = (sim.positions.copy(), sim.velocities.copy(), sim.density.copy(),
              sim.stress.copy())
    with pytest.raises(rs.BlowUpError) as err:
        sim.advance(1.0)
    assert "step 3" in str(err.value) and "dt_min" in str(err.value)
    # (The walls' density and stress are extrapolated from the soil at every evaluation.)
    soil = sim.kind == 0
    for now, then in zip((sim.positions, sim.velocities, sim.density[soil], sim.stress[soil]),
                         (before[0], before[1], before[2][soil], before[3][soil])):
        np.testing.assert_array_equal(now, then)


@pytest.mark.parametrize("dim", [2, 3])
def test_block_settles_on_floor_without_penetration(dim):
    sim = soil_on_floor(dim)
    m0 = sim.mass[sim.kind == 0].sum()
    while sim.time < 0.05:
        sim.advance(0.05 - sim.time)
    soil = sim.kind == 0
    y = sim.positions[soil, 1]
    assert y.min() > 0.0                       # no particle in the floor
    assert sim.mass[soil].sum() == m0          # mass is exact
    d = sim.diagnostics()
    assert d.max_speed < 0.2                   # a resting block stays (nearly) at rest
    # Under gravity the bottom is compressed: sigma_yy < 0 in the lowest layer.
    low = soil & (sim.positions[:, 1] < 1.5 * DX)
    assert np.median(sim.stress[low, 1]) < 0.0
    # 3D keeps all six stress components consistent with a symmetric tensor in the plane.
    if dim == 2:
        assert np.all(sim.stress[:, 4:] == 0.0)


def test_3d_drucker_prager_constants_differ_from_plane_strain():
    a2, k2 = rs.drucker_prager_constants(30.0, 1.0, dim=2)
    a3, k3 = rs.drucker_prager_constants(30.0, 1.0, dim=3)
    s = math.sin(math.radians(30.0))
    assert a3 == pytest.approx(2 * s / (math.sqrt(3) * (3 - s)))
    assert k3 == pytest.approx(6 * math.cos(math.radians(30.0)) / (math.sqrt(3) * (3 - s)))
    assert a3 != pytest.approx(a2)
