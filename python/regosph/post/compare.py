"""One table over many runs: each run's parameters (its metadata) next to its results."""
import numpy as np

from .analysis import escape_fraction, first_crossing, least_squares_slope, value_at
from .bed import bed_cavity
from .run import Run


def _column(name):
    return name.replace(" ", "_")


def compare(runs, times=(0.5, 1.0), observer="tray", rate_window=None, escape_speed=None,
            bed_material=None, exclude_metadata=("command",)):
    """DataFrame with one row per run (index: run name) and the columns
    - the metadata (numbers where they parse), end_time_s, last_time_s, finished, particles;
    - for the observer (when the run has it): <obs>_count_<t>s and <obs>_mass_<t>s at each of
      `times` [s] (NaN beyond the run's end), <obs>_count_end (at the last sample),
      <obs>_first_entry_s, <obs>_rate_per_s (least-squares slope of the count over
      rate_window; default: the second half of each run);
    - max_speed_m_s (largest dynamic-particle speed in diagnostics.csv);
    - peak_torque_<body> (largest |torque| on each rotating kinematic body);
    - with escape_speed [m/s]: escape_fraction_max, the largest fraction of dynamic particles
      faster than it over the snapshots;
    - with bed_material: cavity_depth_m, cavity_width_m at the last snapshot (bed_cavity).
    `runs` are Run objects or paths. df.attrs["units"] gives the result columns' units."""
    import pandas as pd

    rows, units = [], {}
    for run in runs:
        run = run if isinstance(run, Run) else Run(run)
        row = {"run": run.name, "path": str(run.path)}
        for k, v in run.metadata_values.items():
            if k not in exclude_metadata and k not in row:
                row[k] = v
        snap_times = run.times if run.snapshot_files else np.array([])
        row.update(end_time_s=run.end_time,
                   last_time_s=float(snap_times[-1]) if len(snap_times) else float("nan"),
                   finished=run.finished, particles=run.particle_count)
        if observer and observer in run.observer_names:
            row.update(_observer_results(run, observer, times, rate_window, units))
        _load_results(run, row, units)
        if escape_speed is not None and len(snap_times):
            row["escape_fraction_max"] = max(escape_fraction(s, escape_speed)
                                             for s in run.snapshots())
            units["escape_fraction_max"] = "-"
        if bed_material is not None and len(snap_times):
            c = bed_cavity(run, material=bed_material)
            row.update(cavity_depth_m=c["depth"], cavity_width_m=c["width"])
            units.update(cavity_depth_m="m", cavity_width_m="m")
        rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):
        df = df.set_index("run", drop=False)
        df.index.name = None
    df.attrs["units"] = units
    return df


def _observer_results(run, observer, times, rate_window, units):
    series = run.observer(observer)
    t, count, mass = (series[c].to_numpy() for c in ("time", "count", "mass"))
    out = {}
    for when in times:
        out[f"{observer}_count_{when:g}s"] = value_at(t, count, when)
        out[f"{observer}_mass_{when:g}s"] = value_at(t, mass, when)
        units[f"{observer}_count_{when:g}s"] = "-"
        units[f"{observer}_mass_{when:g}s"] = series.attrs["units"]["mass"]
    out[f"{observer}_count_end"] = float(count[-1]) if len(count) else float("nan")
    units[f"{observer}_count_end"] = "-"
    window = rate_window if rate_window is not None else (0.5 * t[-1], t[-1]) if len(t) else None
    out[f"{observer}_first_entry_s"] = first_crossing(t, count, 1)
    out[f"{observer}_rate_per_s"] = (least_squares_slope(t, count, window)
                                     if window is not None and window[1] > window[0]
                                     else float("nan"))
    units[f"{observer}_first_entry_s"] = "s"
    units[f"{observer}_rate_per_s"] = "1/s"
    return out


def _load_results(run, row, units):
    try:
        diag = run.diagnostics
    except FileNotFoundError:
        return
    if "max_speed" in diag:
        row["max_speed_m_s"] = float(diag["max_speed"].max())
        units["max_speed_m_s"] = "m/s"
    for body in run.loaded_bodies:
        kin = run.body(body).get("kinematics", {})
        if not kin.get("angular_velocity_rad_s"):
            continue  # only rotating tools (brushes) have a torque worth tabulating
        loads = run.body_loads(body)
        torque_cols = [c for c in loads.columns if c.startswith("torque_")]
        magnitude = np.sqrt((loads[torque_cols].to_numpy() ** 2).sum(axis=1))
        name = f"peak_torque_{_column(body)}"
        row[name] = float(magnitude.max()) if len(magnitude) else float("nan")
        units[name] = loads.attrs["units"][torque_cols[0]]


def one_factor_groups(table, column, parameters):
    """Groups of rows of a compare() table that differ only in `column` among `parameters`:
    a list of (fixed, rows) with fixed = {parameter: value} of the others and rows sorted by
    `column`; only groups with at least two distinct values of `column` are returned."""
    for p in [column, *parameters]:
        if p not in table.columns:
            raise KeyError(f"{p!r} is not a column of the table ({', '.join(map(str, table.columns))})")
    others = [p for p in parameters if p != column]
    groups = []
    for key, rows in table.groupby(others, sort=True) if others else [((), table)]:
        if rows[column].nunique() >= 2:
            key = key if isinstance(key, tuple) else (key,)
            groups.append((dict(zip(others, key)), rows.sort_values(column)))
    return groups


def to_markdown(df, floatfmt=".4g"):
    """A DataFrame as a GitHub-flavoured Markdown table (index omitted)."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else format(v, floatfmt)
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(map(str, df.columns)) + " |",
             "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in df.itertuples(index=False)]
    return "\n".join(lines)
