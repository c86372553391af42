"""A body given as a Shape (Simulation.add_body): the lattice fill of the shape, as
rs.lattice_fill gives it, built in the core (under MPI each rank builds its share only:
tests/python/test_mpi.py and the MPI gate's split case), and the errors of bad input."""
import numpy as np
import pytest

import regosph as rs

DX = 0.01


def new_setup(dim=2):
    sim = rs.Simulation(dim=dim)
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=1e6,
                                             poisson_ratio=0.3, friction_angle=30, cohesion=0))
    wall = sim.add_material(rs.Rigid("wall", density=1500))
    return sim, soil, wall


def test_a_shape_gives_the_bodies_of_its_lattice_fill():
    bed = rs.disc((0.0, 0.0), 0.1)
    box = rs.rectangle((-0.15, -0.15), (0.15, -0.11))
    origin = (0.003, 0.0, 0.0)
    whole, soil, wall = new_setup()
    whole.add_body("bed", rs.lattice_fill(bed, DX, origin, lattice="hexagonal"), material=soil,
                   motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    whole.add_body("box", rs.lattice_fill(box, DX), material=wall, motion="fixed", spacing=DX,
                   smoothing_length=2.5 * DX)
    shaped, soil, wall = new_setup()
    shaped.add_body("bed", bed, origin=origin, lattice="hexagonal", material=soil,
                    motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    shaped.add_body("box", box, material=wall, motion="fixed", spacing=DX,
                    smoothing_length=2.5 * DX)
    assert not shaped.split_setup  # one rank holds everything
    for name in ("positions", "ids", "body", "material", "kind", "mass", "density"):
        assert np.array_equal(getattr(whole, name), getattr(shaped, name)), name
    assert whole.describe() == shaped.describe()


def test_a_rigid_body_from_a_shape_has_the_mass_properties_of_its_fill():
    whole, soil, wall = new_setup()
    disc = rs.disc((0.0, 0.2), 0.03)
    whole.add_body("disc", rs.lattice_fill(disc, DX), material=soil, motion="rigid", spacing=DX,
                   smoothing_length=2.5 * DX)
    shaped, soil, wall = new_setup()
    shaped.add_body("disc", disc, material=soil, motion="rigid", spacing=DX,
                    smoothing_length=2.5 * DX)
    assert whole.describe() == shaped.describe()  # mass, centre, inertia


@pytest.mark.parametrize("positions, extra, message", [
    (rs.disc((5.0, 5.0), 1e-4), {}, "body 'b': shape: no lattice point lies inside it"),
    (rs.box((0, 0, 0), (0.1, 0.1, 0.1)), {}, "body 'b': shape is 3D, the simulation 2D"),
    (np.zeros((3, 2)), {"origin": (0.0, 0.0)}, "body 'b': origin and lattice go with a shape"),
    (rs.disc((0, 0), 0.1), {"lattice": "cubic"}, "lattice: 'cubic' is a 3D lattice"),
])
def test_bad_shape_bodies_are_refused_naming_the_field(positions, extra, message):
    sim, soil, _ = new_setup()
    with pytest.raises(ValueError, match=message):
        sim.add_body("b", positions, material=soil, motion="dynamic", spacing=DX,
                     smoothing_length=2.5 * DX, **extra)
