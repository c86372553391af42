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


def up_direction(gravity):
    """Unit vector against gravity (3 components; a 2D run's gravity has z = 0)."""
    g = np.zeros(3)
    g[:len(gravity)] = np.asarray(gravity, dtype=float)
    norm = float(np.linalg.norm(g))
    if not (np.isfinite(norm) and norm > 0.0):
        raise ValueError(f"physics.gravity = {tuple(gravity)} m/s^2: a bed settles under "
                         "gravity, which must be non-zero and finite")
    return -g / norm


def _horizontal_basis(up, dim):
    """Orthonormal vectors perpendicular to `up` spanning the horizontal (1 in 2D, 2 in 3D)."""
    if dim == 2:
        if abs(up[2]) > 1e-12:
            raise ValueError("physics.gravity: a 2D run's gravity must lie in the x-y plane")
        return [np.array([up[1], -up[0], 0.0])]
    helper = np.eye(3)[int(np.argmin(np.abs(up)))]
    e1 = np.cross(up, helper)
    e1 /= np.linalg.norm(e1)
    return [e1, np.cross(up, e1)]


def column_depth(positions, up, width, dim):
    """Depth [m] of each point below the top of its vertical column: the points are binned in
    columns of horizontal size `width` [m] across `up` (a unit vector against gravity), and a
    column's top is its highest point plus width/2 (a lattice particle's cell reaches half a
    spacing above its centre). positions: (N, 2) or (N, 3) [m] of a run of dimension `dim`.
    Also returns the horizontal coordinates, (N, dim - 1) [m]."""
    x = np.zeros((len(positions), 3))
    x[:, :positions.shape[1]] = positions
    basis = _horizontal_basis(up, dim)
    horizontal = np.stack([x @ e for e in basis], axis=1)
    height = x @ up
    keys = np.floor(horizontal / width).astype(np.int64)
    _, column = np.unique(keys, axis=0, return_inverse=True)
    column = column.ravel()
    top = np.full(column.max() + 1, -np.inf)
    np.maximum.at(top, column, height)
    return top[column] + 0.5 * width - height, horizontal


def bed_stress_profile(snapshot, gravity, *, material=None, bin_width=None, wall_margin=None):
    """Vertical and horizontal stress of a bed at rest against rho g depth, in depth bins.

    The bed is the dynamic particles (of `material`, name or index). Depth is measured below
    the top of each particle's column (column_depth, columns one bin wide); rho is the bed's
    bulk density, total mass over total particle volume sum(m / rho). Particles closer than
    `wall_margin` [m] (default: twice the largest support radius h) to the bed's horizontal
    extent are left out ("away from the walls"). bin_width [m] defaults to the particle spacing
    (the median of (m / rho)^(1/dim)).

    Returns (profile, summary): profile a DataFrame with depth [m] (bin mean), count,
    sigma_v and sigma_h [Pa] (bin means, tension positive; sigma_h is the in-plane horizontal
    normal stress in 2D, the mean of the two horizontal ones in 3D), rho_g_depth [Pa],
    ratio_v = -sigma_v / (rho g depth) and k = sigma_h / sigma_v; summary a dict with
    bulk_density [kg/m^3], gravity [m/s^2], max_error_v (the largest |ratio_v - 1| over the
    bins at least one support radius h deep), max_error_v_of_base (the largest |sigma_v +
    rho g depth| over all bins, relative to rho g depth of the deepest bin), mean_k and the
    particles used."""
    import pandas as pd

    mask = snapshot.select(material=material, kind="dynamic")
    if not mask.any():
        raise ValueError(f"{snapshot.path}: no dynamic particles of material {material!r}")
    x = snapshot["position"][mask]
    m, rho = snapshot["mass"][mask], snapshot["density"][mask]
    h = snapshot["smoothing_length"][mask]
    dim = snapshot.dim
    spacing = float(np.median((m / rho) ** (1.0 / dim)))
    width = bin_width if bin_width is not None else spacing
    margin = wall_margin if wall_margin is not None else 2.0 * float(h.max())
    for name, value in (("bin_width", width), ("wall_margin", margin)):
        if not (np.isfinite(value) and value >= 0.0) or (name == "bin_width" and value == 0.0):
            raise ValueError(f"{name}: must be a positive length [m], got {value}")
    up = up_direction(gravity)
    g = float(np.linalg.norm(np.asarray(gravity, dtype=float)))
    bulk_density = float(m.sum() / (m / rho).sum())
    depth, horizontal = column_depth(x, up, spacing, dim)
    inside = np.all((horizontal >= horizontal.min(axis=0) + margin)
                    & (horizontal <= horizontal.max(axis=0) - margin), axis=1)
    if not inside.any():
        raise ValueError(f"wall_margin = {margin} m leaves no particle of the bed")
    s = snapshot["stress"][mask][inside]
    tensor = _tensor(s)
    sigma_v = np.einsum("i,nij,j->n", up, tensor, up)
    if dim == 2:
        e = _horizontal_basis(up, 2)[0]
        sigma_h = np.einsum("i,nij,j->n", e, tensor, e)
    else:
        sigma_h = 0.5 * (np.trace(tensor, axis1=1, axis2=2) - sigma_v)
    d = depth[inside]
    which = np.floor(d / width).astype(np.int64)
    rows = []
    for b in np.unique(which):
        sel = which == b
        mean_depth = float(d[sel].mean())
        ref = bulk_density * g * mean_depth
        sv, sh = float(sigma_v[sel].mean()), float(sigma_h[sel].mean())
        rows.append(dict(depth=mean_depth, count=int(sel.sum()), sigma_v=sv, sigma_h=sh,
                         rho_g_depth=ref, ratio_v=-sv / ref, k=sh / sv if sv != 0 else np.nan))
    profile = pd.DataFrame(rows)
    profile.attrs["units"] = {"depth": "m", "count": "-", "sigma_v": "Pa", "sigma_h": "Pa",
                              "rho_g_depth": "Pa", "ratio_v": "-", "k": "-"}
    # Within one support radius of the free surface the kernel is truncated: SPH's stress
    # there is a smoothed value over a cut neighbourhood. Those bins are judged against the
    # deepest overburden instead of their own.
    deep = profile["depth"] >= float(h.max())
    error = np.abs(profile["sigma_v"] + profile["rho_g_depth"])
    summary = dict(bulk_density=bulk_density, gravity=g, spacing=spacing, wall_margin=margin,
                   max_error_v=float(np.max(np.abs(profile["ratio_v"][deep] - 1.0)))
                   if deep.any() else float("nan"),
                   max_error_v_of_base=float(error.max() / profile["rho_g_depth"].max()),
                   mean_k=float(np.nanmean(profile["k"])), particles_used=int(inside.sum()))
    return profile, summary


def _tensor(s):
    """(N, 6) stress columns xx yy zz xy xz yz -> (N, 3, 3) symmetric tensors."""
    t = np.empty((len(s), 3, 3))
    for (i, j), c in zip(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)), range(6)):
        t[:, i, j] = t[:, j, i] = s[:, c]
    return t
