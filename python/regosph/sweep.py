"""Parameter sweeps: one run directory per parameter row, run here (one after another, or N
at once) or written as one SLURM batch script per row (never submitted).

    from regosph.sweep import run_sweep
    rows = [{"run": name} for name in ("E0", "E1", "P0")]
    command = ["/usr/bin/python3", "examples/brush_sampler.py", "--run", "{run}",
               "--output", "{output}", "--resolution", "coarse"]
    status = run_sweep(command, rows, "runs/sampler", name=lambda row: row["run"])

The base is a command template (a list of strings) or a Python callable:
- template: "{column}" placeholders take the row's values, "{output}" the run directory and
  "{name}" its name; every column not used by a placeholder is appended as "--column value"
  (underscores become hyphens: end_time -> --end-time).
- callable: called as base(output_dir, **row); raising or returning a non-zero int fails the
  row. For batch scripts it must be importable (a module-level function).

Run directories are <root>/<name>. name= is a function of the row, or the name of a column
that holds each run's name: that column is a label, passed to a command template only where a
placeholder asks for it (a callable gets the whole row). The default name joins the
"column=value" pairs of the columns that vary between the rows with "__" in the row's column
order (a column with one value in every row is left out: the command and sweep_done.json hold
it; a single row keeps all its columns), with characters other than letters, digits and ".+-="
replaced by "_" (e.g. "gravity_m_s2=0.0057__rpm=100"); names longer than 100 characters are cut
and end in a hash of the row. Rows added later that vary a column held constant before rename
the directories: a sweep that grows that way passes name=. Two rows with the same name are an
error.

A row is finished, and skipped, when its directory holds
- the marker file SWEEP_MARKER ("sweep_done.json", written after the base succeeded, with the
  row and the command), or
- a run.json and a snapshot at its run.end_time_s (a regosph run that reached its end time,
  also one started by hand),
and, when the row has an "end_time" column, the run's end time is not earlier than it.
A row whose run is under way elsewhere (its run.lock held by a live run: another sweep, a run
started by hand; or written on another host, e.g. a batch job, which cannot be checked from
here) is left alone and reported as "in use". A directory that holds an unfinished run gets
resume_args appended (e.g. ["--restart"]) so the run continues from its checkpoint; without
resume_args such a row fails (the run refuses the occupied directory). One that was stopped
before its first checkpoint has nothing to continue from: it is moved aside
(<name>.stale-<k>, never deleted) and the row starts over. These decisions are made for each
row just before it starts, so a row that waited in the queue while another sweep ran it is
not started twice.

Local sweeps run one row at a time by default. With jobs=N (command templates only) up to N
rows run at once, each as its own process with OMP_NUM_THREADS = threads_per_job (default:
the usable cores divided by N, at least 1): on a machine that is not shared, N single-thread
runs of a sweep finish sooner than the same runs one after another on N threads each, because
independent processes scale with the cores while the threads of one run wait for each other
(bench/sweep_bench.py measures it). Runs that need much memory (large 3D)
may not fit N at once; the default stays one at a time. jobs applies to local sweeps only.

An interrupt (Ctrl-C, SIGINT, or SIGTERM to a local sweep) starts no further row: the runs under way get
SIGTERM, write a checkpoint and stop (a second interrupt kills them), sweep.csv records them
as "interrupted" and the rows not started as "not run", and the interrupt is raised again.
Rerunning the sweep (with resume_args) continues the interrupted runs from their checkpoints.

run_sweep writes <root>/sweep.csv (name, directory, status and the row, one line per row) and
returns 0 when every row is finished (or, in batch mode, has its script), 1 otherwise, so
scripts can sys.exit() with it. Batch mode writes <root>/<name>/job.sbatch and
<root>/submit_all.sh (one sbatch line per unfinished row).
"""
import contextlib
import csv
import concurrent.futures
import functools
import hashlib
import inspect
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ._core import run_lock_holder

SWEEP_MARKER = "sweep_done.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9.+\-=]")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
MAX_NAME = 100


def _text(value):
    """A parameter value as it appears in names and on command lines."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if hasattr(value, "item"):  # NumPy scalars from a DataFrame
        return _text(value.item())
    return str(value)


def run_name(row):
    """Stable, filesystem-safe directory name of a parameter row (see the module docstring)."""
    if not row:
        raise ValueError("row: empty parameter row has no name")
    name = "__".join(_UNSAFE.sub("_", f"{k}={_text(v)}") for k, v in row.items())
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(json.dumps({k: _text(v) for k, v in row.items()},
                                         sort_keys=True).encode()).hexdigest()[:10]
        name = name[: MAX_NAME - 11] + "_" + digest
    return name


def _rows(rows):
    if hasattr(rows, "to_dict"):  # a pandas DataFrame
        rows = rows.to_dict(orient="records")
    rows = [dict(r) for r in rows]
    for i, r in enumerate(rows):
        for k in r:
            if not isinstance(k, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", k):
                raise ValueError(f"rows[{i}]: column name {k!r} is not an identifier-like name")
            if k in ("output", "name"):
                raise ValueError(f"rows[{i}]: column name {k!r} is reserved for the run "
                                 "directory and its name")
    return rows


def command_for(template, row, output, name, label=()):
    """The command line of one row: placeholders filled, unused columns appended, except the
    columns in `label` (the one that names the run), which only placeholders pass."""
    values = {**{k: _text(v) for k, v in row.items()}, "output": str(output), "name": name}
    used = set(label)
    cmd = []
    for part in template:
        for key in _PLACEHOLDER.findall(part):
            if key not in values:
                raise KeyError(f"command: placeholder {{{key}}} in {part!r} is not a column of "
                               f"the row ({', '.join(row)}) nor output/name")
            used.add(key)
        cmd.append(_PLACEHOLDER.sub(lambda m: values[m.group(1)], part))
    for k, v in row.items():
        if k not in used:
            cmd += ["--" + k.replace("_", "-"), _text(v)]
    return cmd


def is_finished(run_dir, end_time=None):
    """True when run_dir holds the sweep marker or a regosph run that reached its end time
    (and, with end_time [s], that end time is not earlier)."""
    run_dir = Path(run_dir)
    marker = run_dir / SWEEP_MARKER
    config = run_dir / "run.json"
    recorded_end = None
    if config.is_file():
        try:
            recorded_end = float(json.loads(config.read_text())["run"]["end_time_s"])
        except (ValueError, KeyError, TypeError):
            recorded_end = None
    if end_time is not None and recorded_end is not None and recorded_end < end_time - 1e-12:
        return False
    if marker.is_file():
        return True
    if recorded_end is None:
        return False
    from .post.run import Run

    try:
        return Run(run_dir).finished
    except (OSError, ValueError):
        return False


@dataclass
class PlannedRun:
    """One row of a sweep."""
    name: str
    directory: Path
    row: dict
    finished: bool
    resume: bool  # the directory holds an unfinished run with a checkpoint
    command: list = field(default=None)  # for a template base


def varying_columns(rows):
    """The columns whose values differ between the rows, in the first row's order; every column
    of a single row."""
    columns = list(dict.fromkeys(k for row in rows for k in row))
    varying = [k for k in columns if len({_text(row.get(k)) for row in rows}) > 1]
    return varying if len(rows) > 1 and varying else columns


def plan_sweep(base, rows, root_dir, name=None, resume_args=()):
    """The PlannedRun of every row (nothing is run or written)."""
    rows = _rows(rows)
    root = Path(root_dir)
    shown = varying_columns(rows)
    namer = name or (lambda row: run_name({k: row[k] for k in shown if k in row}))
    planned, seen = [], {}
    for i, row in enumerate(rows):
        if isinstance(name, str):  # the column that names the run
            if name not in row:
                raise ValueError(f"rows[{i}]: no column {name!r} to name the run by")
            n = _text(row[name])
        else:
            n = namer(row)
        if not n or _UNSAFE.sub("_", n) != n:
            raise ValueError(f"rows[{i}]: run name {n!r} is empty or not filesystem-safe")
        if n in seen:
            raise ValueError(f"rows[{seen[n]}] and rows[{i}] both map to the run name {n!r}")
        seen[n] = i
        d = root / n
        end = row.get("end_time")
        done = is_finished(d, float(end) if end is not None else None)
        resume = not done and (d / "run.json").is_file() and _has_checkpoint(d)
        planned.append(PlannedRun(n, d, row, done, resume,
                                  _command(base, row, d, n, _label(name), resume, resume_args)))
    return planned


def _label(name):
    """The label column of name= (a column name), as command_for takes it."""
    return (name,) if isinstance(name, str) else ()


def _command(base, row, directory, name, label, resume, resume_args):
    """A row's command line (None for a callable base), resume_args appended when resuming."""
    if callable(base):
        return None
    return command_for(base, row, directory, name, label) + (list(resume_args) if resume else [])


def add_jobs_argument(ap, when=""):
    """--jobs N of a script that runs its cases through run_sweep (`when`: e.g. "with
    --run-missing: ")."""
    ap.add_argument("--jobs", type=int, default=1,
                    help=f"{when}runs at once, each its own process with the usable cores / "
                         "N OpenMP threads (regosph.sweep; default 1)")


def usable_cores():
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what}: expected a whole number >= 1, got {value!r}")
    return value


def _check_sweep_arguments(base, mode, jobs, threads_per_job):
    """run_sweep's arguments checked, each error naming its argument; returns jobs and
    threads_per_job as ints (threads_per_job may stay None)."""
    if mode not in ("local", "batch"):
        raise ValueError(f"mode: {mode!r} is not 'local' or 'batch'")
    if not callable(base) and (isinstance(base, str) or not list(base)):
        raise ValueError("base: expected a command template (a non-empty list of strings) "
                         "or a callable")
    if callable(base) and mode == "batch":
        _importable(base)
    jobs = _positive_int(jobs, "jobs")
    if threads_per_job is not None:
        threads_per_job = _positive_int(threads_per_job, "threads_per_job")
    if mode == "batch" and (jobs > 1 or threads_per_job is not None):
        raise ValueError("jobs, threads_per_job: batch mode writes one job script per row; "
                         "set the cores of each job with batch_options['cpus_per_task']")
    if callable(base) and (jobs > 1 or threads_per_job is not None):
        raise ValueError("jobs, threads_per_job: a callable base runs inside this process, one "
                         "row at a time; give a command template to run rows as processes")
    return jobs, threads_per_job


def run_sweep(base, rows, root_dir, mode="local", name=None, resume_args=(), log=True,
              batch_options=None, jobs=1, threads_per_job=None):
    """Run (mode="local") or write batch scripts for (mode="batch") every unfinished row; see
    the module docstring. batch_options: dict of SLURM settings (time "24:00:00",
    cpus_per_task 2, partition, extra: list of further "#SBATCH" option strings). jobs: rows
    run at once in local mode (command templates only), each with threads_per_job OpenMP
    threads (default usable_cores() // jobs, at least 1; with jobs=1 and no threads_per_job
    the runs inherit this process's environment).
    Returns 0 when every row is finished (batch: has its script), else 1."""
    jobs, threads_per_job = _check_sweep_arguments(base, mode, jobs, threads_per_job)
    env = None
    if mode == "local" and (jobs > 1 or threads_per_job is not None):
        threads = threads_per_job or max(1, usable_cores() // jobs)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    root = Path(root_dir)
    root.mkdir(parents=True, exist_ok=True)
    planned = plan_sweep(base, rows, root, name, resume_args)
    label = _label(name)
    status = {}
    scripts = []
    local = []  # rows to run here; claimed (checked again) just before each starts
    for p in planned:
        if mode == "batch":
            claimed, why = _claim(base, p, resume_args, label, log)
            if claimed:
                scripts.append(write_batch_script(base, claimed, batch_options or {}))
                status[p.name] = "batch script"
            else:
                status[p.name] = why
        elif p.finished:
            status[p.name] = "skipped (finished)"
        else:
            local.append(p)
    children = _Children()
    run = functools.partial(_run_local, base, resume_args=resume_args, label=label, log=log,
                            env=env, children=children)
    try:
        with _sigterm_as_interrupt(mode == "local" and local):
            if jobs == 1:
                for p in local:
                    status[p.name] = run(p)
            else:
                with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                    futures = {p.name: pool.submit(run, p) for p in local}
                    try:
                        for n, f in futures.items():
                            status[n] = f.result()
                    except BaseException:
                        children.stop()  # before the pool's exit waits for its workers
                        raise
                    finally:  # rows that ended before an interrupt keep what they did
                        for n, f in futures.items():
                            if n not in status and f.done() and not f.cancelled() \
                                    and f.exception() is None:
                                status[n] = f.result()
    except BaseException:
        children.stop()
        for p in local:
            status.setdefault(p.name, "interrupted" if p.name in children.started
                              else "not run")
        _write_table(root, planned, status)
        if log:
            print(f"sweep {root}: interrupted; the runs under way were asked to checkpoint "
                  "and stop (rerun the sweep to continue them)", file=sys.stderr)
        raise
    if mode == "batch":
        _write_submit_all(root, scripts)
    _write_table(root, planned, status)
    failed = [n for n, s in status.items() if s == "failed"]
    busy = [n for n, s in status.items() if s.startswith("in use")]
    if log:
        print(f"sweep {root}: {len(planned)} rows, "
              f"{sum(s.startswith('skipped') for s in status.values())} already finished, "
              f"{sum(s == 'done' for s in status.values())} run, "
              f"{len(scripts)} batch scripts, {len(failed)} failed"
              + (f" ({', '.join(failed)})" if failed else "")
              + (f", {len(busy)} in use elsewhere ({', '.join(busy)})" if busy else ""))
    return 1 if failed or busy else 0


def lock_holder(run_dir):
    """Who holds the run lock of run_dir ("process <pid> on host '<host>' (started ...)"), or
    None: the test the runs themselves make (RunLock, src/io/run_lock.hpp)."""
    return run_lock_holder(str(run_dir))


def _has_checkpoint(run_dir):
    """Whether run_dir holds a checkpoint a run can continue from."""
    return any(Path(run_dir).glob("checkpoint_*.h5"))


def _aside(directory):
    """A free name next to `directory` for keeping a stale run: <name>.stale-<k>."""
    k = 1
    while (aside := directory.with_name(f"{directory.name}.stale-{k}")).exists():
        k += 1
    return aside


class _Children:
    """The runs a local sweep has started. stop(): no further row starts, and those under way
    get SIGTERM (a regosph run finishes its step, writes a checkpoint and exits) and are
    waited for; an interrupt during the wait kills them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.running = set()
        self.started = set()  # row names
        self.stopping = False

    def start(self, name, command, out, env):
        """The started process, or None once stop() was called."""
        with self.lock:
            if self.stopping:
                return None
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
            self.running.add(proc)
            self.started.add(name)
            return proc

    def finished(self, proc):
        with self.lock:
            self.running.discard(proc)

    def stop(self):
        with self.lock:
            self.stopping = True
            running = list(self.running)
        for proc in running:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        try:
            for proc in running:
                proc.wait()
        except BaseException:
            for proc in running:
                proc.kill()
            raise


def _claim(base, p, resume_args, label, log):
    """Decides, just before a row starts (or gets its batch script), what is to be done with
    its directory: (PlannedRun to run, None), or (None, status) when it is finished or in use
    meanwhile. A directory that holds an unfinished run with a checkpoint is resumed; one that
    was started but stopped before its first checkpoint is moved aside."""
    end = p.row.get("end_time")
    if is_finished(p.directory, float(end) if end is not None else None):
        return None, "skipped (finished)"
    holder = lock_holder(p.directory)
    if holder:  # a run under way (another sweep, by hand, a job): neither touched nor started
        if log:
            print(f"sweep: {p.name} is in use by {holder}; left alone", flush=True)
        return None, f"in use by {holder}"
    resume = (p.directory / "run.json").is_file() and _has_checkpoint(p.directory)
    if not resume and (p.directory / "run.json").is_file():
        # Started, but stopped before its first checkpoint: nothing to continue from, and
        # the run would refuse the occupied directory. Kept aside (never deleted); the row
        # starts over.
        aside = _aside(p.directory)
        p.directory.rename(aside)
        if log:
            print(f"sweep: {p.name} has no checkpoint to continue from; its directory "
                  f"moved to {aside.name}, starting over", flush=True)
    p.directory.mkdir(parents=True, exist_ok=True)
    (p.directory / SWEEP_MARKER).unlink(missing_ok=True)
    command = _command(base, p.row, p.directory, p.name, label, resume, resume_args)
    return PlannedRun(p.name, p.directory, p.row, False, resume, command), None


def _run_local(base, p, resume_args=(), label=(), log=True, env=None, children=None):
    """Runs one row here; returns its status: "done", "failed", "skipped (finished)" or
    "in use by ..." (decided just before the start), "not run" when the sweep was being
    stopped before the row started."""
    started = time.time()
    children = children or _Children()
    if children.stopping:
        return "not run"
    try:
        claimed, why = _claim(base, p, resume_args, label, log)
    except OSError as e:  # the directory cannot be made or moved: this row fails
        print(f"sweep: {p.name} failed: {e}", file=sys.stderr)
        return "failed"
    if claimed is None:
        return why
    p = claimed
    if log:
        print(f"sweep: {p.name} -> {p.directory}", flush=True)
    if callable(base):
        children.started.add(p.name)
        try:
            result = base(p.directory, **p.row)
            ok = result is None or result == 0
        except Exception as e:  # one failing row must not stop the sweep
            print(f"sweep: {p.name} failed: {type(e).__name__}: {e}", file=sys.stderr)
            ok = False
        command = f"{base.__module__}.{base.__qualname__}"
    else:
        try:
            # Appended: a resumed run keeps the log of its earlier parts.
            with open(p.directory / "sweep.log", "a") as out:
                out.write(f"# sweep: {time.strftime('%Y-%m-%dT%H:%M:%S%z')} "
                          f"{'resumed' if p.resume else 'started'}: "
                          f"{' '.join(shlex.quote(c) for c in p.command)}\n")
                out.flush()
                proc = children.start(p.name, p.command, out, env)
                if proc is None:
                    return "not run"
                ok = proc.wait() == 0  # an interrupt here leaves proc to children.stop()
                children.finished(proc)
        except OSError as e:  # the log cannot be written, the program does not exist
            print(f"sweep: {p.name} failed to start: {e}", file=sys.stderr)
            return "failed"
        command = p.command
        if not ok and children.stopping:
            return "interrupted"  # stopped by the sweep's interrupt
        if not ok:
            print(f"sweep: {p.name} failed; see {p.directory / 'sweep.log'}", file=sys.stderr)
    if not ok:
        return "failed"
    try:
        _write_marker(p.directory, p.row, command, time.time() - started)
    except OSError as e:
        print(f"sweep: {p.name} ran, but its marker could not be written: {e}", file=sys.stderr)
    return "done"


@contextlib.contextmanager
def _sigterm_as_interrupt(active):
    """While a local sweep runs (active), SIGTERM (kill, a scheduler) stops it like Ctrl-C:
    the runs under way checkpoint and stop, and sweep.csv is written. Only the main thread
    can install a handler; elsewhere SIGTERM keeps its own meaning."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _write_marker(directory, row, command, seconds):
    tmp = directory / (SWEEP_MARKER + ".tmp")
    tmp.write_text(json.dumps({"row": {k: _text(v) for k, v in row.items()}, "command": command,
                               "wall_seconds": round(seconds, 3)}, indent=1))
    tmp.replace(directory / SWEEP_MARKER)


def _importable(fn):
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname or not inspect.isfunction(fn):
        raise ValueError("base: a callable must be a module-level function of an importable "
                         f"module to go into a batch script (got {fn!r})")
    return module, qualname


def write_batch_script(base, p, options):
    """<run dir>/job.sbatch for one row; returns its path. On SIGTERM before the time limit the
    script forwards the signal to the run, which checkpoints and exits; rerunning the sweep
    then resumes it."""
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={p.name[:64]}",
             f"#SBATCH --output={p.directory.resolve()}/slurm-%j.out",
             f"#SBATCH --time={options.get('time', '24:00:00')}",
             "#SBATCH --ntasks=1",
             f"#SBATCH --cpus-per-task={int(options.get('cpus_per_task', 2))}",
             "#SBATCH --signal=B:TERM@300"]
    if options.get("partition"):
        lines.append(f"#SBATCH --partition={options['partition']}")
    lines += [f"#SBATCH {extra}" for extra in options.get("extra", [])]
    if callable(base):
        module, qualname = _importable(base)
        row = {k: v.item() if hasattr(v, "item") else v for k, v in p.row.items()}
        code = (f"import importlib, sys\nf = importlib.import_module({module!r})\n"
                f"for a in {qualname.split('.')!r}: f = getattr(f, a)\n"
                f"r = f({str(p.directory.resolve())!r}, **{row!r})\n"
                "sys.exit(0 if r in (None, 0) else 1)")
        cmd = [sys.executable, "-c", code]
    else:
        cmd = p.command
    env = {k: os.environ[k] for k in ("PYTHONPATH",) if os.environ.get(k)}
    marker = {"row": {k: _text(v) for k, v in p.row.items()}, "command": cmd}
    lines += ["set -u",
              f"cd {shlex.quote(os.getcwd())}",
              *[f"export {k}={shlex.quote(v)}" for k, v in env.items()],
              "export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1} OMP_WAIT_POLICY=passive",
              " ".join(shlex.quote(c) for c in cmd) + " &",
              "child=$!",
              'trap \'kill -TERM "$child"\' TERM',
              'wait "$child"; status=$?',
              # wait returns early when the trap fires; the second wait collects the child
              'if [ "$status" -gt 128 ] && kill -0 "$child" 2>/dev/null; then wait "$child"; '
              'status=$?; fi',
              'if [ "$status" -eq 0 ]; then',
              f"  printf '%s\\n' {shlex.quote(json.dumps(marker))} > "
              f"{shlex.quote(str(p.directory.resolve() / SWEEP_MARKER))}",
              "fi",
              'exit "$status"', ""]
    script = p.directory / "job.sbatch"
    script.write_text("\n".join(lines))
    script.chmod(0o755)
    return script


def _write_submit_all(root, scripts):
    text = ["#!/bin/sh", "# Submits every unfinished row of this sweep (written by regosph.sweep)."]
    text += [f"sbatch {shlex.quote(str(s.resolve()))}" for s in scripts]
    path = root / "submit_all.sh"
    path.write_text("\n".join(text) + "\n")
    path.chmod(0o755)


def _write_table(root, planned, status):
    columns = ["name", "directory", "status"]
    for p in planned:
        columns += [k for k in p.row if k not in columns]
    with open(root / "sweep.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for p in planned:
            w.writerow({"name": p.name, "directory": str(p.directory), "status": status[p.name],
                        **{k: _text(v) for k, v in p.row.items()}})


def read_rows(path):
    """Parameter rows from a CSV file (header = column names) or a JSON list of objects;
    numbers are parsed where they parse."""
    from .post.run import parse_value

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such parameter table")
    if path.suffix == ".json":
        try:
            rows = json.loads(path.read_text())
        except ValueError as e:
            raise ValueError(f"{path}: not valid JSON ({e})") from e
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError(f"{path}: expected a JSON list of objects")
        return rows
    with open(path, newline="") as f:
        rows = [{k: parse_value(v) for k, v in r.items()} for r in csv.DictReader(f)]
    if not rows:
        raise ValueError(f"{path}: no parameter rows")
    for i, r in enumerate(rows):
        if None in r or any(v is None for v in r.values()):
            raise ValueError(f"{path}: row {i + 2} does not have one value per column")
    return rows
