"""The bed's top surface and the cavity a tool digs into it."""
import numpy as np


def surface_profile(snapshot, material=None, bin_width=None, x_range=None, max_gap=None,
                    kind="dynamic"):
    """Height [m] of the bed's top surface in x bins: DataFrame x (bin centre), height (NaN in
    empty bins), x_lo, x_hi. In each bin the particles are walked upward from the lowest; the
    bed ends below the first vertical gap wider than max_gap (default: the bin's median
    smoothing length h, the kernel support), so ejecta and material lifted into a tool are not
    counted. Heights are particle centres: compare profiles of one run, not absolute levels.
    bin_width defaults to the median h of the selected particles; x_range to their extent
    plus half a bin at either side."""
    import pandas as pd

    mask = snapshot.select(material=material, kind=kind)
    if not mask.any():
        raise ValueError(f"{snapshot.path}: no particles of material {material!r} to take a "
                         "surface from")
    x, y = snapshot["x"][mask], snapshot["y"][mask]
    h = snapshot["smoothing_length"][mask]
    edges = _bin_edges(x, h, bin_width, x_range)
    which = np.digitize(x, edges) - 1
    height = np.full(len(edges) - 1, np.nan)
    for b in range(len(height)):
        in_bin = which == b
        if not in_bin.any():
            continue
        ys = np.sort(y[in_bin])
        gap = max_gap if max_gap is not None else float(np.median(h[in_bin]))
        breaks = np.nonzero(np.diff(ys) > gap)[0]
        height[b] = ys[breaks[0]] if len(breaks) else ys[-1]
    df = pd.DataFrame({"x": 0.5 * (edges[:-1] + edges[1:]), "height": height,
                       "x_lo": edges[:-1], "x_hi": edges[1:]})
    df.attrs["units"] = {"x": "m", "height": "m", "x_lo": "m", "x_hi": "m"}
    return df


def _bin_edges(x, h, bin_width, x_range):
    width = bin_width if bin_width is not None else float(np.median(h))
    if not (np.isfinite(width) and width > 0):
        raise ValueError(f"bin_width: must be a positive length [m], got {width}")
    # Default: half a bin beyond the outermost particles, so a lattice column sits mid-bin.
    lo, hi = x_range if x_range is not None else (x.min() - width / 2, x.max() + width / 2)
    if not hi > lo:
        raise ValueError(f"x_range: end {hi} must be after start {lo}")
    n = max(1, int(np.ceil((hi - lo) / width - 1e-9)))
    return lo + width * np.arange(n + 1)


def cavity(profile, initial_profile, threshold):
    """Cavity of `profile` relative to `initial_profile` (same bins): the contiguous bins around
    the deepest point where the surface lies at least `threshold` [m] below its initial height.
    Returns a dict: depth [m] (largest drop), width [m] (outer edges of those bins), x_left,
    x_right, x_deepest [m], area [m^2] (drop integrated over the cavity's bins; per unit depth
    in 2D), rim_height [m] (largest rise above the initial surface anywhere). A bin emptied of
    material counts as part of the cavity. No drop reaching the threshold: depth as measured,
    width 0."""
    if len(profile) != len(initial_profile) or not np.allclose(profile["x"], initial_profile["x"]):
        raise ValueError("cavity: the profiles must use the same x bins")
    h0, h1 = initial_profile["height"].to_numpy(), profile["height"].to_numpy()
    drop = h0 - h1
    rim = np.nanmax(-drop) if np.isfinite(drop).any() else float("nan")
    deep = np.where(np.isnan(h1) & np.isfinite(h0), np.inf, drop)
    result = dict(depth=float(np.nanmax(drop)) if np.isfinite(drop).any() else float("nan"),
                  width=0.0, x_left=float("nan"), x_right=float("nan"),
                  x_deepest=float("nan"), area=0.0, rim_height=float(max(rim, 0.0)))
    in_cavity = np.nan_to_num(deep, nan=-np.inf) >= threshold
    if not in_cavity.any():
        return result
    finite_drop = np.where(np.isfinite(drop), drop, -np.inf)
    k = int(np.argmax(np.where(in_cavity, finite_drop, -np.inf)))
    if not np.isfinite(finite_drop[k]):  # only emptied bins: take the first of them
        k = int(np.argmax(in_cavity))
    left, right = k, k
    while left > 0 and in_cavity[left - 1]:
        left -= 1
    while right < len(in_cavity) - 1 and in_cavity[right + 1]:
        right += 1
    x_lo, x_hi = profile["x_lo"].to_numpy(), profile["x_hi"].to_numpy()
    part = drop[left:right + 1]
    widths = (x_hi - x_lo)[left:right + 1]
    result.update(width=float(x_hi[right] - x_lo[left]), x_left=float(x_lo[left]),
                  x_right=float(x_hi[right]), x_deepest=float(profile["x"].iloc[k]),
                  area=float(np.sum(np.where(np.isfinite(part), part, 0.0) * widths)))
    return result


def bed_cavity(run, index=-1, *, time=None, material=None, bin_width=None, x_range=None,
               threshold=None):
    """Cavity at one snapshot (the last by default, or the one nearest `time`) relative to the
    run's first snapshot, with the bins of the first snapshot's bed. threshold defaults to half
    the bed's median smoothing length (about one particle spacing at h = 2.5 dx)."""
    first = run.snapshot(0)
    now = run.snapshot(time=time) if time is not None else run.snapshot(index)
    mask = first.select(material=material, kind="dynamic")
    if not mask.any():
        raise ValueError(f"{first.path}: no particles of material {material!r}")
    h = first["smoothing_length"][mask]
    x = first["x"][mask]
    edges = _bin_edges(x, h, bin_width, x_range)
    width = edges[1] - edges[0]
    x_range = (edges[0], edges[-1])
    p0 = surface_profile(first, material, width, x_range)
    p1 = surface_profile(now, material, width, x_range)
    out = cavity(p1, p0, threshold if threshold is not None else 0.5 * float(np.median(h)))
    out["time"] = now.time
    return out
