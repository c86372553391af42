"""Surface profile and cavity of a synthetic bed with a known hole."""
import numpy as np
import pytest

from regosph import post
from test_post_format import join, particles, write_run

DX = 2.5e-3  # particle spacing [m]
H = 2.5 * DX  # smoothing length


def bed(hole=None):
    """A lattice bed on [-0.2, 0.2] x [-0.1, 0] (centres half a spacing inside); `hole` =
    (x0, x1, depth) removes the particles with x0 < x < x1 above -depth."""
    xs = -0.2 + DX * (np.arange(160) + 0.5)
    ys = -DX * (np.arange(40) + 0.5)
    x, y = (a.ravel() for a in np.meshgrid(xs, ys))
    if hole:
        x0, x1, depth = hole
        keep = ~((x > x0) & (x < x1) & (y > -depth))
        x, y = x[keep], y[keep]
    return particles(np.column_stack([x, y]), h=H, mass=1500 * DX * DX)


def ejecta_and_tool():
    flying = particles([[0.0, 0.05], [0.01, 0.03]], h=H)            # regolith in the air
    tool = particles([[0.0, 0.002], [0.02, 0.002]], material=1, kind=1, h=H)
    return flying, tool


@pytest.fixture
def dug(tmp_path):
    flying, tool = ejecta_and_tool()
    snaps = [(0.0, join(bed(), tool)), (1.0, join(bed((-0.05, 0.05, 0.02)), flying, tool))]
    return post.Run(write_run(tmp_path / "dug", snaps))


def test_flat_surface_ignores_ejecta_and_tools(dug):
    profile = post.surface_profile(dug.snapshot(0), "regolith", bin_width=DX)
    assert len(profile) == 160
    np.testing.assert_allclose(profile["height"], -DX / 2)
    assert profile.attrs["units"]["height"] == "m"
    # Without the gap rule the highest particle above the hole is a flying one.
    dug_profile = post.surface_profile(dug.snapshot(1), "regolith", bin_width=DX)
    centre = dug_profile.loc[(dug_profile["x"] - 0.00125).abs().idxmin(), "height"]
    assert centre == pytest.approx(-0.02 - DX / 2)


def test_known_cavity_depth_and_width(dug):
    c = post.bed_cavity(dug, material="regolith", bin_width=DX)
    assert c["depth"] == pytest.approx(0.02)
    assert c["width"] == pytest.approx(0.10)
    assert c["x_left"] == pytest.approx(-0.05) and c["x_right"] == pytest.approx(0.05)
    assert c["area"] == pytest.approx(0.02 * 0.10)
    assert c["rim_height"] == 0.0 and c["time"] == 1.0


def test_cavity_with_coarser_bins_and_default_bins(dug):
    c = post.bed_cavity(dug, material="regolith", bin_width=4 * DX)
    assert c["depth"] == pytest.approx(0.02)
    assert abs(c["width"] - 0.10) <= 2 * 4 * DX  # resolved to one bin at either side
    c = post.bed_cavity(dug, material="regolith")  # bins of width h
    assert c["depth"] == pytest.approx(0.02)
    assert abs(c["width"] - 0.10) <= 2 * H


def test_cavity_with_a_rim_and_a_shallow_dent():
    x = np.linspace(-1, 1, 21)
    frame = lambda h: __import__("pandas").DataFrame(  # noqa: E731
        {"x": x, "height": h, "x_lo": x - 0.05, "x_hi": x + 0.05})
    initial = frame(np.zeros(21))
    now = np.zeros(21)
    now[9:12] = -0.3   # a cavity three bins wide
    now[12] = 0.1      # piled up at its right
    now[2] = -0.01     # a dent shallower than the threshold
    c = post.cavity(frame(now), initial, threshold=0.05)
    assert c["depth"] == pytest.approx(0.3) and c["width"] == pytest.approx(0.3)
    assert c["rim_height"] == pytest.approx(0.1)
    assert c["x_deepest"] == pytest.approx(x[9])
    flat = post.cavity(initial, initial, threshold=0.05)
    assert flat["width"] == 0.0 and flat["depth"] == 0.0
    with pytest.raises(ValueError, match="same x bins"):
        post.cavity(frame(now).iloc[:5], initial, 0.05)


def test_surface_of_a_missing_material_is_an_error(dug):
    with pytest.raises(ValueError, match="material: 'ice'"):
        post.surface_profile(dug.snapshot(0), "ice")
    with pytest.raises(ValueError, match="bin_width"):
        post.surface_profile(dug.snapshot(0), "regolith", bin_width=-1.0)
