"""Prepared beds (regosph.bed): a bed 0.3 m deep comes to rest under Earth's gravity and under
1e-3 m/s^2 with the overburden stress rho g depth; a bed of another shape relaxes too; a saved
bed is loaded into a new simulation with a body added; bad input names the field. Coarse
resolution (1 cm, h = 2.5 cm): each preparation takes a few seconds."""
import json
import math

import numpy as np
import pytest

import regosph as rs
from regosph import post
from regosph.bed import REST_ENERGY_FRACTION, REST_SPEED_FRACTION

from regosph.examples import prepared_bed

DEPTH, WIDTH, DX = 0.3, 0.4, 0.01


@pytest.fixture(scope="module")
def earth_bed(tmp_path_factory):
    out = tmp_path_factory.mktemp("bed") / "earth"
    report = rs.prepare_bed(prepared_bed.build(DEPTH, WIDTH, 9.81, DX), str(out))
    return out, report


def check_at_rest_and_geostatic(report, g):
    """The rest criterion of regosph.bed and the issue's 2 % on rho g depth."""
    residual, stress = report["residual"], report["stress"]
    assert residual["at_rest"]
    # Observed: energy ratio 6e-9, speed ratio 3.4e-4 (of g H / c_p) at both gravities.
    assert residual["energy_ratio"] <= REST_ENERGY_FRACTION
    assert residual["speed_ratio"] <= REST_SPEED_FRACTION
    assert residual["max_speed"] <= REST_SPEED_FRACTION * g * DEPTH / report["wave_speed"] * 1.1
    # Observed: 0.2 % (bins at least h deep), 0.3 % of the base stress over all bins.
    assert stress["max_error_v"] <= 0.02
    assert stress["max_error_v_of_base"] <= 0.02
    assert report["bulk_density"] == pytest.approx(prepared_bed.REGOLITH["density"], rel=0.01)
    assert report["gravity"] == pytest.approx(g, rel=1e-12)
    # The horizontal stress keeps the at-rest ratio it started from (K0 raised into the cone).
    k0 = report["k0_values"]["regolith"]
    assert stress["mean_k"] == pytest.approx(k0, rel=0.05)
    profile = report["profile"]
    assert min(profile["depth"]) < DX and max(profile["depth"]) > DEPTH - DX


def test_bed_comes_to_rest_under_earth_gravity(earth_bed):
    out, report = earth_bed
    check_at_rest_and_geostatic(report, 9.81)
    on_disk = json.loads((out / "bed.json").read_text())
    assert on_disk["residual"] == report["residual"]
    assert (out / "bed_profile.csv").is_file()
    run = post.Run(out)
    assert run.diagnostics["kinetic_energy"].iloc[1:].max() == report["residual"]["kinetic_energy_max"]


def test_bed_comes_to_rest_under_low_gravity(tmp_path):
    report = rs.prepare_bed(prepared_bed.build(DEPTH, WIDTH, 1e-3, DX), str(tmp_path / "low"))
    check_at_rest_and_geostatic(report, 1e-3)


def test_jaky_k0_outside_the_plane_strain_cone_is_raised_into_it():
    from regosph.bed import smallest_k0_inside_yield
    params = dict(friction_angle_deg=42.0)
    k_min = smallest_k0_inside_yield(params, 2)
    alpha, _ = rs.drucker_prager_constants(42.0, 0.0, 2)
    # On the cone: sqrt(J2) + alpha I1 = 0 for sigma_v = -1, sigma_h = -k_min.
    assert (1 - k_min) / math.sqrt(3) - alpha * (1 + 2 * k_min) == pytest.approx(0.0, abs=1e-12)
    assert k_min > 1 - math.sin(math.radians(42.0))


def test_a_bed_with_a_sloping_surface_relaxes(tmp_path):
    """Any shape: a 15 degree slope (below the 42 degree friction angle). The column
    overburden is not its equilibrium, so the kinetic damping does real work."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    soil = sim.add_material(rs.DruckerPrager("regolith", **prepared_bed.REGOLITH))
    wall = sim.add_material(rs.Rigid("wall", density=1300.0))
    slope = rs.polygon([(0.0, 0.0), (0.4, 0.0), (0.4, 0.1 + 0.4 * math.tan(math.radians(15))),
                        (0.0, 0.1)])
    sim.add_body("bed", rs.lattice_fill(slope, DX), material=soil, motion="dynamic", spacing=DX,
                 smoothing_length=2.5 * DX)
    box = rs.subtract(rs.rectangle((-0.03, -0.03), (0.43, 0.25)), rs.rectangle((0, 0), (0.4, 1)))
    sim.add_body("box", rs.lattice_fill(box, DX), material=wall, motion="fixed", spacing=DX,
                 smoothing_length=2.5 * DX)
    report = rs.prepare_bed(sim, str(tmp_path / "slope"))
    assert report["relaxation"]["resets"] >= 3
    assert report["residual"]["at_rest"], report["residual"]


def test_a_bed_of_another_dynamic_model_relaxes(tmp_path):
    # An elastic solid (no friction angle: K0 from its moduli) takes its pressure from its
    # density, so its bed starts from the geostatic deviator alone; the strain energy and wave
    # speed come from the model through the bindings. Observed: at rest after 3491 steps,
    # energy ratio 9.5e-7, vertical stress within 0.8 % of rho g depth.
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -1.0, 0.0)
    rubber = rs.ElasticSolid("rubber", density=1000, bulk_modulus=1e6, shear_modulus=1e5)
    wall = sim.add_material(rs.Rigid("wall", density=1000))
    sim.add_body("b", rs.lattice_fill(rs.rectangle((0, 0), (0.3, 0.1)), DX),
                 material=sim.add_material(rubber), motion="dynamic", spacing=DX,
                 smoothing_length=2.5 * DX)
    box = rs.rectangle((-0.03, -0.03), (0.33, 0.12)) - rs.rectangle((0, 0), (0.3, 1))
    sim.add_body("box", rs.lattice_fill(box, DX), material=wall, motion="fixed", spacing=DX,
                 smoothing_length=2.5 * DX)
    report = rs.prepare_bed(sim, str(tmp_path / "rubber"), k0="elastic", tolerance=1e-6,
                            progress_interval=0)
    nu = (3 * 1e6 - 2 * 1e5) / (2 * (3 * 1e6 + 1e5))
    assert report["k0_values"]["rubber"] == pytest.approx(nu / (1 - nu), rel=1e-12)
    assert report["wave_speed"] == rubber.wave_speed  # at the reference density
    assert report["residual"]["at_rest"]
    assert report["stress"]["max_error_v"] <= 0.02


def test_saved_bed_starts_a_new_run_with_a_body_added(earth_bed, tmp_path):
    out, report = earth_bed
    sim = prepared_bed.build(DEPTH, WIDTH, 9.81, DX)
    loaded = rs.load_bed(sim, str(out))
    assert loaded["residual"] == report["residual"]
    snap = post.Run(out).snapshot(-1)
    n = len(snap)
    order = np.argsort(snap["id"])
    np.testing.assert_array_equal(sim.positions[:n], snap["position"][order][:, :2])
    np.testing.assert_array_equal(sim.stress[:n], snap["stress"][order])
    np.testing.assert_array_equal(sim.density[:n], snap["density"][order])
    assert sim.time == 0.0
    steel = sim.add_material(rs.Rigid("steel", density=2000.0))
    block = rs.rectangle((0.15, DEPTH + 0.02), (0.25, DEPTH + 0.06))
    sim.add_body("block", rs.lattice_fill(block, DX), material=steel, motion="rigid", spacing=DX,
                 smoothing_length=2.5 * DX, velocity=(0.0, -0.1))
    sim.run(0.01, output_dir=str(tmp_path / "impact"), snapshot_interval=0.01)
    state = sim.bodies_state()["block"]
    assert state["velocity"][1] == pytest.approx(-0.1 - 9.81 * sim.time, rel=1e-6)  # not yet in contact
    # The bed far from the block stays at rest: no damping was left on, and none was needed.
    far = (sim.kind == rs.KIND_DYNAMIC) & (np.abs(sim.positions[:, 0] - 0.2) > 0.12)
    v_scale = 9.81 * DEPTH / report["wave_speed"]
    assert np.abs(sim.velocities[far]).max() <= 2 * REST_SPEED_FRACTION * v_scale


@pytest.mark.parametrize("change, message", [
    (dict(k0="rankine"), "k0: 'rankine'"),
    (dict(k0=-0.5), "k0: -0.5"),
    (dict(tolerance=2.0), "tolerance: 2.0"),
    (dict(max_steps=0), "max_steps: 0"),
    (dict(check_periods=0.0), "check_periods: 0.0"),
    (dict(wall_margin=-1.0), "wall_margin: -1.0"),
    (dict(progress_interval=-1.0), "progress_interval: -1.0"),
])
def test_bad_options_name_the_field_and_write_nothing(tmp_path, change, message):
    out = tmp_path / "bed"
    with pytest.raises(ValueError, match=message):
        rs.prepare_bed(prepared_bed.build(0.05, 0.05, 9.81, DX), str(out), **change)
    assert not out.exists()


def test_bad_setups_name_the_field(tmp_path):
    out = str(tmp_path / "bed")
    with pytest.raises(ValueError, match=r"physics.gravity = \(0.0, 0.0, 0.0\)"):
        sim = prepared_bed.build(0.05, 0.05, 9.81, DX)
        sim.physics.gravity = (0.0, 0.0, 0.0)
        rs.prepare_bed(sim, out)
    sim = prepared_bed.build(0.05, 0.05, 9.81, DX)
    steel = sim.add_material(rs.Rigid("steel", density=2000.0))
    sim.add_body("lander", rs.lattice_fill(rs.rectangle((0.0, 0.1), (0.03, 0.13)), DX),
                 material=steel, motion="rigid", spacing=DX, smoothing_length=2.5 * DX)
    with pytest.raises(ValueError, match="body 'lander': motion 'rigid'"):
        rs.prepare_bed(sim, out)
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -1.0, 0.0)
    rubber = sim.add_material(rs.ElasticSolid("rubber", density=1000, bulk_modulus=1e6,
                                              shear_modulus=1e5))
    sim.add_body("b", rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), DX), material=rubber,
                 motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    with pytest.raises(ValueError, match="material 'rubber': k0 = 'jaky' .* needs "
                                         "friction_angle_deg, which its model ElasticSolid"):
        rs.prepare_bed(sim, out)
    with pytest.raises(ValueError, match="output_dir"):
        rs.prepare_bed(prepared_bed.build(0.05, 0.05, 9.81, DX), "")
    assert not (tmp_path / "bed").exists()


def test_loading_a_bed_into_a_different_setup_names_the_field(earth_bed, tmp_path):
    out, _ = earth_bed
    with pytest.raises(ValueError, match="physics.gravity: the bed .* settled under"):
        rs.load_bed(prepared_bed.build(DEPTH, WIDTH, 1e-3, DX), str(out))
    with pytest.raises(ValueError, match=r"material .regolith.: friction_angle_deg is 29\.99.* but 42\.0"):
        rs.load_bed(prepared_bed.build(DEPTH, WIDTH, 9.81, DX, friction_angle=30.0), str(out))
    with pytest.raises(ValueError, match="body 'bed': particles is"):
        rs.load_bed(prepared_bed.build(DEPTH, 0.2, 9.81, DX), str(out))
    with pytest.raises(ValueError, match="bed.json: missing"):
        sim = prepared_bed.build(DEPTH, WIDTH, 9.81, DX)
        sim.run(1e-4, output_dir=str(tmp_path / "plain"))
        rs.load_bed(prepared_bed.build(DEPTH, WIDTH, 9.81, DX), str(tmp_path / "plain"))
    with pytest.raises(ValueError, match="output_dir: .* already holds a run"):
        rs.prepare_bed(prepared_bed.build(DEPTH, WIDTH, 9.81, DX), str(out))


def test_relaxation_that_cannot_converge_says_so(tmp_path):
    with pytest.raises(RuntimeError, match="did not relax within max_steps = 3"):
        rs.prepare_bed(prepared_bed.build(0.1, 0.1, 9.81, DX), str(tmp_path / "b"), max_steps=3)


def test_density_is_settable_only_with_positive_values():
    """load_bed sets the settled density; the setter refuses what no density can be."""
    sim = prepared_bed.build(0.05, 0.05, 9.81, DX)
    rho = sim.density
    rho[0] = -1.0
    with pytest.raises(ValueError, match="density: entry 0 = -1.000000 must be positive"):
        sim.density = rho
    with pytest.raises(ValueError, match=r"density: expected an array of shape \(\d+,\)"):
        sim.density = rho[:3]
    rho[0] = 1234.5
    sim.density = rho
    assert sim.density[0] == 1234.5


def porous_bed_setup():
    """A 10 cm bed of the MASCOT regolith (1280 kg/m^3 from 2250 kg/m^3 grains) as
    rs.PorousDruckerPrager, prepared regolith's strength and moduli, in a fixed box."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    r = prepared_bed.REGOLITH
    soil = sim.add_material(rs.PorousDruckerPrager(
        "porous", grain_density=2250.0, porosity=1.0 - 1280.0 / 2250.0,
        bulk_modulus=r["bulk_modulus"], shear_modulus=r["shear_modulus"],
        friction_angle=r["friction_angle"], cohesion=r["cohesion"], elastic_strain=-1e-5,
        kappa=0.98, transition_distension=1.2))
    wall = sim.add_material(rs.Rigid("wall", density=1300.0))
    sim.add_body("bed", rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), DX), material=soil,
                 motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    box = rs.subtract(rs.rectangle((-0.03, -0.03), (0.23, 0.15)), rs.rectangle((0, 0), (0.2, 1)))
    sim.add_body("box", rs.lattice_fill(box, DX), material=wall, motion="fixed", spacing=DX,
                 smoothing_length=2.5 * DX)
    return sim


def test_a_porous_bed_is_prepared_at_its_porosity_and_loaded_with_it(tmp_path):
    """A bed of a porous model keeps its porosity at rest (bulk density rho_s (1 - phi)), the
    report gives it, and load_bed puts the distension back with the stress."""
    sim = porous_bed_setup()
    report = rs.prepare_bed(sim, str(tmp_path / "porous"))
    phi = 1.0 - 1280.0 / 2250.0
    assert report["residual"]["at_rest"], report["residual"]
    assert report["porosity"]["mean"] == pytest.approx(phi, abs=1e-3)
    assert report["porosity"]["max"] == pytest.approx(phi, abs=1e-12)
    assert report["bulk_density"] == pytest.approx(1280.0, rel=0.01)
    snap = post.Run(tmp_path / "porous").snapshot(-1)
    order = np.argsort(snap["id"])
    fresh = porous_bed_setup()
    fresh.set_history("distension", np.full(len(fresh.ids), 1.0))  # overwritten by the bed
    rs.load_bed(fresh, str(tmp_path / "porous"))
    n = int((snap["body"] == 0).sum())
    np.testing.assert_array_equal(fresh.history("distension")[:n],
                                  snap["distension"][order][:n])
    np.testing.assert_array_equal(fresh.history("volumetric_strain")[:n],
                                  snap["volumetric_strain"][order][:n])
    assert report_written(tmp_path / "porous")["porosity"] == report["porosity"]


def report_written(bed_dir):
    with open(bed_dir / "bed.json") as f:
        return json.load(f)


def test_a_bed_of_mohr_coulomb_soil_relaxes_and_reports_name_its_law(tmp_path):
    # prepared_bed's law= chooses the soil's constitutive law; a study's report names it from
    # the run's record (validation.physics_section)
    from regosph import validation
    out = tmp_path / "mc"
    report = rs.prepare_bed(prepared_bed.build(0.1, 0.2, 9.81, DX, law="MohrCoulomb",
                                               tensile_strength=0.0), str(out),
                            progress_interval=0)
    assert report["residual"]["at_rest"]
    assert report["stress"]["max_error_v"] <= 0.02
    lines = validation.physics_section([out])
    assert lines[2].startswith("- material regolith: MohrCoulomb (phi 42 deg, psi 0 deg, c 0 Pa, "
                               "sigma_t 0 Pa")
    assert lines[-2].startswith("- wall contact: box tension_cut")
    assert lines[-1].startswith("- numerical dissipation: Monaghan artificial viscosity")
    with pytest.raises(ValueError, match="law = 'MohrCoulmb': one of"):
        prepared_bed.build(0.1, 0.1, 9.81, DX, law="MohrCoulmb")
    with pytest.raises(ValueError, match="tensile_strength.* for DruckerPrager"):
        prepared_bed.build(0.1, 0.1, 9.81, DX, tensile_strength=0.0)


def test_the_relaxation_steps_with_monaghans_viscosity_and_the_check_with_the_runs(tmp_path):
    # The Riemann solver's limiter leaves particle-scale motion almost undamped, so kinetic
    # damping steps with Monaghan's viscosity (regosph.bed.RELAXATION_DISSIPATION); the
    # Riemann solver's options, errors under Monaghan's viscosity, are set aside meanwhile and
    # the undamped check runs with the run's own dissipation.
    sim = prepared_bed.build(0.1, 0.2, 9.81, DX)
    riemann = dict(dissipation="riemann", riemann_stress_jump="continuity", density_diffusion=0.1,
                   riemann_limiter=5.0)
    for name, value in riemann.items():
        setattr(sim.physics, name, value)
    report = rs.prepare_bed(sim, str(tmp_path / "riemann"))
    assert report["relaxation"]["dissipation"] == "monaghan"
    assert report["relaxation"]["last_peak_energy"] <= 1e-8 * report["strain_energy"]
    assert {name: getattr(sim.physics, name) for name in riemann} == riemann
    physics = json.loads((tmp_path / "riemann" / "run.json").read_text())["physics"]
    assert physics["dissipation"] == "riemann" and physics["riemann_stress_jump"] == "continuity"
