"""CAD tool meshes (regosph.read_mesh, issue 17 part 2): a cube and a sphere written as mesh files
(STL, OBJ) match the analytic shapes; units and scale; bad files raise ValueError naming the
file; a mesh shape fills lattices, makes wall layers, moves, drives a kinematic body and makes a
rigid one."""
import math

import meshio
import numpy as np
import pytest

import regosph as rs

RNG = np.random.default_rng(17)


def cube_surface(lo, hi):
    """The 12 outward triangles of the box [lo, hi]: (vertices (8, 3), triangles (12, 3))."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    corners = np.array([[(hi if (k >> d) & 1 else lo)[d] for d in range(3)] for k in range(8)])
    # Corner k has bit d set when it lies on the upper side along axis d.
    quads = [(0, 2, 3, 1), (4, 5, 7, 6),   # z = lo, z = hi
             (0, 1, 5, 4), (2, 6, 7, 3),   # y = lo, y = hi
             (0, 4, 6, 2), (1, 3, 7, 5)]   # x = lo, x = hi
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    return corners, np.array(tris)


def icosphere(centre, radius, level):
    """An icosahedron subdivided `level` times onto the sphere (20 * 4**level triangles)."""
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
         (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    v = [np.array(p) / np.linalg.norm(p) for p in v]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
         (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(level):
        mid = {}

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                p = v[a] + v[b]
                v.append(p / np.linalg.norm(p))
                mid[key] = len(v) - 1
            return mid[key]
        f = [g for a, b, c in f for ab, bc, ca in [(middle(a, b), middle(b, c), middle(c, a))]
             for g in ((a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca))]
    return np.asarray(centre) + radius * np.array(v), np.array(f)


def longest_edge(vertices, triangles):
    corners = vertices[triangles]
    return max(np.linalg.norm(corners[:, k] - corners[:, (k + 1) % 3], axis=1).max() for k in range(3))


def write(path, vertices, triangles, **kw):
    meshio.write_points_cells(str(path), vertices, [("triangle", np.asarray(triangles))], **kw)
    return path


def test_cube_file_in_mm_matches_the_box(tmp_path):
    edge = 0.04  # m
    lo, hi = np.array([0.01, -0.02, 0.005]), np.array([0.01, -0.02, 0.005]) + edge
    v, t = cube_surface(lo * 1e3, hi * 1e3)                       # the file is in mm
    for path, kw in ((tmp_path / "cube.stl", {"binary": True}), (tmp_path / "cube_ascii.stl", {}),
                     (tmp_path / "cube.obj", {})):
        mesh = rs.read_mesh(write(path, v, t, **kw), units="mm")
        assert isinstance(mesh, rs.Shape) and mesh.dim == 3 and mesh.name == str(path)
        assert mesh.triangle_count == 12 and mesh.vertex_count == 8
        assert mesh.volume == pytest.approx(edge ** 3, rel=1e-6)
        np.testing.assert_allclose(mesh.bounds, [lo, hi], rtol=1e-6)
        box = rs.box(tuple(lo), tuple(hi))
        dx = edge / 16
        n_mesh, n_box = len(rs.lattice_fill(mesh, dx)), len(rs.lattice_fill(box, dx))
        assert n_mesh * dx ** 3 == pytest.approx(edge ** 3, rel=0.01)
        assert n_mesh == pytest.approx(n_box, rel=0.01)
        p = lo + RNG.uniform(-0.5 * edge, 1.5 * edge, size=(2000, 3))
        err = np.abs(mesh.signed_distance(p) - box.signed_distance(p))
        assert err.max() < 0.01 * edge
        inside = box.signed_distance(p) < -1e-6
        assert np.array_equal(mesh.contains(p[inside | (box.signed_distance(p) > 1e-6)]),
                              inside[inside | (box.signed_distance(p) > 1e-6)])


def test_sphere_file_matches_the_ball_and_scale_applies(tmp_path):
    centre, r = np.array([0.02, 0.01, -0.03]), 0.03
    v, t = icosphere(centre, r, 5)
    path = write(tmp_path / "sphere.obj", v, t)
    mesh = rs.read_mesh(path)
    ball = rs.sphere(tuple(centre), r)
    volume = 4 / 3 * math.pi * r ** 3
    assert mesh.triangle_count == 20480
    dx = r / 25
    n = len(rs.lattice_fill(mesh, dx))
    assert n * dx ** 3 == pytest.approx(volume, rel=0.01)
    assert n == pytest.approx(len(rs.lattice_fill(ball, dx)), rel=0.01)
    p = centre + RNG.uniform(-2 * r, 2 * r, size=(3000, 3))
    err = np.abs(mesh.signed_distance(p) - ball.signed_distance(p))
    assert err.max() < 0.01 * longest_edge(v, t)
    assert err.max() < 0.01 * 2 * r
    # scale multiplies every coordinate (after the units): 2 x in each direction, 8 x the volume.
    big = rs.read_mesh(path, units="cm", scale=200.0)
    assert big.volume == pytest.approx(8 * mesh.volume, rel=1e-12)
    assert big.contains(tuple(2 * centre)) and not big.contains(tuple(2 * centre + 2.01 * r))


def test_inward_mesh_is_turned_round(tmp_path):
    v, t = cube_surface((0, 0, 0), (1, 1, 1))
    mesh = rs.read_mesh(write(tmp_path / "inward.stl", v, t[:, ::-1]))
    assert mesh.reoriented and mesh.volume == pytest.approx(1.0)
    assert mesh.contains((0.5, 0.5, 0.5)) and mesh.winding_number((0.5, 0.5, 0.5)) == 1
    assert mesh.signed_distance((0.5, 0.5, 0.25)) == pytest.approx(-0.25)


@pytest.mark.parametrize("fault, expected", [
    ("open", "the mesh is not closed: 3 edge(s) belong to one triangle only"),
    ("flipped", "inconsistent orientation"),
    ("degenerate", "degenerate triangle(s) of zero area"),
    ("empty", "the mesh is empty"),
    ("garbage", "cannot read a mesh from this file"),
    ("volume", "holds tetra cells"),
    ("flat", "the surface encloses no volume"),
])
def test_bad_meshes_raise_naming_the_file(tmp_path, fault, expected):
    v, t = cube_surface((0, 0, 0), (1, 1, 1))
    path = tmp_path / f"{fault}.obj"
    if fault == "open":      # one triangle missing: a hole with three open edges
        t = t[1:]
    elif fault == "flipped":
        t = t.copy()
        t[4] = t[4][::-1]
    elif fault == "degenerate":
        v = np.vstack([v, [[0.5, 0.5, 2.0]]])
        t = np.vstack([t, [[8, 8, 0]]])
    elif fault == "empty":
        path.write_text("# an OBJ file without faces\nv 0 0 0\n")
    elif fault == "garbage":
        path = tmp_path / "garbage.stl"
        path.write_bytes(b"solid x\n  facet normal nonsense\nendsolid\n")
    elif fault == "volume":
        path = tmp_path / "volume.vtu"
        meshio.write_points_cells(str(path), v[:4], [("tetra", np.array([[0, 1, 2, 4 - 1]]))])
    elif fault == "flat":    # a closed but flat surface: two triangles back to back
        t = np.array([[0, 1, 3], [0, 3, 1]])
    if fault in ("open", "flipped", "degenerate", "flat"):
        write(path, v, t)
    with pytest.raises(ValueError) as err:
        rs.read_mesh(path)
    assert str(path) in str(err.value) and expected in str(err.value)


def test_missing_file_and_bad_options():
    with pytest.raises(FileNotFoundError, match="nowhere.stl"):
        rs.read_mesh("nowhere.stl")
    with pytest.raises(ValueError, match="units: 'furlong'"):
        rs.read_mesh("nowhere.stl", units="furlong")
    with pytest.raises(ValueError, match="scale = -1"):
        rs.read_mesh("nowhere.stl", scale=-1)
    with pytest.raises(ValueError, match="my tool: triangles: expected an \\(N, 3\\) array"):
        rs.triangle_mesh(np.zeros((3, 3)), [[0, 1]], name="my tool")


def test_mesh_tool_fills_moves_and_drives_a_kinematic_body(tmp_path):
    v, t = cube_surface((-0.01, -0.01, 0.0), (0.01, 0.01, 0.02))
    tool = rs.read_mesh(write(tmp_path / "tool.stl", v, t))
    dx = 2.5e-3
    ref = rs.box((-0.01, -0.01, 0.0), (0.01, 0.01, 0.02))
    # wall_layer, translate and rotate act on the mesh as on the box it bounds.
    for f in (lambda s: rs.wall_layer(s, 2 * dx), lambda s: rs.translate(s, (0.1, 0.0, 0.0)),
              lambda s: rs.rotate(s, 30.0, about=(0.01, 0.0))):
        np.testing.assert_array_equal(rs.lattice_fill(f(tool), dx), rs.lattice_fill(f(ref), dx))
    # A kinematic tool turning at 600 rpm above a soil block: after 0.05 s (half a turn) its
    # particles are mirrored through the pivot axis.
    sim = rs.Simulation(dim=3)
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=3.33e6,
                                             shear_modulus=3.7e5, friction_angle=42, cohesion=5e4))
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("soil", rs.lattice_fill(rs.box((-0.02, -0.05, 0.0), (0.02, -0.04, 0.02)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    points = rs.lattice_fill(rs.translate(tool, (0.0, 0.02, 0.0)), dx)
    body = sim.add_body("tool", points, material=steel, motion="kinematic", spacing=dx,
                        smoothing_length=2.5 * dx,
                        kinematics=rs.Kinematics(rpm=600, pivot=(0.0, 0.02, 0.0)))
    mine = sim.body == body
    assert mine.sum() == len(rs.lattice_fill(ref, dx)) == 8 * 8 * 8
    x0 = sim.positions[mine].copy()
    sim.run(0.05, progress_interval=0)
    expected = x0 * [-1, -1, 1] + [0.0, 0.04, 0.0]
    np.testing.assert_allclose(sim.positions[mine], expected, atol=1e-12)


def test_mesh_makes_a_rigid_body_with_its_mass_and_centre(tmp_path):
    v, t = cube_surface((-0.02,) * 3, (0.02,) * 3)
    mesh = rs.read_mesh(write(tmp_path / "body.stl", v, t))
    sim = rs.Simulation(dim=3)
    soft = sim.add_material(rs.ElasticSolid("soft", density=1000, bulk_modulus=1.0, shear_modulus=0.0))
    sim.add_body("far", np.array([[10.0] * 3]), material=soft, motion="dynamic", spacing=0.01,
                 smoothing_length=0.025)
    steel = sim.add_material(rs.Rigid("steel", density=1000))
    sim.add_body("body", rs.lattice_fill(rs.translate(mesh, (0.1, 0.0, 0.0)), 0.01), material=steel,
                 motion="rigid", spacing=0.01, smoothing_length=0.025, velocity=(0.5, 0.0, 0.0))
    state = sim.bodies_state()["body"]
    assert state["mass"] == pytest.approx(1000 * 0.04 ** 3)   # 4 x 4 x 4 particles of 1 cm
    np.testing.assert_allclose(state["centre"], (0.1, 0.0, 0.0), atol=1e-12)
    sim.run(0.1, progress_interval=0)                          # free flight at 0.5 m/s
    np.testing.assert_allclose(sim.bodies_state()["body"]["centre"], (0.15, 0.0, 0.0), atol=1e-9)
