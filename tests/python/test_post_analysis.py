"""The study's measures on synthetic data with known answers: regions, first entry, rates,
speeds, and the bed's surface and cavity."""
import numpy as np
import pytest

from regosph import post
from test_post_format import join, particles, write_run


def test_points_in_square_and_concave_polygon():
    square = post.rectangle_polygon((0, 0), (1, 1))
    pts = np.array([[0.5, 0.5], [1.5, 0.5], [-0.1, 0.2], [0.99, 0.01], [0.5, 1.2]])
    np.testing.assert_array_equal(post.points_in_polygon(pts, square), [1, 0, 0, 1, 0])
    # Orientation does not matter.
    np.testing.assert_array_equal(post.points_in_polygon(pts, square[::-1]), [1, 0, 0, 1, 0])
    # An L shape: the notch (upper right) is outside.
    ell = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]])
    pts = np.array([[0.5, 1.5], [1.5, 0.5], [1.5, 1.5], [0.5, 0.5], [2.5, 0.5]])
    np.testing.assert_array_equal(post.points_in_polygon(pts, ell), [1, 1, 0, 1, 0])


def test_point_on_a_shared_edge_is_counted_once():
    left = post.rectangle_polygon((0, 0), (1, 1))
    right = post.rectangle_polygon((1, 0), (2, 1))
    pts = np.array([[1.0, 0.5], [1.0, 0.25]])
    both = post.points_in_polygon(pts, left).astype(int) + post.points_in_polygon(pts, right)
    np.testing.assert_array_equal(both, [1, 1])


def test_polygon_errors():
    with pytest.raises(ValueError, match="polygon: expected at least 3 vertices"):
        post.points_in_polygon([[0, 0]], [[0, 0], [1, 1]])
    with pytest.raises(ValueError, match="points: expected"):
        post.points_in_polygon([0, 0], post.rectangle_polygon((0, 0), (1, 1)))


@pytest.fixture
def tray_run(tmp_path):
    """Regolith particles rise into the box [-0.1, 0.1] x [0.5, 0.7]: k of them at snapshot k;
    a tool particle sits inside the box all along."""
    snaps = []
    for k in range(5):
        y = np.where(np.arange(6) < k, 0.6, 0.0)  # the first k particles are in the box
        bed = particles(np.column_stack([np.linspace(-0.05, 0.05, 6), y]), mass=0.25,
                        velocity=np.column_stack([np.full(6, 2.0 * k), np.zeros(6)]))
        tool = particles([[0.0, 0.55]], material=1, body=1, kind=1, mass=10.0)
        snaps.append((0.1 * k, join(bed, tool)))
    t = np.linspace(0, 1, 101)
    count = np.floor(np.clip(40.0 * (t - 0.3), 0, None))  # first particle at 0.325 s
    return write_run(tmp_path / "run", snaps, observers={"tray": (t, count, 0.01 * count)},
                     end_time=0.4)


BOX = post.rectangle_polygon((-0.1, 0.5), (0.1, 0.7))


def test_region_content_with_material_filter(tray_run):
    run = post.Run(tray_run)
    assert post.region_content(run.snapshot(3), BOX, material="regolith") == (3, 0.75)
    # Without the material filter the tool is still excluded (dynamic particles only)...
    assert post.region_content(run.snapshot(3), BOX).count == 3
    # ...unless boundary particles are asked for.
    assert post.region_content(run.snapshot(3), BOX, kind=None) == (4, 10.75)
    series = post.region_series(run, BOX, material="regolith")
    assert list(series["count"]) == [0, 1, 2, 3, 4]
    assert series.attrs["units"]["mass"] == "kg/m"


def test_first_entry_from_observer_and_from_snapshots(tray_run):
    run = post.Run(tray_run)
    assert post.first_entry_time(run) == pytest.approx(0.33)  # first sample with a particle
    assert post.first_entry_time(run, threshold=10) == pytest.approx(0.55)
    assert post.first_entry_time(run, polygon=BOX, material="regolith") == pytest.approx(0.1)
    assert np.isnan(post.first_entry_time(run, polygon=BOX, threshold=5))  # never 5 in it
    assert np.isnan(post.first_crossing([0, 1], [0, 0], 1))


def test_collection_rate_is_the_least_squares_slope(tray_run):
    t = np.linspace(0, 2, 41)
    assert post.least_squares_slope(t, 3.0 * t + 2.0) == pytest.approx(3.0)
    y = np.where(t < 1, 0.0, 5.0 * (t - 1))
    assert post.least_squares_slope(t, y, (1.0, 2.0)) == pytest.approx(5.0)
    assert np.isnan(post.least_squares_slope(t, y, (5.0, 6.0)))
    with pytest.raises(ValueError, match="window"):
        post.least_squares_slope(t, y, (1.0, 0.5))
    run = post.Run(tray_run)
    # floor(40 (t - 0.3)) rises at 40 particles/s.
    assert post.collection_rate(run, (0.5, 1.0)) == pytest.approx(40.0, rel=0.02)
    assert post.collection_rate(run, (0.5, 1.0), quantity="mass") == pytest.approx(0.4, rel=0.02)


def test_value_at_is_stepwise():
    assert post.value_at([0, 1, 2], [5, 6, 7], 1.5) == 6
    assert post.value_at([0, 1, 2], [5, 6, 7], 2.0) == 7
    assert np.isnan(post.value_at([0, 1, 2], [5, 6, 7], 2.5))


def test_speeds(tray_run):
    snap = post.Run(tray_run).snapshot(4)  # regolith at 8 m/s, the tool at rest
    assert post.max_speed(snap) == 8.0
    counts, edges = post.speed_histogram(snap, bins=4, range=(0, 16))
    np.testing.assert_array_equal(counts, [0, 0, 6, 0])
    assert post.escape_fraction(snap, 7.9) == 1.0
    assert post.escape_fraction(snap) == 0.0  # Phobos' 11.39 m/s
    snap0 = post.Run(tray_run).snapshot(0)
    assert post.max_speed(snap0) == 0.0


def test_escape_fraction_by_count_and_mass(tmp_path):
    v = np.array([[1.0, 0], [12.0, 0], [20.0, 0], [0.0, 5.0]])
    p = particles(np.zeros((4, 2)), velocity=v, mass=np.array([1.0, 1.0, 2.0, 4.0]))
    snap = post.Run(write_run(tmp_path / "r", [(0.0, p)])).snapshot(0)
    assert post.escape_fraction(snap) == 0.5
    assert post.escape_fraction(snap, weight="mass") == pytest.approx(3.0 / 8.0)
    with pytest.raises(ValueError, match="weight"):
        post.escape_fraction(snap, weight="volume")
