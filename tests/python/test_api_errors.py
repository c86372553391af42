"""API misuse gets an answer that says what was expected and what came (issue 15, item 13):
bounds with the run's number of coordinates, a Material object where an index is expected,
non-string metadata, array shapes, and docstrings on every option attribute."""
import numpy as np
import pytest

import regosph as rs

DX = 0.01
H = 2.5 * DX
SOIL = dict(density=2650.0, bulk_modulus=0.7e6, poisson_ratio=0.3, friction_angle=19.8,
            cohesion=0.0)


def block(sim, dim=2):
    shape = rs.rectangle((0, 0), (0.05, 0.05)) if dim == 2 else rs.box((0, 0, 0), (0.03, 0.03, 0.03))
    return rs.lattice_fill(shape, DX)


def soil_sim(dim=2):
    sim = rs.Simulation(dim=dim)
    mat = sim.add_material(rs.DruckerPrager("soil", **SOIL))
    sim.add_body("soil", block(sim, dim), material=mat, motion="dynamic", spacing=DX,
                 smoothing_length=H)
    return sim


# --- bounds -------------------------------------------------------------------------------

def test_bounds_take_two_numbers_in_2d(tmp_path):
    sim = soil_sim()
    sim.set_bounds((0.0, 0.0), (0.03, 1.0))  # the block reaches x = 0.05
    with pytest.raises(ValueError, match="outside the bounds"):
        sim.run(0.01, output_dir=str(tmp_path / "out"), progress_interval=0)
    sim = soil_sim()
    sim.set_bounds((-1.0, -1.0), (1.0, 1.0))
    sim.advance(1e-5)  # inside: runs


def test_a_particle_leaving_the_bounds_stops_the_run_naming_the_first_one(tmp_path):
    # A block of 40 x 40 particles (more than one of the check's blocks of 1024) and two lone
    # particles beside it, stored after it, thrown out of the bounds together. The run stops at
    # the first step with a particle outside and names the one that comes first in storage
    # order.
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(rs.DruckerPrager("soil", **SOIL))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.4, 0.4)), DX), material=mat,
                 motion="dynamic", spacing=DX, smoothing_length=H)
    for name, y in (("stone 1", 0.3), ("stone 2", 0.1)):
        sim.add_body(name, np.array([[0.45, y]]), material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=H)
    n = len(sim.ids)
    assert n == 1602
    sim.set_bounds((-0.1, -0.1), (0.5, 0.5))
    v = np.zeros_like(sim.velocities)
    v[1600:, 0] = 1e4  # [m/s]: both out through x = 0.5 after 5 microseconds
    sim.velocities = v
    with pytest.raises(rs.BlowUpError) as err:
        sim.run(0.01, output_dir=str(tmp_path / "out"), progress_interval=0)
    message = str(err.value)
    assert "left the bounds at (0.5" in message, message
    assert f"particle id {sim.ids[1600]} " in message, message


@pytest.mark.parametrize("component", [4, 5])  # xz, yz
def test_a_2d_state_with_out_of_plane_shear_is_refused_before_any_output(tmp_path, component):
    # Plane strain has no xz or yz stress: a 2D run neither computes nor integrates them, so a
    # state with one (set by hand, or read from elsewhere) must not start, and must say which
    # particle has it.
    sim = soil_sim()
    stress = np.zeros_like(sim.stress)
    stress[:, 0] = stress[:, 1] = stress[:, 2] = -100.0  # [Pa] allowed: normal components
    stress[3, 3] = 50.0                                  # [Pa] allowed: in-plane shear
    sim.stress = stress
    sim.advance(1e-6)  # a plane-strain state runs
    stress = sim.stress.copy()
    stress[7, component] = 5.0  # [Pa]
    sim.stress = stress
    out = tmp_path / "out"
    with pytest.raises(ValueError) as err:
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    message = str(err.value)
    assert f"particle id {sim.ids[7]} has out-of-plane shear stress" in message, message
    assert ("xz 5 Pa" if component == 4 else "yz 5 Pa") in message, message
    assert not out.exists() or not any(out.iterdir())
    # In 3D the same components are the run's own.
    sim3 = soil_sim(dim=3)
    stress = np.zeros_like(sim3.stress)
    stress[7, component] = 5.0
    sim3.stress = stress
    sim3.advance(1e-6)
    assert sim3.stress[:, component].any()


@pytest.mark.parametrize("lo,got", [((0.0, 0.0), "got 2 numbers"), ((0.0,), "got 1 number"),
                                    ("corner", "got 'corner'")])
def test_bounds_say_what_a_3d_run_needs_and_what_came(lo, got):
    with pytest.raises(ValueError) as err:
        soil_sim(dim=3).set_bounds(lo, (1.0, 1.0, 1.0))
    message = str(err.value)
    assert message.startswith("bounds: lo: expected 3 numbers (x, y, z) in m for a 3D simulation")
    assert got in message


def test_set_domain_points_to_set_bounds():
    with pytest.raises(AttributeError, match=r"renamed set_bounds\(lo, hi\)"):
        soil_sim().set_domain((0, 0, 0), (1, 1, 0))


# --- a Material where an index is expected -------------------------------------------------

def test_add_body_and_add_observer_accept_an_added_material_object():
    sim = rs.Simulation(dim=2)
    soil = rs.DruckerPrager("soil", **SOIL)
    wall = rs.Rigid("wall", density=2650.0)
    sim.add_material(wall)
    sim.add_material(soil)
    sim.add_body("a", block(sim), material=soil, motion="dynamic", spacing=DX, smoothing_length=H)
    floor = rs.lattice_fill(rs.rectangle((-0.03, -0.03), (0.2, 0.0)), DX)
    sim.add_body("floor", floor, material=wall, motion="fixed", spacing=DX, smoothing_length=H)
    assert [m.name for m in sim.materials] == ["wall", "soil"]
    assert set(sim.material[sim.body == 0]) == {1} and set(sim.material[sim.body == 1]) == {0}
    sim.add_observer("region", rs.rectangle((0, 0), (0.1, 0.1)), material=soil)
    assert sim.observe()["region"][0] == 25


def test_a_material_object_not_added_says_how_to_add_it():
    sim = rs.Simulation(dim=2)
    soil = rs.DruckerPrager("soil", **SOIL)
    with pytest.raises(ValueError) as err:
        sim.add_body("a", block(sim), material=soil, motion="dynamic", spacing=DX,
                     smoothing_length=H)
    assert "body 'a': material: Material 'soil' has not been added" in str(err.value)
    assert "sim.add_material(" in str(err.value)
    assert sim.materials == [] and sim.size == 0


def test_a_different_material_under_a_taken_name_is_refused():
    sim = soil_sim()
    other = rs.DruckerPrager("soil", **{**SOIL, "friction_angle": 30.0})
    with pytest.raises(ValueError) as err:
        sim.add_body("b", block(sim) + [0.1, 0.0], material=other, motion="dynamic",
                     spacing=DX, smoothing_length=H)
    message = str(err.value)
    assert "body 'b': material" in message and "'soil'" in message and "index 0" in message


def test_material_of_another_type_says_what_is_expected():
    sim = rs.Simulation(dim=2)
    with pytest.raises(TypeError) as err:
        sim.add_body("a", block(sim), material="soil", motion="dynamic", spacing=DX,
                     smoothing_length=H)
    message = str(err.value)
    assert "body 'a': material" in message and "add_material" in message and "str" in message


# --- metadata -------------------------------------------------------------------------------

def test_non_string_metadata_names_the_key(tmp_path):
    sim = soil_sim()
    with pytest.raises(TypeError) as err:
        sim.run(1e-4, output_dir=str(tmp_path / "out"), metadata={"setup": "test", "spacing_m": 0.01})
    message = str(err.value)
    assert "metadata['spacing_m']" in message and "float" in message and "str(" in message
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    with pytest.raises(TypeError, match="metadata: expected a dict"):
        sim.run(1e-4, metadata=["setup"])


# --- shapes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("field,columns", [("positions", 2), ("velocities", 2), ("stress", 6)])
def test_field_setters_say_which_shape_came(field, columns):
    sim = soil_sim()
    with pytest.raises(ValueError) as err:
        setattr(sim, field, np.zeros((3, 4)))
    assert f"expected an array of shape ({sim.size}, {columns})" in str(err.value)
    assert "got shape (3, 4)" in str(err.value)


def test_positions_of_a_body_say_which_shape_came():
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(rs.DruckerPrager("soil", **SOIL))
    with pytest.raises(ValueError, match=r"got shape \(2, 3, 2\)"):
        sim.add_body("a", np.zeros((2, 3, 2)), material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=H)


# --- option docstrings ----------------------------------------------------------------------

@pytest.mark.parametrize("cls", [rs.PhysicsParameters, rs.IntegratorOptions])
def test_every_option_attribute_has_a_docstring(cls):
    names = [n for n in dir(cls) if not n.startswith("_")]
    assert len(names) >= 5
    for name in names:
        doc = getattr(cls, name).__doc__ or ""
        assert len(doc) > 20, f"{cls.__name__}.{name} has no docstring"
