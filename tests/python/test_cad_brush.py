"""The CAD brush example (issue 17 part 2): examples/cad/make_brush_mesh.py writes the sampler's
brush as a closed mesh in mm; examples/brush_sampler_3d.py --brush-mesh builds both brushes from
it. The mesh is the 2D brush's outline, so its lattice fill matches the brush geometry."""
import math
import subprocess
import sys

import numpy as np
import pytest

from regosph.examples import brush_sampler as bs
from regosph.examples import brush_sampler_3d as b3
import regosph as rs
from conftest import EXAMPLES

DX, DEPTH = 2.5e-3, 0.01


@pytest.fixture(scope="module")
def brush_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cad") / "brush.stl"
    out = subprocess.run([sys.executable, str(EXAMPLES / "cad" / "make_brush_mesh.py"),
                          str(path), "--width", str(DEPTH * 1e3), "--thickness", "5"],
                         capture_output=True, text=True, check=True)
    assert f"wrote {path}" in out.stdout
    return path


def brush_area(thickness):
    """Area [m^2] of the brush outline: the hub disc plus 12 bristles from the hub circle out
    to the tip radius (each a rectangle minus the circular segment it shares with the hub)."""
    r, half = bs.HUB_RADIUS, 0.5 * thickness
    join = math.sqrt(r ** 2 - half ** 2)
    segment = r ** 2 * math.asin(half / r) - half * join  # hub area beyond the join line
    return math.pi * r ** 2 + bs.N_BRISTLES * (thickness * (bs.TIP_RADIUS - join) - segment)


def test_brush_mesh_is_the_brush_in_mm(brush_file):
    mesh = rs.read_mesh(brush_file, units="mm")
    assert not mesh.reoriented
    assert mesh.volume == pytest.approx(brush_area(5e-3) * DEPTH, rel=2e-3)  # arcs as chords
    (lo, hi) = (np.array(b) for b in mesh.bounds)
    assert lo[2] == pytest.approx(0.0) and hi[2] == pytest.approx(DEPTH)
    # One bristle points straight down, its tip at the tip radius; the hub is solid.
    assert lo[1] == pytest.approx(-bs.TIP_RADIUS, rel=1e-6)
    assert mesh.contains((0.0, -0.034, 0.005)) and mesh.contains((0.0, 0.0, 0.005))
    assert not mesh.contains((0.0, -0.036, 0.005))
    # Between two bristles, outside the hub: empty.
    a = math.radians(-75.0)
    assert not mesh.contains((0.025 * math.cos(a), 0.025 * math.sin(a), 0.005))


def test_sampler_brushes_from_the_mesh(brush_file):
    mesh = rs.read_mesh(brush_file, units="mm")
    sim = b3.build("E0", DX, DEPTH, brush_mesh=mesh)
    extruded = b3.build("E0", DX, DEPTH)
    for side, sign in (("left", -1), ("right", 1)):
        mine = sim.body == sim.body_names.index(f"brush {side}")
        x = sim.positions[mine]
        # Filled volume: count x spacing^3 against the mesh volume (5 mm bristles: 2 rows).
        assert mine.sum() * DX ** 3 == pytest.approx(mesh.volume, rel=0.1)
        pivot = np.array([sign * 0.5 * bs.PIVOT_DISTANCE, bs.PIVOT_HEIGHT])
        r = np.hypot(*(x[:, :2] - pivot).T)
        assert r.max() < bs.TIP_RADIUS and r.max() > bs.TIP_RADIUS - DX
        assert x[:, 2].min() > 0.0 and x[:, 2].max() < DEPTH
    # Every other body is the extruded setup's, unchanged.
    assert sim.body_names == extruded.body_names
    for k, name in enumerate(sim.body_names):
        if not name.startswith("brush"):
            np.testing.assert_array_equal(sim.positions[sim.body == k],
                                          extruded.positions[extruded.body == k])


def test_sampler_refuses_a_bad_brush_mesh(tmp_path, capsys):
    bad = tmp_path / "open.stl"
    bad.write_text("solid open\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n"
                   "   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid open\n")
    with pytest.raises(SystemExit) as exit_:
        b3.main(["--run", "E0", "--output", str(tmp_path / "run"), "--brush-mesh", str(bad)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"--brush-mesh: {bad}: the mesh is not closed" in err
    assert not (tmp_path / "run").exists()
