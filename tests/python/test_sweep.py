"""regosph.sweep: run names, command templates, skipping finished rows, batch scripts."""
import csv
import json
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from regosph import sweep
from test_post_format import particles, write_run

# A stand-in for a setup script (json and h5py only, to start fast): records its arguments,
# writes run.json and a snapshot at the end time, fails with --fail.
FAKE_SETUP = textwrap.dedent("""
    import argparse, json, os, sys
    import h5py
    ap = argparse.ArgumentParser()
    ap.add_argument("--run"); ap.add_argument("--output")
    ap.add_argument("--end-time", type=float, default=0.5)
    ap.add_argument("--rpm"); ap.add_argument("--restart", action="store_true")
    ap.add_argument("--fail", default="no")
    a = ap.parse_args()
    with open({calls!r}, "a") as f:
        f.write(json.dumps(sys.argv[1:]) + "\\n")
    if a.fail == "yes":
        sys.exit("simulated failure of " + a.run)
    os.makedirs(a.output, exist_ok=True)
    with open(os.path.join(a.output, "run.json"), "w") as f:
        json.dump({{"dim": 2, "materials": [], "bodies": [], "metadata": {{"run": a.run}},
                   "run": {{"start_time_s": 0, "end_time_s": a.end_time}}}}, f)
    with h5py.File(os.path.join(a.output, "snapshot_000001.h5"), "w") as f:
        f.attrs["time"] = a.end_time
        f.attrs["step"] = 10
        f.create_group("particles")
""")


@pytest.fixture
def fake(tmp_path):
    calls = tmp_path / "calls.txt"
    script = tmp_path / "fake_setup.py"
    script.write_text(FAKE_SETUP.format(calls=str(calls)))
    template = [sys.executable, str(script), "--run", "{run}", "--output", "{output}"]

    def invocations():
        return [json.loads(x) for x in calls.read_text().splitlines()] if calls.exists() else []
    return template, invocations


def test_run_names_are_stable_and_filesystem_safe():
    row = {"gravity_m_s2": 0.0057, "rpm": -100, "soil": "dry/loose sand", "c": 500.0}
    assert sweep.run_name(row) == "gravity_m_s2=0.0057__rpm=-100__soil=dry_loose_sand__c=500"
    assert sweep.run_name(dict(row)) == sweep.run_name(row)
    long_a = {"note": "x" * 200, "k": 1}
    long_b = {"note": "x" * 200, "k": 2}
    assert len(sweep.run_name(long_a)) == sweep.MAX_NAME
    assert sweep.run_name(long_a) != sweep.run_name(long_b)


def test_command_template_fills_placeholders_and_appends_the_rest():
    cmd = sweep.command_for(["py", "setup.py", "--run", "{run}", "--output", "{output}"],
                            {"run": "E0", "end_time": 0.5, "rpm": 300}, Path("/r/E0"), "E0")
    assert cmd == ["py", "setup.py", "--run", "E0", "--output", "/r/E0",
                   "--end-time", "0.5", "--rpm", "300"]
    with pytest.raises(KeyError, match="placeholder {phi}"):
        sweep.command_for(["x", "{phi}"], {"run": "E0"}, Path("/r"), "E0")


def test_a_label_column_names_the_run_and_is_not_passed(tmp_path, fake):
    # Two rows of one run with different choices: the label column "case" names them and
    # reaches the command only through a placeholder.
    template, invocations = fake
    rows = [{"case": "P6_slow", "run": "P6", "rpm": 100}, {"case": "P6_fast", "run": "P6", "rpm": 500}]
    root = tmp_path / "s"
    assert sweep.run_sweep(template, rows, root, name="case", log=False) == 0
    assert [c[2:] for c in invocations()] == [["--output", str(root / "P6_slow"), "--rpm", "100"],
                                              ["--output", str(root / "P6_fast"), "--rpm", "500"]]
    assert sweep.command_for(["x", "{case}"], rows[0], Path("/r"), "P6_slow", ("case",)) == [
        "x", "P6_slow", "--run", "P6", "--rpm", "100"]
    with pytest.raises(ValueError, match=r"rows\[1\]: no column 'case'"):
        sweep.plan_sweep(["x"], [rows[0], {"run": "P7"}], tmp_path, name="case")


def test_bad_rows(tmp_path):
    with pytest.raises(ValueError, match=r"rows\[0\] and rows\[1\] both map to the run name"):
        sweep.plan_sweep(["x"], [{"run": "A", "rpm": 1}, {"run": "A", "rpm": 2}], tmp_path,
                         name=lambda r: r["run"])
    with pytest.raises(ValueError, match="reserved"):
        sweep.plan_sweep(["x"], [{"output": "A"}], tmp_path)
    with pytest.raises(ValueError, match="mode"):
        sweep.run_sweep(["x"], [{"a": 1}], tmp_path, mode="cloud")


def test_local_sweep_runs_each_row_once(tmp_path, fake):
    template, invocations = fake
    rows = [{"run": "E0", "rpm": 100}, {"run": "E1", "rpm": 300}]
    root = tmp_path / "sweep"
    assert sweep.run_sweep(template, rows, root, name=lambda r: r["run"], log=False) == 0
    calls = invocations()
    assert [c[1] for c in calls] == ["E0", "E1"]
    assert calls[1][2:] == ["--output", str(root / "E1"), "--rpm", "300"]
    marker = json.loads((root / "E1" / sweep.SWEEP_MARKER).read_text())
    assert marker["row"] == {"run": "E1", "rpm": "300"}
    # Again: everything is finished, nothing runs.
    assert sweep.run_sweep(template, rows, root, name=lambda r: r["run"], log=False) == 0
    assert len(invocations()) == 2
    with open(root / "sweep.csv") as f:
        table = list(csv.DictReader(f))
    assert [(r["name"], r["status"], r["rpm"]) for r in table] == [
        ("E0", "skipped (finished)", "100"), ("E1", "skipped (finished)", "300")]


def test_finished_is_judged_from_the_run_files(tmp_path, fake):
    template, invocations = fake
    root = tmp_path / "sweep"
    # Run by hand to its end time (no marker): skipped.
    write_run(root / "run=A", [(0.0, particles([[0, 0]])), (0.5, particles([[0, 0]]))])
    # Stopped before its end time, with a checkpoint: continued with the resume arguments.
    write_run(root / "run=B", [(0.0, particles([[0, 0]]))], end_time=0.5)
    (root / "run=B" / "checkpoint_000000000010.h5").write_bytes(b"")
    rows = [{"run": "A"}, {"run": "B"}]
    assert sweep.is_finished(root / "run=A") and not sweep.is_finished(root / "run=B")
    assert sweep.run_sweep(template, rows, root, resume_args=["--restart"], log=False) == 0
    assert invocations() == [["--run", "B", "--output", str(root / "run=B"), "--restart"]]
    # A longer end time than the finished run's makes the row unfinished again.
    assert not sweep.is_finished(root / "run=A", end_time=1.0)
    sweep.run_sweep(template, [{"run": "A", "end_time": 1.0}], root, log=False)
    assert invocations()[-1][-2:] == ["--end-time", "1"]


def test_a_run_stopped_before_its_first_checkpoint_starts_over(tmp_path, fake):
    template, invocations = fake
    root = tmp_path / "sweep"
    # Killed a few minutes in: run.json and the first snapshot, no checkpoint.
    write_run(root / "run=C", [(0.0, particles([[0, 0]]))], end_time=0.5)
    assert sweep.run_sweep(template, [{"run": "C"}], root, resume_args=["--restart"],
                           log=False) == 0
    # Started over without the resume arguments (they would fail: no checkpoint)...
    assert invocations() == [["--run", "C", "--output", str(root / "run=C")]]
    assert sweep.is_finished(root / "run=C")
    # ...and the stale directory is kept aside, not deleted.
    assert (root / "run=C.stale-1" / "run.json").is_file()


def test_a_failing_row_is_reported_and_the_others_run(tmp_path, fake):
    template, invocations = fake
    root = tmp_path / "sweep"
    rows = [{"run": "E0", "fail": "yes"}, {"run": "E1", "fail": "no"}]
    assert sweep.run_sweep(template, rows, root, name=lambda r: r["run"], log=False) == 1
    assert not (root / "E0" / sweep.SWEEP_MARKER).exists()
    assert "simulated failure of E0" in (root / "E0" / "sweep.log").read_text()
    assert sweep.is_finished(root / "E1")
    assert len(invocations()) == 2


def test_callable_base(tmp_path):
    seen = []

    def setup(output, run, rpm):
        seen.append((output.name, rpm))
        if rpm < 0:
            raise ValueError("clearing is not modelled here")
        write_run(output, [(0.0, particles([[0, 0]]))], end_time=0.0)

    rows = [{"run": "P0", "rpm": 100}, {"run": "P7", "rpm": -100}]
    assert sweep.run_sweep(setup, rows, tmp_path, name=lambda r: r["run"], log=False) == 1
    assert seen == [("P0", 100), ("P7", -100)]
    assert sweep.is_finished(tmp_path / "P0") and not sweep.is_finished(tmp_path / "P7")
    with pytest.raises(ValueError, match="module-level function"):
        sweep.run_sweep(setup, rows, tmp_path, mode="batch")


def test_batch_scripts(tmp_path, fake):
    template, invocations = fake
    root = tmp_path / "sweep"
    write_run(root / "E0", [(0.0, particles([[0, 0]])), (0.5, particles([[0, 0]]))])
    rows = [{"run": "E0"}, {"run": "E1", "end_time": 0.25}]
    status = sweep.run_sweep(template, rows, root, mode="batch", name=lambda r: r["run"],
                             batch_options={"time": "02:00:00", "partition": "short"}, log=False)
    assert status == 0 and invocations() == []  # nothing ran
    assert not (root / "E0" / "job.sbatch").exists()  # finished rows get no job
    script = (root / "E1" / "job.sbatch").read_text()
    assert "#SBATCH --time=02:00:00" in script and "#SBATCH --partition=short" in script
    assert "#SBATCH --job-name=E1" in script
    assert f"--output {root / 'E1'} --end-time 0.25" in script
    submit = (root / "submit_all.sh").read_text().splitlines()
    assert submit[-1] == f"sbatch {(root / 'E1' / 'job.sbatch').resolve()}"
    # The script is plain bash: run without SLURM, it runs the row and marks it finished.
    done = subprocess.run(["bash", str(root / "E1" / "job.sbatch")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert invocations()[0][:2] == ["--run", "E1"]
    assert sweep.is_finished(root / "E1")
    marker = json.loads((root / "E1" / sweep.SWEEP_MARKER).read_text())
    assert marker["row"] == {"run": "E1", "end_time": "0.25"}


def test_read_rows(tmp_path):
    (tmp_path / "rows.csv").write_text("run,rpm,cohesion_Pa\nE0,100,0\nP8,-100,100.5\n")
    assert sweep.read_rows(tmp_path / "rows.csv") == [
        {"run": "E0", "rpm": 100, "cohesion_Pa": 0}, {"run": "P8", "rpm": -100, "cohesion_Pa": 100.5}]
    (tmp_path / "bad.csv").write_text("run,rpm\nE0\n")
    with pytest.raises(ValueError, match="bad.csv: row 2"):
        sweep.read_rows(tmp_path / "bad.csv")
    with pytest.raises(FileNotFoundError, match="no such parameter table"):
        sweep.read_rows(tmp_path / "none.csv")


# A stand-in that proves rows run at once: each waits (up to 20 s) until every row of the
# sweep has started, and records the OpenMP thread count it was given.
MEETING_SETUP = textwrap.dedent("""
    import os, sys, time
    run, output, rows, meeting = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    os.makedirs(meeting, exist_ok=True)
    open(os.path.join(meeting, run), "w").write(os.environ.get("OMP_NUM_THREADS", "unset"))
    deadline = time.time() + 20
    while len(os.listdir(meeting)) < rows:
        if time.time() > deadline:
            sys.exit(run + ": the other rows never started")
        time.sleep(0.05)
""")


def test_jobs_run_rows_at_once_with_their_share_of_the_cores(tmp_path, monkeypatch):
    script = tmp_path / "meeting.py"
    script.write_text(MEETING_SETUP)
    meeting = tmp_path / "meeting"
    template = [sys.executable, str(script), "{run}", "{output}", "3", str(meeting)]
    rows = [{"run": r} for r in ("A", "B", "C")]
    monkeypatch.setattr(sweep, "usable_cores", lambda: 7)
    # Three rows that each wait for the other two: only three at once can finish.
    status = sweep.run_sweep(template, rows, tmp_path / "s", name=lambda r: r["run"], log=False,
                             jobs=3)
    assert status == 0
    # 7 cores / 3 jobs: 2 threads each, whatever this process was given.
    assert {p.name: p.read_text() for p in meeting.iterdir()} == {"A": "2", "B": "2", "C": "2"}
    with open(tmp_path / "s" / "sweep.csv") as f:
        assert [r["status"] for r in csv.DictReader(f)] == ["done"] * 3
    # threads_per_job given: that count, also for one row at a time.
    meeting2 = tmp_path / "meeting2"
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    status = sweep.run_sweep(template[:-2] + ["1", str(meeting2)], rows[:1], tmp_path / "t",
                             name=lambda r: r["run"], log=False, threads_per_job=3)
    assert status == 0 and (meeting2 / "A").read_text() == "3"
    # jobs=1 without threads_per_job: the runs inherit this process's environment.
    meeting3 = tmp_path / "meeting3"
    status = sweep.run_sweep(template[:-2] + ["1", str(meeting3)], rows[:1], tmp_path / "u",
                             name=lambda r: r["run"], log=False)
    assert status == 0 and (meeting3 / "A").read_text() == "5"


def test_rows_that_wait_for_each_other_fail_one_at_a_time(tmp_path):
    # The converse of the test above, so that it can fail: of two rows run one after another
    # the first waits for the second in vain (2 s here) and fails.
    script = tmp_path / "meeting.py"
    script.write_text(MEETING_SETUP.replace("time.time() + 20", "time.time() + 2"))
    meeting = tmp_path / "meeting"
    template = [sys.executable, str(script), "{run}", "{output}", "2", str(meeting)]
    status = sweep.run_sweep(template, [{"run": "A"}, {"run": "B"}], tmp_path / "s",
                             name=lambda r: r["run"], log=False, jobs=1)
    assert status == 1
    with open(tmp_path / "s" / "sweep.csv") as f:
        assert next(csv.DictReader(f))["status"] == "failed"


def test_jobs_are_refused_where_they_cannot_apply(tmp_path):
    for options in ({"jobs": 2}, {"threads_per_job": 1}):
        with pytest.raises(ValueError, match="batch mode writes one job script per row"):
            sweep.run_sweep(["x"], [{"a": 1}], tmp_path, mode="batch", **options)
        with pytest.raises(ValueError, match="a callable base runs inside this process"):
            sweep.run_sweep(lambda out, **row: 0, [{"a": 1}], tmp_path, **options)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_jobs(tmp_path, bad):
    with pytest.raises(ValueError, match="jobs: expected a whole number >= 1"):
        sweep.run_sweep(["x"], [{"a": 1}], tmp_path, jobs=bad)
    with pytest.raises(ValueError, match="threads_per_job: expected a whole number >= 1"):
        sweep.run_sweep(["x"], [{"a": 1}], tmp_path, threads_per_job=bad)


def test_cli_passes_jobs(tmp_path):
    script = tmp_path / "meeting.py"
    script.write_text(MEETING_SETUP)
    (tmp_path / "rows.csv").write_text("run\nA\nB\n")
    meeting = tmp_path / "meeting"
    r = subprocess.run([sys.executable, "-m", "regosph", "sweep", "--rows",
                        str(tmp_path / "rows.csv"), "--root", str(tmp_path / "s"),
                        "--name-column", "run", "--jobs", "2", "--threads-per-job", "1", "--",
                        sys.executable, str(script), "{run}", "{output}", "2", str(meeting)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in meeting.iterdir()) == ["A", "B"]
    r = subprocess.run([sys.executable, "-m", "regosph", "sweep", "--rows",
                        str(tmp_path / "rows.csv"), "--root", str(tmp_path / "t"), "--jobs", "0",
                        "--", "x"], capture_output=True, text=True)
    assert r.returncode == 2 and "jobs: expected a whole number >= 1" in r.stderr


def test_a_row_that_cannot_start_fails_and_the_others_run(tmp_path, fake):
    template, invocations = fake
    rows = [{"run": "A"}, {"run": "B"}]
    for jobs in (1, 2):
        root = tmp_path / f"s{jobs}"
        missing = [str(tmp_path / "no-such-program")] + template[1:]
        assert sweep.run_sweep(missing, rows, root, name=lambda r: r["run"], log=False,
                               jobs=jobs) == 1
        with open(root / "sweep.csv") as f:
            assert [r["status"] for r in csv.DictReader(f)] == ["failed", "failed"]
    # The same rows with a program that exists run, two at once.
    root = tmp_path / "mixed"
    assert sweep.run_sweep(template, rows, root, name=lambda r: r["run"], log=False,
                           jobs=2) == 0
    assert sorted(c[1] for c in invocations()) == ["A", "B"]


# A run that stops on SIGTERM as a regosph run does (checkpoint, exit), recording that it did.
TERM_SETUP = textwrap.dedent("""
    import os, signal, sys, time
    run, output, flags = sys.argv[1], sys.argv[2], sys.argv[3]
    def term(*_):
        open(os.path.join(flags, run + ".term"), "w").close()
        sys.exit(3)
    signal.signal(signal.SIGTERM, term)
    open(os.path.join(flags, run + ".started"), "w").close()
    time.sleep(60)
""")


@pytest.mark.parametrize("signum, jobs", [(signal.SIGINT, 2), (signal.SIGTERM, 2),
                                          (signal.SIGTERM, 1)])
def test_an_interrupt_stops_the_runs_under_way_and_starts_no_more(tmp_path, signum, jobs):
    script = tmp_path / "term.py"
    script.write_text(TERM_SETUP)
    flags = tmp_path / "flags"
    flags.mkdir()
    root = tmp_path / "s"
    code = textwrap.dedent(f"""
        from regosph import sweep
        sweep.run_sweep([{sys.executable!r}, {str(script)!r}, "{{run}}", "{{output}}",
                         {str(flags)!r}], [{{"run": r}} for r in "ABCD"], {str(root)!r},
                        name=lambda r: r["run"], log=False, jobs={jobs})
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    under_way = "AB"[:jobs]
    deadline = time.time() + 30
    while len(list(flags.glob("*.started"))) < jobs and time.time() < deadline:
        time.sleep(0.05)
    assert sorted(p.name for p in flags.glob("*.started")) == [f"{r}.started" for r in under_way]
    proc.send_signal(signum)  # to the sweep only, as kill or a scheduler would
    _, err = proc.communicate(timeout=30)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    # The runs under way got SIGTERM; the others never started.
    assert sorted(p.name for p in flags.iterdir()) == sorted(
        f"{r}.{what}" for r in under_way for what in ("started", "term"))
    with open(root / "sweep.csv") as f:
        assert [(r["name"], r["status"]) for r in csv.DictReader(f)] == [
            (r, "interrupted" if r in under_way else "not run") for r in "ABCD"]


# Holds run.lock of a directory as a running regosph run does (an exclusive flock), until
# killed.
HOLDER = textwrap.dedent("""
    import fcntl, os, socket, sys, time
    fd = os.open(os.path.join(sys.argv[1], "run.lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"pid={os.getpid()}\\nhost={socket.gethostname()}\\nstarted=now\\n".encode())
    print("held", flush=True)
    time.sleep(60)
""")


def test_a_run_under_way_elsewhere_is_left_alone(tmp_path, fake):
    template, invocations = fake
    root = tmp_path / "s"
    busy = root / "E0"
    busy.mkdir(parents=True)
    (busy / "run.json").write_text("{}")  # started, no checkpoint yet
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(busy)], stdout=subprocess.PIPE,
                              text=True)
    here = socket.gethostname()
    try:
        assert holder.stdout.readline().strip() == "held"
        assert sweep.lock_holder(busy) == f"process {holder.pid} on host '{here}' (started now)"
        rows = [{"run": "E0"}, {"run": "E1"}]
        assert sweep.run_sweep(template, rows, root, name=lambda r: r["run"], log=False) == 1
        # Not moved aside, not started; the other row ran.
        assert (busy / "run.json").is_file() and not list(root.glob("E0.stale-*"))
        assert [c[1] for c in invocations()] == ["E1"]
        with open(root / "sweep.csv") as f:
            assert (next(csv.DictReader(f))["status"]
                    == f"in use by process {holder.pid} on host '{here}' (started now)")
    finally:
        holder.kill()
        holder.wait()
    # The lock file stays behind but nobody holds it: the row starts over.
    assert sweep.lock_holder(busy) is None
    assert sweep.run_sweep(template, rows, root, name=lambda r: r["run"], log=False) == 0
    assert [c[1] for c in invocations()] == ["E1", "E0"] and list(root.glob("E0.stale-*"))


def test_a_run_locked_on_another_host_is_left_alone(tmp_path, fake):
    # A batch job on a compute node that has not written its first checkpoint: from the
    # login node nothing tells whether it still runs, so the sweep must not move it aside.
    template, invocations = fake
    root = tmp_path / "s"
    job = root / "E0"
    job.mkdir(parents=True)
    (job / "run.json").write_text("{}")
    (job / "run.lock").write_text("pid=12\nhost=node-17\nstarted=2026-01-01T00:00:00Z\n")
    assert sweep.run_sweep(template, [{"run": "E0"}], root, name=lambda r: r["run"],
                           log=False) == 1
    assert invocations() == [] and (job / "run.json").is_file()
    with open(root / "sweep.csv") as f:
        status = next(csv.DictReader(f))["status"]
    assert status.startswith("in use by process 12 on host 'node-17'") and "another host" in status


def test_a_row_is_checked_again_just_before_it_starts(tmp_path, fake):
    # Another sweep finished E1 while this one was running E0: E1 is not run twice.
    template, invocations = fake
    root = tmp_path / "s"
    rows = [{"run": "E0"}, {"run": "E1"}]
    planned = sweep.plan_sweep(template, rows, root, name=lambda r: r["run"])
    assert not any(p.finished for p in planned)
    (root / "E1").mkdir(parents=True)
    (root / "E1" / sweep.SWEEP_MARKER).write_text("{}")
    assert sweep._run_local(template, planned[1], log=False) == "skipped (finished)"
    assert sweep._run_local(template, planned[0], log=False) == "done"
    assert [c[1] for c in invocations()] == ["E0"]
    # A resumed run appends to its log.
    log = (root / "E0" / "sweep.log").read_text()
    assert log.startswith("# sweep: ") and "started: " in log
