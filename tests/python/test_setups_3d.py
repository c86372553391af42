"""The 3D setups (examples/soil_collapse_3d.py, examples/brush_sampler_3d.py): their particle
counts and masses against the geometry, the placement of tools, walls and the tray observer, and
short coarse runs (issue 4, "3D at scale")."""
import json

import h5py
import numpy as np
import pandas as pd
import pytest

from regosph.examples import brush_sampler as bs
from regosph.examples import brush_sampler_3d as b3
import regosph as rs
from regosph.examples import soil_collapse as sc
from regosph.examples import soil_collapse_3d as c3

DENSITY_BED = bs.REGOLITH["density"]  # kg/m^3


def part(sim, name):
    return sim.body == sim.body_names.index(name)


def named(sim, *words):
    """Mask of the bodies whose names contain any of the words."""
    return np.isin(sim.body, [i for i, n in enumerate(sim.body_names) if any(w in n for w in words)])


# --- soil collapse --------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [0.1, 0.05])
def test_collapse_counts_scale_and_soil_mass(depth):
    coarse, fine = (sc.build(s, depth=depth) for s in (1e-2, 5e-3))
    soil = [int((s.kind == rs.KIND_DYNAMIC).sum()) for s in (coarse, fine)]
    # Volume-filling soil: 8x the particles at half the spacing. The walls, three layers thick,
    # hold their volume over spacing^3 (estimated_count, with the soil).
    assert soil[1] / soil[0] == pytest.approx(8.0, rel=0.02)
    for sim, s in ((coarse, 1e-2), (fine, 5e-3)):
        dynamic = sim.kind == rs.KIND_DYNAMIC
        block = sc.BLOCK_LENGTH * sc.BLOCK_HEIGHT * depth  # m^3
        assert sim.mass[dynamic].sum() == pytest.approx(sc.SOIL["density"] * block, rel=0.02)
        assert sim.size == pytest.approx(c3.estimated_count(s, depth), rel=0.01)


def test_collapse_walls_enclose_the_block():
    s, depth = 1e-2, 0.05
    sim = sc.build(s, depth=depth)
    x = sim.positions
    soil, wall = sim.kind == rs.KIND_DYNAMIC, sim.kind == rs.KIND_BOUNDARY
    lo, hi = x[soil].min(axis=0) - 0.5 * s, x[soil].max(axis=0) + 0.5 * s
    np.testing.assert_allclose(lo, [0.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(hi, [sc.BLOCK_LENGTH, sc.BLOCK_HEIGHT, depth], atol=1e-12)
    w = x[wall]
    # Back wall, floor and both side walls, each at least one support radius thick.
    thickness = sc.SMOOTHING_FACTOR * s
    assert w[:, 0].min() < -thickness + s and w[:, 1].min() < -thickness + s
    assert w[:, 2].min() < -thickness + s and w[:, 2].max() > depth + thickness - s
    # No wall particle inside the box the soil may occupy.
    inside = np.all((w > [0.0, 0.0, 0.0]) & (w < [sc.FLOOR_LENGTH, sc.WALL_HEIGHT, depth]), axis=1)
    assert not inside.any()


def test_collapse_target_particles_picks_the_spacing():
    sim, spacing = c3.build(depth=0.05, target_particles=30_000)
    assert 30_000 <= sim.size < 31_500
    assert spacing == pytest.approx(c3.spacing_for(30_000, 0.05), rel=0.02)
    with pytest.raises(ValueError, match="target-particles"):
        c3.spacing_for(0, 0.05)
    with pytest.raises(ValueError, match="depth"):
        sc.build(1e-2, depth=1e-3)


def test_short_collapse_run_moves_the_soil_down_and_out(tmp_path):
    s, depth, end = 1e-2, 0.05, 0.03  # m, m, s
    out = tmp_path / "collapse3d"
    status = c3.main(["--output", str(out), "--spacing", str(s), "--depth", str(depth),
                      "--end-time", str(end), "--snapshot-interval", str(end)])
    assert status == 0
    snaps = sorted(out.glob("snapshot_*.h5"))
    with h5py.File(snaps[0]) as f0, h5py.File(snaps[-1]) as f1:
        assert f1.attrs["time"] == pytest.approx(end) and f1.attrs["dim"] == 3
        p0, p1 = f0["particles"], f1["particles"]
        assert np.array_equal(p0["id"][:], p1["id"][:])
        x0, x1, v = p0["position"][:], p1["position"][:], p1["velocity"][:]
        kind, stress = p1["kind"][:], p1["stress"][:]
    assert np.isfinite(x1).all() and np.isfinite(v).all() and np.isfinite(stress).all()
    wall = kind == rs.KIND_BOUNDARY
    np.testing.assert_array_equal(x1[wall], x0[wall])           # the walls do not move
    soil = ~wall
    d = x1[soil] - x0[soil]
    assert d[:, 1].mean() < 0.0                                 # the block sinks ...
    front = soil & (x0[:, 0] > x0[soil, 0].max() - 0.5 * s)      # ... and its free face
    assert v[front, 0].mean() > 0.0 and (x1[front, 0] - x0[front, 0]).mean() > 0.0  # moves out
    # The side walls hold the soil between them; the back wall and the floor behind and below.
    assert x1[soil, 2].min() > 0.0 and x1[soil, 2].max() < depth
    assert x1[soil, 0].min() > 0.0 and x1[soil, 1].min() > 0.0
    meta = json.loads((out / "run.json").read_text())["metadata"]
    assert meta["setup"] == "soil_collapse_3d"


# --- brush sampler --------------------------------------------------------------------------

DX, DEPTH = 2.5e-3, 0.01  # m: the coarse zone's 1 cm cells divide every size of the bed


@pytest.fixture(scope="module")
def sampler():
    return b3.build("E0", DX, DEPTH)


def bed_volume(dx, width):
    """Volume [m^3] of the whole regolith bed (all zones), sizes snapped as brush_sampler does."""
    coarse = bs.ZONE_SPACING_FACTORS[-1] * dx
    w, d = bs.DAMPING[-1]
    return 2 * bs.snap(0.5 * w, coarse) * bs.snap(d, coarse) * width


def test_sampler_counts_scale_and_bed_mass(sampler):
    fine = b3.build("E0", 0.5 * DX, DEPTH)
    width = b3.extruded_width(DX, DEPTH)
    assert width == pytest.approx(0.01) and b3.extruded_width(0.5 * DX, DEPTH) == width
    regolith = [int((s.kind == rs.KIND_DYNAMIC).sum()) for s in (sampler, fine)]
    assert regolith[1] / regolith[0] == pytest.approx(8.0, rel=0.03)
    for sim in (sampler, fine):
        dynamic = sim.kind == rs.KIND_DYNAMIC
        assert sim.mass[dynamic].sum() == pytest.approx(DENSITY_BED * bed_volume(DX, width),
                                                        rel=0.02)
    # Each zone has its own spacing and the bulk density (variable resolution, as in 2D), and
    # side walls of that spacing at least one support radius thick (SPEC.md section 6).
    for k, f in enumerate(bs.ZONE_SPACING_FACTORS):
        name = "regolith" if k == 0 else f"regolith damping {k}"
        np.testing.assert_allclose(sampler.mass[part(sampler, name)], DENSITY_BED * (f * DX) ** 3)
        z = sampler.positions[part(sampler, f"{name} side walls"), 2]
        support = bs.SMOOTHING_FACTOR * f * DX
        assert z.min() - 0.5 * f * DX <= -support and z.max() + 0.5 * f * DX >= width + support


def test_sampler_is_the_2d_setup_extruded(sampler):
    plane = bs.build("E0", spacing=DX)
    width = b3.extruded_width(DX, DEPTH)
    layers = int(round(width / DX))
    for name in ("regolith", "brush left", "shield right"):
        x3, x2 = sampler.positions[part(sampler, name)], plane.positions[part(plane, name)]
        assert len(x3) == layers * len(x2)
        # Every layer holds the 2D particles, layers one spacing apart inside 0 < z < width.
        np.testing.assert_array_equal(x3[: len(x2), :2], x2)
        z = np.unique(x3[:, 2])
        np.testing.assert_allclose(z, (np.arange(layers) + 0.5) * DX)


def test_sampler_tools_clear_the_bed_and_the_tray_encloses_its_observer(sampler):
    width = b3.extruded_width(DX, DEPTH)
    x = sampler.positions
    tools = named(sampler, "brush", "shield", "tray")
    bed = ~tools
    # The bed (regolith and its walls) lies below the surface, every tool above it: the lowest
    # bristle tip 8.4 mm up (SPEC.md section 8).
    assert x[bed, 1].max() < 0.0
    assert x[tools, 1].min() == pytest.approx(bs.TIP_CLEARANCE, abs=0.5 * DX)
    # The bed's side walls are outside 0 < z < width, the regolith inside.
    sides = named(sampler, "side walls")
    assert np.all((x[sides, 2] < 0.0) | (x[sides, 2] > width))
    dyn = sampler.kind == rs.KIND_DYNAMIC
    assert x[dyn, 2].min() > 0.0 and x[dyn, 2].max() < width
    # Tray observer: inside the tray box, with tray particles beyond each face but the floor's
    # opening, and none inside.
    region = rs.extrude(bs.tray_geometry(DX)[1], 0.0, width)
    tray = x[part(sampler, "tray")]
    assert not region.contains(tray).any()
    (lo, hi) = (np.array(b) for b in region.bounds)
    for axis in range(3):
        assert tray[:, axis].min() < lo[axis] and tray[:, axis].max() > hi[axis]
    centre = 0.5 * (lo + hi)
    for axis in (0, 2):  # side walls and end plates across the region's middle
        across = np.all(np.abs(np.delete(tray - centre, axis, axis=1)) < 0.25 * np.delete(hi - lo, axis), axis=1)
        assert (tray[across, axis] < lo[axis]).any() and (tray[across, axis] > hi[axis]).any()
    assert sampler.observe()["tray"] == (0, 0.0)


def test_short_sampler_run_turns_the_brushes_about_z(tmp_path):
    out = tmp_path / "E3"
    status = b3.main(["--run", "E3", "--spacing", "5e-3", "--depth", "0.02", "--end-time", "2e-3",
                      "--output", str(out), "--observe-every", "5", "--snapshot-interval", "2e-3"])
    assert status == 0
    snaps = sorted(out.glob("snapshot_*.h5"))
    with h5py.File(snaps[0]) as f0, h5py.File(snaps[-1]) as f1:
        t = f1.attrs["time"]
        body = f0["particles/body"][:]
        x0, x1 = f0["particles/position"][:], f1["particles/position"][:]
    names = json.loads((out / "run.json").read_text())["bodies"]
    left = body == [b["name"] for b in names].index("brush left")
    # 500 rpm counter-clockwise about the pivot's axis (parallel to z), descending at 5 cm/s.
    pivot0 = np.array([-0.5 * bs.PIVOT_DISTANCE, bs.PIVOT_HEIGHT])
    angle = 500 * 2 * np.pi / 60 * t
    c, s = np.cos(angle), np.sin(angle)
    d = x0[left, :2] - pivot0
    expected = pivot0 + [0.0, -bs.DESCENT_SPEED * t] + np.column_stack(
        [c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]])
    np.testing.assert_allclose(x1[left, :2], expected, atol=1e-12)
    np.testing.assert_array_equal(x1[left, 2], x0[left, 2])
    assert np.isfinite(x1).all()
    obs = pd.read_csv(out / "observers.csv")
    assert obs["tray.count [-]"].max() == 0
    diag = pd.read_csv(out / "diagnostics.csv")
    assert "brush left.torque_z [N m]" in diag.columns and "brush left.force_z [N]" in diag.columns


def test_sampler_bad_arguments():
    with pytest.raises(ValueError, match="run: 'X9'"):
        b3.build("X9")
    with pytest.raises(ValueError, match="depth"):
        b3.build("E0", depth=0.0)
    with pytest.raises(ValueError, match="spacing = "):
        b3.build("E0", spacing=0.02)
