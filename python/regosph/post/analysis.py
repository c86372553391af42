"""What the sampling study measures: material inside a region, when it first arrives, how fast
it accumulates, and how fast particles move."""
from collections import namedtuple

import numpy as np

# Escape speed from Phobos [m/s], as quoted by Schaefer et al. (2017).
PHOBOS_ESCAPE_SPEED = 11.39

RegionContent = namedtuple("RegionContent", "count mass")


def points_in_polygon(points, polygon):
    """Boolean mask of the 2D points (N x >=2; x, y used) inside the polygon (M x 2 vertices,
    either orientation, closing edge implied). Even-odd rule by casting a ray in +x: a point is
    inside when the ray crosses the boundary an odd number of times. Edges are half-open in y,
    so of two regions sharing an edge exactly one counts a point on it."""
    p = np.asarray(points, dtype=float)
    poly = np.asarray(polygon, dtype=float)
    if p.ndim != 2 or p.shape[1] < 2:
        raise ValueError(f"points: expected an (N, 2) or (N, 3) array, got shape {p.shape}")
    if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
        raise ValueError(f"polygon: expected at least 3 vertices as an (M, 2) array, "
                         f"got shape {poly.shape}")
    if not np.all(np.isfinite(poly)):
        raise ValueError("polygon: vertices must be finite")
    x, y = p[:, 0], p[:, 1]
    inside = np.zeros(len(p), dtype=bool)
    a, b = poly, np.roll(poly, -1, axis=0)
    for (xa, ya), (xb, yb) in zip(a, b):
        if ya == yb:
            continue  # a horizontal edge never crosses a horizontal ray
        straddles = (ya <= y) != (yb <= y)
        x_cross = xa + (y - ya) * (xb - xa) / (yb - ya)
        inside ^= straddles & (x < x_cross)
    return inside


def rectangle_polygon(lo, hi):
    """Vertices of the axis-aligned rectangle with corners lo = (x0, y0), hi = (x1, y1) [m]."""
    (x0, y0), (x1, y1) = lo, hi
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def region_content(snapshot, polygon, material=None, body=None, kind="dynamic"):
    """Number and total mass of particles inside `polygon` at one snapshot, optionally only of
    the given material(s)/body(ies); by default dynamic particles only. Mass is per unit depth
    [kg/m] in 2D, [kg] in 3D."""
    mask = snapshot.select(material=material, body=body, kind=kind)
    mask &= points_in_polygon(snapshot["position"], polygon)
    return RegionContent(int(mask.sum()), float(snapshot["mass"][mask].sum()))


def region_series(run, polygon, material=None, body=None, kind="dynamic"):
    """region_content at every snapshot: DataFrame time [s], count [-], mass."""
    import pandas as pd

    rows = [(s.time, *region_content(s, polygon, material, body, kind)) for s in run.snapshots()]
    df = pd.DataFrame(rows, columns=["time", "count", "mass"])
    df.attrs["units"] = {"time": "s", "count": "-", "mass": "kg/m" if run.dim == 2 else "kg"}
    return df


def first_crossing(time, value, threshold):
    """First time at which `value` reaches `threshold` (value >= threshold); NaN if never."""
    time, value = np.asarray(time, dtype=float), np.asarray(value, dtype=float)
    hit = np.nonzero(value >= threshold)[0]
    return float(time[hit[0]]) if len(hit) else float("nan")


def least_squares_slope(time, value, window=None):
    """Slope of the least-squares line through (time, value) for window[0] <= time <=
    window[1] (all samples when window is None): d value / d time. NaN with fewer than 2
    samples in the window."""
    time, value = np.asarray(time, dtype=float), np.asarray(value, dtype=float)
    if window is not None:
        t0, t1 = window
        if not t1 > t0:
            raise ValueError(f"window: end {t1} must be after start {t0}")
        keep = (time >= t0) & (time <= t1)
        time, value = time[keep], value[keep]
    if len(time) < 2 or np.ptp(time) == 0:
        return float("nan")
    tc = time - time.mean()
    return float(np.dot(tc, value - value.mean()) / np.dot(tc, tc))


def value_at(time, value, t, tolerance=1e-9):
    """The last sample of `value` at or before time t (a step-wise series such as a particle
    count); NaN when t lies beyond the series (a run that stopped earlier)."""
    time, value = np.asarray(time, dtype=float), np.asarray(value, dtype=float)
    if len(time) == 0 or t > time[-1] + tolerance or t < time[0] - tolerance:
        return float("nan")
    return float(value[np.searchsorted(time, t + tolerance, side="right") - 1])


def first_entry_time(run, observer="tray", *, polygon=None, material=None, threshold=1):
    """First time [s] at which `threshold` particles are in the region: from the observer
    series by default (sampled every observe_every steps), or, with `polygon`, from the
    snapshots (resolution: the snapshot interval). NaN if it never happens."""
    if polygon is not None:
        series = region_series(run, polygon, material=material)
    else:
        series = run.observer(observer)
    return first_crossing(series["time"], series["count"], threshold)


def collection_rate(run, window=None, observer="tray", quantity="count"):
    """Least-squares slope of an observer's count [1/s] (or mass [kg/(m s)] in 2D) over the
    time window (t0, t1) [s]; the whole series when window is None."""
    series = run.observer(observer)
    return least_squares_slope(series["time"], series[quantity], window)


def _speeds(snapshot, material, kind, weight):
    mask = snapshot.select(material=material, kind=kind)
    w = snapshot["mass"][mask] if weight == "mass" else None
    if weight not in ("count", "mass"):
        raise ValueError(f"weight: {weight!r} is not 'count' or 'mass'")
    return snapshot["speed"][mask], w


def speed_histogram(snapshot, bins=50, range=None, material=None, kind="dynamic",
                    weight="count"):
    """Histogram of particle speeds [m/s]: (counts or mass per bin, bin edges)."""
    speed, w = _speeds(snapshot, material, kind, weight)
    return np.histogram(speed, bins=bins, range=range, weights=w)


def max_speed(snapshot, material=None, kind="dynamic"):
    """Largest particle speed [m/s] (0 when no particle is selected)."""
    speed, _ = _speeds(snapshot, material, kind, "count")
    return float(speed.max()) if len(speed) else 0.0


def escape_fraction(snapshot, escape_speed=PHOBOS_ESCAPE_SPEED, material=None, kind="dynamic",
                    weight="count"):
    """Fraction (by number, or by mass with weight="mass") of the selected particles faster
    than escape_speed [m/s]; the default is Phobos' 11.39 m/s."""
    speed, w = _speeds(snapshot, material, kind, weight)
    if len(speed) == 0:
        return float("nan")
    fast = speed > escape_speed
    return float(fast.mean()) if w is None else float(w[fast].sum() / w.sum())
