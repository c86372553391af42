"""Geometry from Python: shapes with signed distances, transforms, lattice fills and graded
(variable-resolution) fills, and the errors bad input raises (ValueError naming the field)."""
import math

import numpy as np
import pytest

import regosph as rs

RNG = np.random.default_rng(20240603)


def filled_area(points, spacing):
    return len(points) * spacing ** 2


def brush(pivot=(0.0, 0.0), hub=0.015, tip=0.035, width=0.002):
    """The sampler's brush (SPEC.md section 8): a hub and 12 bristles 30 degrees apart."""
    shape = rs.disc(pivot, hub)
    bristle = rs.rectangle((pivot[0], pivot[1] - width / 2), (pivot[0] + tip, pivot[1] + width / 2))
    for k in range(12):
        shape = shape | rs.rotate(bristle, 30.0 * k, about=pivot)
    return shape


def test_signed_distance_at_known_points_scalar_and_vectorised():
    r = rs.rectangle((0, 0), (2, 1))
    assert r.signed_distance((1, 0.5)) == pytest.approx(-0.5)
    assert r.signed_distance((3, 2, 0)) == pytest.approx(math.sqrt(2))
    d = rs.disc((1, 1), 0.5)
    np.testing.assert_allclose(d.signed_distance(np.array([[1, 1], [2, 1], [1, 1.3]])), [-0.5, 0.5, -0.2])
    a = rs.annulus((0, 0), 1, 2)
    np.testing.assert_allclose(a.signed_distance([[1.5, 0], [0.25, 0], [3, 0]]), [-0.5, 0.75, 1.0])
    s = rs.annular_sector((0, 0), 1, 2, start_angle=0, opening=90)
    np.testing.assert_allclose(s.signed_distance([[1.2, 0.1], [1.5, -0.5], [-1, -1]]),
                               [-0.1, 0.5, math.sqrt(5)])
    t = rs.polygon([(0, 0), (4, 0), (0, 3)])
    assert t.signed_distance((1, 1)) == pytest.approx(-1.0)
    assert t.signed_distance((4, 3)) == pytest.approx(12 / 5)
    c = rs.cylinder((0, 0), 1, 0, 2)
    np.testing.assert_allclose(c.signed_distance([[0, 0, 1.5], [3, 0, 1], [2, 0, 3]]), [-0.5, 2, math.sqrt(2)])
    assert rs.sphere((0, 0, 0), 1).signed_distance((0, 0, 3)) == pytest.approx(2.0)
    e = rs.extrude(rs.disc((0, 0), 1), 0, 2)
    assert e.dim == 3 and e.signed_distance((0, 0, 1.5)) == pytest.approx(-0.5)
    m = rs.translate(rs.rotate(rs.rectangle((0, 0), (2, 1)), 90), (1, 0))  # (0, 1] x [0, 2)
    assert m.contains((0.5, 1.5)) and not m.contains((1.5, 1.5))
    np.testing.assert_allclose(m.bounds, [[0.0, 0.0], [1.0, 2.0]], atol=1e-15)
    mask = m.contains(np.array([[0.5, 1.5], [1.5, 1.5], [0.5, -0.1]]))
    assert mask.dtype == bool and mask.tolist() == [True, False, False]


@pytest.mark.parametrize("shape", [
    brush(),
    rs.annular_sector((0.001, 0.0), 0.036, 0.041, 230, 80),
    rs.polygon([(-0.03, -0.03), (0.04, -0.02), (0.0, 0.0), (0.03, 0.04), (-0.02, 0.03)]),
    rs.rectangle((-0.04, -0.04), (0.04, 0.04)) - rs.disc((0, 0), 0.02),
    rs.disc((0, 0), 0.03) & rs.rectangle((0, -1), (1, 1)),
    rs.wall_layer(rs.rectangle((-0.02, -0.02), (0.02, 0.01)), 0.006),
])
def test_contains_agrees_with_the_sign_of_the_distance(shape):
    pts = RNG.uniform(-0.05, 0.05, size=(5000, 2))
    d = shape.signed_distance(pts)
    inside = shape.contains(pts)
    keep = np.abs(d) > 1e-12
    assert inside[keep].any() and not inside[keep].all()
    np.testing.assert_array_equal(inside[keep], d[keep] < 0)


def test_rotate_by_360_degrees_keeps_membership():
    s = brush(pivot=(0.01, 0.0)) | rs.annular_sector((0.01, 0.0), 0.038, 0.042, 100, 80)
    pts = RNG.uniform(-0.05, 0.05, size=(20000, 2))
    np.testing.assert_array_equal(rs.rotate(s, 360, about=(0.003, 0.02)).contains(pts), s.contains(pts))
    assert (rs.rotate(s, 15, about=(0.01, 0.0)).contains(pts) != s.contains(pts)).sum() > 100


def shoelace(vertices):
    v = np.asarray(vertices, dtype=float)
    return 0.5 * abs(np.dot(v[:, 0], np.roll(v[:, 1], -1)) - np.dot(v[:, 1], np.roll(v[:, 0], -1)))


QUAD = [(0.0, 0.0), (0.05, 0.0), (0.06, 0.04), (0.01, 0.03)]
AREAS = [
    (rs.rectangle((0.0013, -0.0021), (0.0613, 0.0379)), 0.06 * 0.04),
    (rs.disc((0.0011, 0.0023), 0.02), math.pi * 0.02 ** 2),
    (rs.annulus((0, 0), 0.015, 0.035), math.pi * (0.035 ** 2 - 0.015 ** 2)),
    (rs.annular_sector((0, 0), 0.040, 0.045, 230, 80), math.pi * (0.045 ** 2 - 0.040 ** 2) * 80 / 360),
    (rs.polygon(QUAD), shoelace(QUAD)),
    (rs.polygon(QUAD[::-1]), shoelace(QUAD)),
]


@pytest.mark.parametrize("lattice", ["square", "hexagonal"])
@pytest.mark.parametrize("case", range(len(AREAS)))
def test_filled_area_is_count_times_spacing_squared(case, lattice):
    shape, area = AREAS[case]
    dx = 5e-4
    pts = rs.lattice_fill(shape, dx, lattice=lattice)
    assert pts.shape[1] == 2 and pts.dtype == np.float64
    assert filled_area(pts, dx) == pytest.approx(area, rel=0.02)
    assert shape.contains(pts).all()


def test_cubic_fill_volume_and_hexagonal_neighbour_distance():
    dx = 1e-3
    pts = rs.lattice_fill(rs.cylinder((0.0004, 0.0002), 0.02, -0.01, 0.0213), dx, lattice="cubic")
    assert pts.shape[1] == 3
    assert len(pts) * dx ** 3 == pytest.approx(math.pi * 0.02 ** 2 * 0.0313, rel=0.02)
    hexa = rs.lattice_fill(rs.rectangle((0, 0), (0.01, 0.01)), dx, lattice="hexagonal")
    d = np.linalg.norm(hexa[:, None, :] - hexa[None, :, :], axis=2)
    np.fill_diagonal(d, np.inf)
    assert d.min() == pytest.approx(dx * math.sqrt(2 / math.sqrt(3)))


def test_default_square_fill_is_the_cell_centred_lattice():
    dx, origin = 2.582e-3, (0.0004, -0.0011, 0.0)
    pts = rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), dx, origin)
    i = (pts[:, 0] - origin[0]) / dx - 0.5
    j = (pts[:, 1] - origin[1]) / dx - 0.5
    np.testing.assert_allclose(pts[:, 0], origin[0] + (np.round(i) + 0.5) * dx, rtol=0, atol=1e-15)
    np.testing.assert_allclose(pts[:, 1], origin[1] + (np.round(j) + 0.5) * dx, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), dx, origin, lattice="square"), pts)


def test_wall_layer_area():
    a, b, t, dx = 0.1, 0.06, 0.0075, 2.5e-4
    layer = rs.wall_layer(rs.rectangle((0, 0), (a, b)), t)
    assert filled_area(rs.lattice_fill(layer, dx), dx) == pytest.approx(2 * t * (a + b) + math.pi * t * t, rel=0.02)
    grown = rs.offset(rs.disc((0, 0), 0.01), 0.005)
    assert grown.contains((0.0149, 0)) and not grown.contains((0.0151, 0))


def test_graded_fill_bodies_pass_the_overlap_check_and_keep_the_bulk_density():
    fine, ratio, rho = 1e-3, 2.0, 1500.0
    centre = (0.0013, -0.0007)
    inner, mid = rs.disc(centre, 0.025), rs.disc(centre, 0.045)
    zones = rs.graded_fill([(inner, fine), (mid, ratio * fine)], lattice="hexagonal")
    assert [s for _, s in zones] == [fine, ratio * fine]
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", density=rho, bulk_modulus=1e6, poisson_ratio=0.3,
                                             friction_angle=30, cohesion=0))
    for k, (pos, s) in enumerate(zones):
        sim.add_body(f"zone {k}", pos, material=soil, motion="dynamic", spacing=s, smoothing_length=1.3 * s)
    areas = [math.pi * 0.025 ** 2, math.pi * (0.045 ** 2 - 0.025 ** 2)]
    for k in range(2):
        sel = sim.body == k
        assert sim.mass[sel].sum() / areas[k] == pytest.approx(rho, rel=0.02)  # kg/m per m^2
        assert np.all(sim.smoothing_length[sel] == 1.3 * zones[k][1])
    # Closest pair across the interface: at least half the finer spacing.
    a, b = zones[0][0], zones[1][0]
    gap = min(np.linalg.norm(b - p, axis=1).min() for p in a[inner.signed_distance(a) > -3 * fine])
    assert gap >= 0.5 * fine


@pytest.mark.parametrize("call, field", [
    (lambda: rs.disc((0, 0), -1.0), "radius"),
    (lambda: rs.disc((float("nan"), 0), 1.0), "centre.x"),
    (lambda: rs.annulus((0, 0), 0.02, 0.01), "r_in"),
    (lambda: rs.annular_sector((0, 0), 0.01, 0.02, 0, 400), "opening"),
    (lambda: rs.polygon([(0, 0), (1, 0)]), "vertices"),
    (lambda: rs.polygon([(0, 0), (1, float("nan")), (0, 1)]), "vertices[1].y"),
    (lambda: rs.polygon([(0, 0), (1, 1), (1, 0), (0, 1)]), "simple"),
    (lambda: rs.cylinder((0, 0), 1, 2, 1), "z1"),
    (lambda: rs.rotate(rs.disc((0, 0), 1), float("nan")), "angle"),
    (lambda: rs.rotate(rs.disc((0, 0), 1), 10, about=(1, 2, 3)), "about"),
    (lambda: rs.wall_layer(rs.disc((0, 0), 1), -0.1), "thickness"),
    (lambda: rs.disc((0, 0), 1).contains([[1, 2, 3, 4]]), "points"),
    (lambda: rs.lattice_fill(rs.disc((0, 0), 1), float("nan")), "spacing"),
    (lambda: rs.lattice_fill(rs.disc((0, 0), 1), 1e-5), "spacing"),
    (lambda: rs.lattice_fill(rs.disc((0, 0), 1), 0.1, lattice="hex"), "lattice"),
    (lambda: rs.lattice_fill(rs.disc((0, 0), 1), 0.1, lattice="cubic"), "lattice"),
    (lambda: rs.graded_fill([(rs.disc((0, 0), 1), 0.2), (rs.disc((0, 0), 2), 0.1)]), "zones[1].spacing"),
    (lambda: rs.graded_fill([(rs.disc((0, 0), 1), 0.1), ("disc", 0.2)]), "zones[1].shape"),
    (lambda: rs.graded_fill([(rs.disc((0, 0), 1),)]), "zones[0]"),
])
def test_bad_input_raises_value_error_naming_the_field(call, field):
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        call()
