"""The Python API of regosph (python/bind_*.cpp): fields come back as NumPy arrays of the
right shape and dtype, setters round-trip, and the helper functions follow SPEC.md."""
import json
import math

import numpy as np
import pytest

import regosph as rs

DX = 0.01
H = 2.5 * DX


def soil(**overrides):
    params = dict(density=2650.0, bulk_modulus=0.7e6, poisson_ratio=0.3, friction_angle=19.8,
                  cohesion=0.0)
    params.update(overrides)
    return rs.DruckerPrager("soil", **params)


def make_sim(dim=2, n=(6, 5, 4), with_wall=True):
    """A small block of soil (and, in 2D, a floor of wall particles)."""
    sim = rs.Simulation(dim=dim)
    mat = sim.add_material(soil(cohesion=1e4))
    if dim == 2:
        shape = rs.rectangle((0.0, 0.0), (n[0] * DX, n[1] * DX))
    else:
        shape = rs.box((0.0, 0.0, 0.0), (n[0] * DX, n[1] * DX, n[2] * DX))
    sim.add_body("soil", rs.lattice_fill(shape, DX), material=mat, motion="dynamic", spacing=DX,
                 smoothing_length=H)
    if with_wall and dim == 2:
        wall = sim.add_material(rs.Rigid("wall", density=2650.0))
        floor = rs.rectangle((-3 * DX, -3 * DX), (n[0] * DX + 3 * DX, 0.0))
        sim.add_body("floor", rs.lattice_fill(floor, DX), material=wall, motion="fixed",
                     spacing=DX, smoothing_length=H)
    return sim


@pytest.mark.parametrize("dim", [2, 3])
def test_fields_are_numpy_arrays_with_shapes_and_dtypes(dim):
    sim = make_sim(dim)
    n_soil = 6 * 5 * (4 if dim == 3 else 1)
    n_wall = 12 * 3 if dim == 2 else 0
    n = n_soil + n_wall
    assert sim.size == n
    assert sim.dim == dim
    expected = {
        "positions": ((n, dim), np.float64),
        "velocities": ((n, dim), np.float64),
        "stress": ((n, 6), np.float64),
        "density": ((n,), np.float64),
        "mass": ((n,), np.float64),
        "smoothing_length": ((n,), np.float64),
        "plastic_multiplier": ((n,), np.float64),
        "yielding": ((n,), np.uint8),
        "material": ((n,), np.int32),
        "body": ((n,), np.int32),
        "ids": ((n,), np.int64),
        "kind": ((n,), np.uint8),
    }
    for name, (shape, dtype) in expected.items():
        value = getattr(sim, name)
        assert isinstance(value, np.ndarray), name
        assert value.shape == shape, name
        assert value.dtype == dtype, name
    # Values as documented: volume spacing^dim at the reference density, support radius h,
    # unique ids, kinds dynamic/boundary per body.
    np.testing.assert_allclose(sim.mass, 2650.0 * DX ** dim, rtol=1e-14)
    np.testing.assert_array_equal(sim.density, 2650.0)
    np.testing.assert_array_equal(sim.smoothing_length, H)
    assert len(np.unique(sim.ids)) == n
    kind = sim.kind
    assert (kind[sim.body == 0] == rs.KIND_DYNAMIC).all()
    assert (kind[sim.body == 1] == rs.KIND_BOUNDARY).all()
    assert sim.body_names == (["soil", "floor"] if dim == 2 else ["soil"])
    assert [m.name for m in sim.materials][0] == "soil"
    assert rs.STRESS_COMPONENTS == ("xx", "yy", "zz", "xy", "xz", "yz")


@pytest.mark.parametrize("dim", [2, 3])
def test_stress_setter_round_trip(dim):
    sim = make_sim(dim)
    rng = np.random.default_rng(5)
    stress = rng.uniform(-1e4, 1e4, size=(sim.size, 6))
    sim.stress = stress
    np.testing.assert_array_equal(sim.stress, stress)
    # A modified copy does not write through: the getter returns copies.
    copy = sim.stress
    copy[:] = 0.0
    np.testing.assert_array_equal(sim.stress, stress)
    # Other dtypes and layouts are converted (forcecast, C order).
    sim.stress = np.asfortranarray(stress.astype(np.float32))
    np.testing.assert_array_equal(sim.stress, stress.astype(np.float32).astype(np.float64))


def test_position_and_velocity_setters_round_trip():
    sim = make_sim(2)
    x = sim.positions + 1e-4
    v = np.random.default_rng(1).normal(size=(sim.size, 2))
    sim.positions = x
    sim.velocities = v
    np.testing.assert_array_equal(sim.positions, x)
    np.testing.assert_array_equal(sim.velocities, v)


@pytest.mark.parametrize("field,shape", [("stress", (3, 6)), ("stress", None), ("positions", None),
                                         ("velocities", None)])
def test_setters_reject_wrong_shapes(field, shape):
    sim = make_sim(2)
    good = getattr(sim, field)
    bad = np.zeros(shape) if shape else np.zeros((good.shape[0], good.shape[1] + 1))
    with pytest.raises(ValueError, match=field):
        setattr(sim, field, bad)
    np.testing.assert_array_equal(getattr(sim, field), good)


def test_setters_reject_non_finite_values():
    sim = make_sim(2)
    s = sim.stress
    s[3, 1] = np.nan
    with pytest.raises(ValueError, match="stress"):
        sim.stress = s
    v = sim.velocities
    v[0, 0] = np.inf
    with pytest.raises(ValueError, match="velocities"):
        sim.velocities = v


def test_derivatives_shapes_and_compressed_block_pushes_outward():
    # Momentum equation S17-37: a uniformly compressed block (sigma = -p I) accelerates
    # outward at its free edges.
    sim = make_sim(2, n=(8, 8, 1), with_wall=False)
    p = 1e4
    s = np.zeros((sim.size, 6))
    s[:, :3] = -p
    sim.stress = s
    d = sim.derivatives()
    assert d["acceleration"].shape == (sim.size, 2)
    assert d["stress_rate"].shape == (sim.size, 6)
    assert d["density_rate"].shape == (sim.size,)
    assert d["dt_limit"].shape == (sim.size,)
    x, a = sim.positions, d["acceleration"]
    right = x[:, 0] > 7 * DX
    left = x[:, 0] < DX
    assert (a[right, 0] > 0).all()
    assert (a[left, 0] < 0).all()
    # Nothing moves: zero strain rate, zero density rate.
    np.testing.assert_array_equal(d["density_rate"], 0.0)
    np.testing.assert_array_equal(d["stress_rate"], 0.0)
    assert (d["dt_limit"] > 0).all()


def test_lattice_fill_arrays():
    pts = rs.lattice_fill(rs.rectangle((0, 0), (0.1, 0.05)), 0.01)
    assert pts.shape == (50, 2) and pts.dtype == np.float64
    np.testing.assert_allclose(pts.min(axis=0), [0.005, 0.005])
    pts3 = rs.lattice_fill(rs.box((0, 0, 0), (0.1, 0.05, 0.02)), 0.01)
    assert pts3.shape == (100, 3)
    ring = rs.rectangle((0, 0), (0.1, 0.1)) - rs.rectangle((0.02, 0.02), (0.08, 0.08))
    assert rs.lattice_fill(ring, 0.01).shape == (100 - 36, 2)
    both = rs.rectangle((0, 0), (0.1, 0.1)) | rs.rectangle((0.05, 0), (0.15, 0.1))
    assert rs.lattice_fill(both, 0.01).shape == (150, 2)
    assert both.contains((0.12, 0.05, 0.0)) and not ring.contains((0.05, 0.05, 0.0))
    assert ring.dim == 2


def test_drucker_prager_constants_and_material_properties():
    # S17-13: alpha = tan(phi) / sqrt(9 + 12 tan^2 phi), k_c = 3 c / sqrt(9 + 12 tan^2 phi)
    phi, c = 19.8, 1000.0
    t = math.tan(math.radians(phi))
    alpha, k_c = rs.drucker_prager_constants(phi, c)
    assert alpha == pytest.approx(t / math.sqrt(9 + 12 * t * t), rel=1e-14)
    assert k_c == pytest.approx(3 * c / math.sqrt(9 + 12 * t * t), rel=1e-14)
    a3, k3 = rs.drucker_prager_constants(phi, c, dim=3)
    s = math.sin(math.radians(phi))
    assert a3 == pytest.approx(2 * s / (math.sqrt(3) * (3 - s)), rel=1e-14)
    assert k3 > 0
    # Poisson ratio -> shear modulus mu = 3 K (1 - 2 nu) / (2 (1 + nu)); c_p = sqrt((K + 4mu/3)/rho)
    m = soil()
    K, nu, rho = 0.7e6, 0.3, 2650.0
    mu = 3 * K * (1 - 2 * nu) / (2 * (1 + nu))
    assert m.wave_speed == pytest.approx(math.sqrt((K + 4 * mu / 3) / rho), rel=1e-14)
    assert m.density == rho
    assert m.name == "soil"
    m2 = rs.DruckerPrager("s2", density=rho, bulk_modulus=K, shear_modulus=mu,
                          friction_angle=phi, cohesion=0.0, viscosity_sound_speed=600.0)
    assert m2.wave_speed == pytest.approx(m.wave_speed, rel=1e-14)
    assert m2.viscosity_sound_speed == 600.0


def test_materials_give_their_models_wave_speed_and_strain_energy():
    # The models' own functions (material.hpp wave_speed, strain_energy), for Python code that
    # needs them (regosph.bed): Hooke's energy p^2 / 2K + J2 / 2mu per unit volume for the
    # regolith, Murnaghan's (n = 1: K0 / rho0 (ln x + 1/x - 1), x = rho / rho0) plus the
    # deviator's for the elastic solid.
    m = soil()
    assert (m.model, m.plastic, m.boundary_only) == ("DruckerPrager", True, False)
    assert m.wave_speed_at(1000.0) == m.wave_speed  # c_p at the reference density
    K, mu, rho = 0.7e6, 3 * 0.7e6 * 0.4 / 2.6, 2650.0
    sigma = np.array([-300.0, -100.0, -200.0, 40.0, -10.0, 5.0])
    p, dev = 200.0, sigma[:3] + 200.0
    j2 = 0.5 * (dev ** 2).sum() + (sigma[3:] ** 2).sum()
    assert m.strain_energy(rho, sigma) == pytest.approx((p * p / (2 * K) + j2 / (2 * mu)) / rho,
                                                        rel=1e-12)
    rubber = rs.ElasticSolid("rubber", density=1000.0, bulk_modulus=1e6, shear_modulus=1e5)
    assert (rubber.model, rubber.plastic) == ("ElasticSolid", False)
    speeds = rubber.wave_speed_at(np.array([1000.0, 1100.0]))
    assert speeds == pytest.approx([math.sqrt(1e6 / 1e3 + 4e5 / 3e3),
                                    math.sqrt(1e6 / 1e3 + 4e5 / 3.3e3)], rel=1e-14)
    energies = rubber.strain_energy([1000.0, 1100.0], np.zeros((2, 6)))
    assert energies == pytest.approx([0.0, 1e3 * (math.log(1.1) + 1 / 1.1 - 1)], rel=1e-9)
    wall = rs.Rigid("wall", density=2650.0)
    assert (wall.model, wall.boundary_only, wall.wave_speed_at(1.0)) == ("Rigid", True, 0.0)
    with pytest.raises(ValueError, match=r"material 'soil': stress: expected shape \(2, 6\)"):
        m.strain_energy([rho, rho], sigma)
    with pytest.raises(ValueError, match="material 'soil': rho: expected a number or a 1D"):
        m.wave_speed_at([[rho]])


def test_strain_energy_of_the_particles_is_what_the_diagnostics_sum():
    sim = make_sim()
    stress = sim.stress
    stress[:, :3] = -np.linspace(1.0, 2.0, len(stress))[:, None] * [3e3, 1e3, 2e3]
    sim.stress = stress
    dynamic = sim.kind == rs.KIND_DYNAMIC
    material = sim.materials[sim.material[dynamic][0]]
    energy = sim.mass[dynamic] * material.strain_energy(sim.density[dynamic], stress[dynamic])
    assert energy.sum() == pytest.approx(sim.diagnostics().strain_energy, rel=1e-12)


def test_kernel_value_normalisation():
    # SPEC 1: int W dA = 1 in 2D (midpoint rule on a fine polar grid).
    h = 0.3
    r = (np.arange(20000) + 0.5) * h / 20000
    w = np.array([rs.kernel_value(x, h, 2) for x in r])
    assert np.sum(w * 2 * np.pi * r) * h / 20000 == pytest.approx(1.0, rel=1e-4)
    assert rs.kernel_value(h, h, 3) == 0.0


def test_run_advance_and_diagnostics():
    sim = make_sim(2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    assert tuple(sim.physics.gravity) == (0.0, -9.81, 0.0)
    sim.integrator.dt_max = 1e-4
    assert sim.integrator.dt_max == 1e-4
    r = sim.advance(1.0)
    assert 0 < r.dt <= 1e-4
    assert sim.step == 1 and sim.time == r.dt
    summary = sim.run(0.002, progress_interval=0)
    assert sim.time == pytest.approx(0.002, rel=1e-12)
    assert summary.steps >= 19 and summary.snapshots == 0
    d = sim.diagnostics()
    dyn = sim.kind == rs.KIND_DYNAMIC
    assert d.dynamic_particles == dyn.sum()
    assert d.mass == pytest.approx(sim.mass[dyn].sum(), rel=1e-14)
    v = sim.velocities[dyn]
    assert d.momentum[1] == pytest.approx((sim.mass[dyn] * v[:, 1]).sum(), rel=1e-12)
    assert d.momentum[1] < 0  # falling onto the floor at first
    assert isinstance(sim.describe(), str) and '"dim"' in sim.describe()
    assert rs.__version__


def test_integrator_options_changed_between_steps_take_effect():
    # What the run record states (describe) is what the next steps use.
    sim = make_sim(2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    sim.integrator.dt_max = 1e-4
    assert sim.advance(1.0).dt > 1e-5
    sim.integrator.dt_max = 2e-6
    for _ in range(3):
        assert 0 < sim.advance(1.0).dt <= 2e-6
    assert json.loads(sim.describe())["integrator"]["dt_max_s"] == 2e-6
    sim.integrator.dt_min = 1e-5  # above dt_max now: refused before the step, by name
    with pytest.raises(ValueError, match="dt_max must be positive and >= dt_min"):
        sim.advance(1.0)


def test_pair_margin_selects_the_lists_rarely_and_changes_only_the_rounding():
    """A block falling onto a floor, 40 steps: with no margin the pair lists are selected at
    nearly every evaluation, with the default margin at few; the states agree to rounding."""
    runs = {}
    for margin in (0.0, 0.2, 0.5):
        sim = make_sim(2)
        sim.physics.gravity = (0.0, -9.81, 0.0)
        sim.integrator.dt_max = 1e-4
        sim.integrator.tune_threads = False
        sim.integrator.pair_margin = margin
        for _ in range(40):
            sim.advance(1.0)
        summary = sim.run(sim.time + 1e-4, progress_interval=0)
        described = json.loads(sim.describe())["integrator"]
        assert described.get("pair_margin_fraction_of_skin", 0.2) == margin
        runs[margin] = (summary.pair_selections, summary.steps, sim.positions.copy(),
                        sim.velocities.copy())
    selections0, steps, x0, v0 = runs[0.0]
    assert selections0 >= 2 * 40  # two evaluations per step, every one moved something
    assert 1 <= runs[0.2][0] < selections0 / 4
    assert runs[0.5][0] <= runs[0.2][0]
    for margin in (0.2, 0.5):
        _, _, x, v = runs[margin]
        assert np.abs(x - x0).max() <= 1e-12 * np.abs(x0).max()
        assert np.abs(v - v0).max() <= 1e-9 * np.abs(v0).max()


@pytest.mark.parametrize("dim", [2, 3])
def test_every_snapshot_field_is_a_numpy_property_with_its_units(dim, tmp_path):
    """The field table (src/core/fields.hpp) drives both the snapshot datasets and the NumPy
    properties: each dataset of a snapshot has a property holding the same values, and the
    property's docstring gives the dataset's unit."""
    import h5py
    sim = make_sim(dim)
    sim.run(2e-4, output_dir=str(tmp_path), snapshot_interval=1e-4)
    final = sorted(tmp_path.glob("snapshot_*.h5"))[-1]
    properties = {"position": "positions", "velocity": "velocities", "id": "ids"}
    with h5py.File(final) as f:
        datasets = f["particles"]
        assert len(datasets) >= 12  # every field of the table, plus any added since
        for name, data in datasets.items():
            prop = properties.get(name, name)
            value = getattr(sim, prop)
            stored = data[()]
            if name in ("position", "velocity"):
                stored = stored[:, :dim]
            assert value.dtype == stored.dtype, name
            assert np.array_equal(value, stored), name
            assert f"[{data.attrs['units']}]" in getattr(rs.Simulation, prop).__doc__, name


def test_history_variables_are_reached_by_name():
    """The constitutive models' history variables (src/core/history.hpp) are fields a run
    registers from its materials, reached by name; Drucker-Prager and Rigid declare none."""
    sim = make_sim(2)
    assert sim.history_variables == []
    assert sim.derivatives()["history_rate"] == {}
    with pytest.raises(KeyError, match="no history variable 'porosity' .the run has: none"):
        sim.history("porosity")
