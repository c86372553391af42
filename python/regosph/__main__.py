"""Command line of the regosph package: `regosph ...` once installed, or `python3 -m regosph ...`.

    python3 -m regosph --version
    python3 -m regosph info RUN [--json]
    python3 -m regosph plot RUN|SNAPSHOT.h5 [--field speed] [--times 0.5 1.0] [--material regolith]
                                [--loads] [--energy] --out DIR
    python3 -m regosph compare RUN... [--csv FILE | --markdown] [--times 0.5 1] [--observer tray]
    python3 -m regosph sweep --rows TABLE --root DIR [--batch] [--jobs N] [--name-column run] -- COMMAND...

A RUN given to compare may also be a directory of runs (a sweep's root). Errors (a missing or
malformed run directory, ...) print one line naming the file and exit with status 2. A snapshot
file that cannot be read (damaged, truncated) is reported on stderr and left out.
"""
import argparse
import json
import math
import os
import sys
from pathlib import Path

from . import __version__, post, sweep
from .ranks import mpi_script


def _report_skipped(run):
    """Says on stderr which snapshot files of `run` cannot be read (the commands go on without
    them)."""
    for path, reason in run.skipped_snapshots:
        print(f"warning: skipping unreadable snapshot {path}: {reason}", file=sys.stderr)
    return run


def _runs(paths):
    runs = []
    for p in paths:
        p = Path(p)
        if p.is_dir() and not (p / "run.json").is_file():
            found = post.find_runs(p)
            if not found:
                raise FileNotFoundError(f"{p / 'run.json'}: missing, and no subdirectory of "
                                        f"{p} holds a run")
            runs += found
        else:
            runs.append(post.Run(p))
    return [_report_skipped(r) for r in runs]


def info(args):
    run = _report_skipped(post.Run(args.run))
    times = run.times if run.snapshot_files else []
    summary = {
        "path": str(run.path), "name": run.name,
        "regosph_version": run.parameters.get("regosph_version", "?"), "dim": run.dim,
        "metadata": {k: v for k, v in run.metadata.items() if k != "command"},
        "gravity_m_s2": run.parameters.get("physics", {}).get("gravity_m_s2"),
        "materials": [{k: m[k] for k in ("name", "model") if k in m}
                      for m in run.parameters["materials"]],
        "bodies": [{k: b.get(k) for k in ("name", "material", "motion", "particles", "spacing_m")}
                   for b in run.parameters["bodies"]],
        "particles": run.particle_count,
        "end_time_s": run.end_time,
        "snapshots": len(times),
        "snapshot_times_s": [float(times[0]), float(times[-1])] if len(times) else [],
        "finished": run.finished,
    }
    if len(times):
        last = run.snapshot(-1)
        summary["last_snapshot"] = {"time_s": last.time, "step": last.step,
                                    "max_speed_m_s": post.max_speed(last)}
    if (run.path / "diagnostics.csv").is_file():
        d = run.diagnostics.iloc[-1]
        summary["last_diagnostics"] = {k: float(d[k]) for k in
                                       ("time", "kinetic_energy", "max_speed") if k in d}
    for name in run.observer_names:
        s = run.observer(name)
        summary.setdefault("observers", {})[name] = {
            "count": float(s["count"].iloc[-1]), "mass": float(s["mass"].iloc[-1]),
            "mass_unit": s.attrs["units"]["mass"], "first_entry_s": post.first_entry_time(run, name)}
    if args.json:
        print(json.dumps(summary, indent=1, default=_json_number))
        return 0
    print(f"run {summary['name']}  ({summary['path']})")
    print(f"  regosph {summary['regosph_version']}, {run.dim}D, g = {summary['gravity_m_s2']} m/s^2")
    for k, v in summary["metadata"].items():
        print(f"  {k} = {v}")
    print("  materials: " + ", ".join(f"{m['name']} ({m.get('model', '?')})"
                                      for m in summary["materials"]))
    for b in summary["bodies"]:
        print(f"  body {b['name']!r}: {b['particles']} particles of {b['material']}, {b['motion']}, "
              f"spacing {b['spacing_m']} m")
    print(f"  particles: {summary['particles']}")
    state = "finished" if summary["finished"] else "not finished"
    if len(times):
        ls = summary["last_snapshot"]
        print(f"  snapshots: {len(times)} from {times[0]:g} s to {times[-1]:g} s "
              f"(end time {run.end_time:g} s, {state})")
        print(f"  last snapshot: t = {ls['time_s']:g} s, step {ls['step']}, "
              f"max speed {ls['max_speed_m_s']:.4g} m/s")
    else:
        print(f"  snapshots: none (end time {run.end_time:g} s, {state})")
    for name, o in summary.get("observers", {}).items():
        print(f"  observer {name}: {o['count']:g} particles, {o['mass']:.4g} {o['mass_unit']} "
              f"at the end; first entry {o['first_entry_s']:g} s")
    return 0


def _json_number(x):
    return None if isinstance(x, float) and math.isnan(x) else float(x)


def _plot_selection(path, times):
    """The run and the indices of the snapshots to plot: RUN is a run directory (the snapshots
    nearest to `times`, default the last) or one snapshot file of a run."""
    path = Path(path)
    if path.is_file():
        run = _report_skipped(post.Run(path.parent))
        names = [f.name for f in run.snapshot_files]
        if path.name not in names:
            raise ValueError(f"{path}: not a readable snapshot of the run in {run.path}")
        if times:
            raise ValueError("plot: give --times with a run directory, not a snapshot file")
        return run, [names.index(path.name)]
    run = _report_skipped(post.Run(path))
    if not run.snapshot_files:
        raise FileNotFoundError(f"{run.path}: no snapshot_*.h5 files to plot")
    return run, (post.plots.nearest_times(run, times) if times else [len(run) - 1])


def plot(args):
    run, indices = _plot_selection(args.run, args.times)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i in indices:
        snap = run.snapshot(i)
        ax = post.plot_particles(snap, args.field, material=args.material)
        ax.set_title(f"{run.name}: {args.field}, t = {snap.time:.3f} s")
        written.append(post.save(ax, out / f"{args.field}_{snap.time:.3f}s.png"))
    for name in run.observer_names:
        ax = post.plot_observer([run], name)
        written.append(post.save(ax, out / f"{name}_count.png"))
    if args.loads:
        written.append(post.save(post.plot_loads(run), out / "loads.png"))
    absent = None
    if args.energy:
        if post.energy_budget_columns(run):
            written.append(post.save(post.plot_energy(run), out / "energy.png"))
        else:
            absent = (f"note: {run.path / 'diagnostics.csv'} holds no energy budget (only the "
                      f"kinetic energy and the tools' work): energy.png not written")
    for w in written:
        print(f"wrote {w}")
    if absent:
        print(absent)
    return 0


def compare(args):
    table = post.compare(_runs(args.runs), times=args.times, observer=args.observer,
                         rate_window=tuple(args.window) if args.window else None,
                         escape_speed=args.escape_speed, bed_material=args.bed_material)
    table = table.drop(columns=["path"])
    if args.csv:
        table.to_csv(args.csv, index=False)
        print(f"wrote {args.csv}")
    elif args.markdown:
        print(post.to_markdown(table))
    else:
        print(table.to_string(index=False))
    return 0


def run_sweep(args):
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise ValueError("command: give the command template after '--'")
    rows = sweep.read_rows(args.rows)
    if args.name_column and any(args.name_column not in r for r in rows):
        raise ValueError(f"--name-column: {args.name_column!r} is not a column of {args.rows}")
    if args.name_column and not any("{" + args.name_column + "}" in part for part in command):
        print(f"warning: --name-column {args.name_column}: the command has no "
              f"{{{args.name_column}}}, so that column names the run directories but does not "
              "reach the runs", file=sys.stderr)
    options = {"time": args.time, "cpus_per_task": args.cpus, "partition": args.partition}
    return sweep.run_sweep(command, rows, args.root, mode="batch" if args.batch else "local",
                           name=args.name_column, resume_args=args.resume_args or (),
                           batch_options=options, jobs=args.jobs,
                           threads_per_job=args.threads_per_job)


def _prog():
    """`regosph` when run as the installed command, else `python3 -m regosph`."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python3 -m regosph" if name in ("", "-c", "__main__.py") else name


def parser():
    ap = argparse.ArgumentParser(prog=_prog(), description=__doc__.splitlines()[0])
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = ap.add_subparsers(dest="command_name", required=True)
    p = sub.add_parser("info", help="parameters, particles, times and last state of a run")
    p.add_argument("run")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=info)
    p = sub.add_parser("plot", help="particles coloured by a field, observer counts (PNG)")
    p.add_argument("run", help="a run directory, or one snapshot_*.h5 file of a run")
    p.add_argument("--field", default="speed",
                   help="scalar field: speed, pressure, density, plastic_multiplier, stress_xy, vx, ...")
    p.add_argument("--times", type=float, nargs="+", help="[s]; default: the last snapshot")
    p.add_argument("--material", help="colour only this material")
    p.add_argument("--loads", action="store_true",
                   help="also loads.png: force, torque and power of every tool against time")
    p.add_argument("--energy", action="store_true",
                   help="also energy.png: the energy budget against time, when the run has one")
    p.add_argument("--out", required=True, help="directory for the PNG files")
    p.set_defaults(func=plot)
    p = sub.add_parser("compare", help="one table row per run: parameters and results")
    p.add_argument("runs", nargs="+", help="run directories or directories of runs")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", help="write the table to this CSV file")
    fmt.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--times", type=float, nargs="+", default=[0.5, 1.0],
                   help="[s] times of the observer counts")
    p.add_argument("--observer", default="tray")
    p.add_argument("--window", type=float, nargs=2, metavar=("T0", "T1"),
                   help="[s] window of the collection rate; default: second half of each run")
    p.add_argument("--escape-speed", type=float,
                   help=f"[m/s] add the largest fraction faster than this "
                        f"(Phobos: {post.PHOBOS_ESCAPE_SPEED})")
    p.add_argument("--bed-material", help="add the cavity depth and width of this material's bed")
    p.set_defaults(func=compare)
    p = sub.add_parser("sweep", help="run a command template over a table of parameter rows")
    p.add_argument("--rows", required=True, help="CSV (header = columns) or JSON list of rows")
    p.add_argument("--root", required=True, help="directory of the run directories")
    p.add_argument("--batch", action="store_true", help="write SLURM scripts instead of running")
    p.add_argument("--name-column",
                   help="name run directories after this column (a label: passed to the "
                        "command only through its {placeholder})")
    p.add_argument("--resume-arg", action="append", dest="resume_args",
                   help="argument appended for an unfinished run directory, repeatable "
                        "(e.g. --resume-arg=--restart)")
    p.add_argument("--jobs", type=int, default=1,
                   help="rows run at once here, each as its own process (default 1)")
    p.add_argument("--threads-per-job", type=int,
                   help="OpenMP threads of each run (default with --jobs N > 1: usable "
                        "cores / N; with one job the runs inherit OMP_NUM_THREADS)")
    p.add_argument("--time", default="24:00:00", help="SLURM time limit")
    p.add_argument("--cpus", type=int, default=2, help="SLURM cpus per task")
    p.add_argument("--partition", help="SLURM partition")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="-- then the command template, e.g. -- /usr/bin/python3 "
                        "examples/brush_sampler.py --run {run} --output {output}")
    p.set_defaults(func=run_sweep)
    return ap


def main(argv=None):
    mpi_script()
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (OSError, ValueError, KeyError) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
