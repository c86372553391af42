"""Fault matrix (issue 15): the faults a user meets around a run, each with the outcome regosph
must give. Every row runs the soil-collapse script (examples/soil_collapse.py, coarse) as a user
would, in a subprocess, and injects the fault from outside: SIGKILL (at random moments, and
while a snapshot or a checkpoint file is being written, caught through inotify), a full disk
(a small tmpfs; needs root, skipped otherwise), a read-only directory, concurrent runs, damaged
checkpoints, changed parameters on restart.

| fault                                              | expected outcome                              |
|----------------------------------------------------|-----------------------------------------------|
| SIGKILL at random moments, restart after each      | final state bit-identical to an uninterrupted |
|                                                    | run                                           |
| SIGKILL while a snapshot / a checkpoint is written | the restart removes the .tmp left behind;     |
|                                                    | bit-identical                                 |
| disk full during the run                           | exit 5 "No space left on device", no .tmp,    |
|                                                    | no crash at exit; after space is freed the    |
|                                                    | last checkpoint restarts, bit-identical       |
| disk full at the start                             | exit 5 with the reason, nothing left behind;  |
|                                                    | once space is freed the directory is accepted |
| read-only directory                                | exit 5 "not writable", nothing written        |
| a second run while one runs (new, --overwrite,     | refused at once (exit 2) naming the holder's  |
| --restart)                                         | process and host; the first run's files are   |
|                                                    | all its own                                   |
| two runs started at the same instant               | one runs; the other is refused by the lock    |
|                                                    | (no HDF5 error)                               |
| lock left by a killed run                          | taken over with a note; the restart finishes  |
| lock from another host                             | refused naming the host; --take-over-lock     |
|                                                    | takes it                                      |
| newest checkpoint: flipped data / truncated /      | skipped with the reason, the previous one     |
| stored time changed by one hex digit               | used; bit-identical                           |
| every checkpoint with a changed time               | exit 2 "no usable checkpoint", untouched      |
| restart with another friction angle or gravity     | exit 2 naming each field, untouched; accepted |
|                                                    | with --allow-change and recorded in run.json  |
"""
import ctypes
import json
import os
import random
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest

from conftest import REPO
from test_restart import assert_same_run, assert_same_snapshots

SCRIPT = REPO / "examples" / "soil_collapse.py"
END = 0.25
ARGS = ["--spacing", "5.164e-3", "--snapshot-interval", "0.05", "--checkpoint-every", "40"]
EXIT_REFUSED, EXIT_OUTPUT_FAILED = 2, 5


def environment():
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    import regosph
    package_root = str(Path(regosph.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [package_root, env.get("PYTHONPATH", "")] if p)
    return env


def launch(out, *extra, end=END, script=SCRIPT):
    return subprocess.Popen([sys.executable, str(script), "--output", str(out), *ARGS,
                             "--end-time", str(end), *map(str, extra)],
                            env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc, timeout=300):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def run(out, *extra, end=END, script=SCRIPT):
    return finish(launch(out, *extra, end=end, script=script))


def wait_for(pattern, out, proc, count=1, timeout=120):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None or len(list(Path(out).glob(pattern))) >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"no {pattern} appeared")


def leftovers(out):
    return sorted(p.name for p in Path(out).iterdir() if p.name.endswith(".tmp")
                  or p.name == "run.lock")


def fingerprint(directory):
    d = Path(directory)
    return {str(p.relative_to(d)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted") / "run"
    code, _, err = run(out)
    assert code == 0, err
    return out


# --- SIGKILL --------------------------------------------------------------------------------

def test_sigkill_at_random_moments(reference, tmp_path):
    rng = random.Random(151)
    proc = launch(tmp_path / "run")
    for _ in range(3):
        wait_for("checkpoint_*.h5", tmp_path / "run", proc)
        time.sleep(rng.uniform(0.0, 0.4))
        if proc.poll() is not None:
            break
        proc.kill()
        proc.wait()
        proc = launch(tmp_path / "run", "--restart")
    code, _, err = finish(proc)
    assert code == 0, err
    assert_same_run(tmp_path / "run", reference)
    assert leftovers(tmp_path / "run") == []


class FileCreations:
    """inotify(7) on one directory: the names of the files created in it, as they appear."""
    IN_CREATE = 0x100

    def __init__(self, directory):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init()
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        wd = self.libc.inotify_add_watch(self.fd, str(directory).encode(), self.IN_CREATE)
        assert wd >= 0, os.strerror(ctypes.get_errno())

    def wait(self, timeout):
        """Names created within `timeout` seconds (possibly none)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        data, names, at = os.read(self.fd, 65536), [], 0
        while at + 16 <= len(data):
            _, _, _, length = struct.unpack_from("iIII", data, at)
            names.append(data[at + 16: at + 16 + length].rstrip(b"\0").decode())
            at += 16 + length
        return names

    def close(self):
        os.close(self.fd)


@pytest.mark.parametrize("kind", ["snapshot", "checkpoint"])
def test_sigkill_while_a_file_is_written(kind, reference, tmp_path):
    """SIGKILL as soon as a snapshot_*.h5.tmp (checkpoint_*.h5.tmp) is created: the kill lands
    while HDF5 writes the file. The restart removes what is left and ends bit-identical."""
    out = tmp_path / "run"
    out.mkdir()
    watch = FileCreations(out)
    caught, attempts = 0, 0
    proc = launch(out)
    try:
        while caught < 2 and attempts < 12 and proc.poll() is None:
            names = watch.wait(1.0)
            if not any(n.startswith(kind + "_") and n.endswith(".h5.tmp") for n in names):
                continue
            if not list(out.glob("checkpoint_*.h5")):
                continue  # nothing to restart from yet
            proc.kill()
            proc.wait()
            attempts += 1
            left = [p.name for p in out.glob(f"{kind}_*.h5.tmp")]
            caught += bool(left)
            proc = launch(out, "--restart")
    finally:
        watch.close()
    code, _, err = finish(proc)
    assert code == 0, err
    assert caught >= 1, f"no kill landed during a {kind} write in {attempts} attempts"
    assert leftovers(out) == []
    assert_same_run(out, reference)


# --- disk full, read-only directory ---------------------------------------------------------

def mount_tmpfs(directory, options):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs (a full disk) needs root")
    directory.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")


@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "size=1m")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def test_disk_full_during_the_run(small_disk, reference):
    out = small_disk / "run"
    code, _, err = run(out, "--checkpoint-every", "40")
    # A clear error, a clean exit (no crash in HDF5 at exit: status 139), no partial files.
    assert code == EXIT_OUTPUT_FAILED, err
    assert "No space left on device" in err and "error: " in err
    assert leftovers(out) == []
    json.loads((out / "run.json").read_text())
    lines = (out / "diagnostics.csv").read_text().split("\n")
    assert lines[-1] == "" and all(len(l.split(",")) == len(lines[0].split(",")) for l in lines[:-1])
    # The last good checkpoint is kept: with space again, the run continues from it.
    assert list(out.glob("checkpoint_*.h5"))
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    code, stdout, err = run(out, "--restart")
    assert code == 0, err
    assert "restarting from" in stdout
    assert_same_snapshots(out, reference)


def test_disk_full_at_the_start(small_disk):
    filler = small_disk / "filler"
    with open(filler, "wb", buffering=0) as f:  # every block of the disk
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    out = small_disk / "run"
    code, _, err = run(out)
    assert code == EXIT_OUTPUT_FAILED, err
    assert "No space left on device" in err
    assert sorted(os.listdir(out)) == []  # no run.json.tmp, no lock, nothing
    filler.unlink()
    code, _, err = run(out, end=0.02)  # accepted: the failed start left no run behind
    assert code == 0, err


def test_read_only_directory(tmp_path):
    out = tmp_path / "ro"
    if os.geteuid() == 0:  # permission bits do not stop root: a read-only mount does
        mount_tmpfs(out, "ro,size=1m")
    else:
        out.mkdir()
        out.chmod(0o555)
    try:
        code, _, err = run(out / "run" if os.geteuid() == 0 else out)
        assert code == EXIT_OUTPUT_FAILED, err
        assert "not writable" in err
        assert os.listdir(out) == []
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(out)], check=False)


# --- concurrent runs and the lock -----------------------------------------------------------

def test_second_run_into_a_running_directory_is_refused(tmp_path):
    out = tmp_path / "run"
    first = launch(out, end=2.0)  # long enough to outlive the three attempts below
    wait_for("snapshot_000001.h5", out, first)
    for extra in ([], ["--overwrite"], ["--restart"]):
        start = time.monotonic()
        code, _, err = run(out, *extra, end=0.1)
        assert code == EXIT_REFUSED, err
        assert f"in use by process {first.pid} on host" in err, err
        assert time.monotonic() - start < 30  # at once, not after a run
    assert first.poll() is None, "the first run ended before the attempts were over"
    code, _, err = finish(first)
    assert code == 0, err
    # Every file is the first run's: its command in run.json and in every snapshot.
    command = json.loads((out / "run.json").read_text())["metadata"]["command"]
    assert "--end-time 2.0" in command and "restarts" not in json.loads((out / "run.json").read_text())
    snapshots = sorted(out.glob("snapshot_*.h5"))
    assert len(snapshots) == 41
    for f in snapshots:
        with h5py.File(f) as h:
            assert h.attrs["command"] == command
    assert leftovers(out) == []


def test_two_runs_started_at_the_same_instant(tmp_path):
    out = tmp_path / "run"
    procs = [launch(out, end=0.3) for _ in range(2)]
    results = [finish(p) for p in procs]
    codes = sorted(r[0] for r in results)
    assert codes == [0, EXIT_REFUSED], [r[2] for r in results]
    refused = next(r for r in results if r[0] == EXIT_REFUSED)
    assert "is in use by process" in refused[2]
    assert "HDF5" not in refused[2] and "H5" not in refused[2]


def test_stale_lock_of_a_killed_run_is_taken_over(reference, tmp_path):
    out = tmp_path / "run"
    proc = launch(out)
    wait_for("checkpoint_*.h5", out, proc)
    proc.kill()
    proc.wait()
    assert (out / "run.lock").is_file()  # SIGKILL: no chance to remove it
    code, _, err = run(out, "--restart")
    assert code == 0, err
    assert f"took over the lock of '{out}' left by process {proc.pid}" in err
    assert leftovers(out) == []
    assert_same_run(out, reference)


def test_lock_from_another_host_needs_the_option(tmp_path):
    out = tmp_path / "run"
    code, _, err = run(out, end=0.05)
    assert code == 0, err
    (out / "run.lock").write_text("pid=4242\nhost=node-b17\nstarted=2026-01-01T00:00:00Z\n")
    before = fingerprint(out)
    code, _, err = run(out, "--restart", end=0.1)
    assert code == EXIT_REFUSED and "node-b17" in err and "--take-over-lock" in err, err
    assert fingerprint(out) == before
    code, _, err = run(out, "--restart", "--take-over-lock", end=0.1)
    assert code == 0, err
    assert leftovers(out) == []


# --- damaged checkpoints --------------------------------------------------------------------

def flip_dataset(f):
    with h5py.File(f, "r+") as h:
        d = h["particles/velocity"]
        v = d[:]
        v[len(v) // 2, 0] += 1e-3
        d[...] = v


def truncate(f):
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])


def change_time_digit(f):
    with h5py.File(f, "r+") as h:
        text = h.attrs["checkpoint_time"]
        i = text.index("p") - 1  # the last hex digit of the mantissa
        h.attrs["checkpoint_time"] = text[:i] + ("1" if text[i] != "1" else "2") + text[i + 1:]


@pytest.mark.parametrize("damage,reason", [(flip_dataset, "particle fields"),
                                           (truncate, "cannot read"),
                                           (change_time_digit, "the time, step")])
def test_damaged_newest_checkpoint_falls_back(damage, reason, reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    previous, newest = sorted(out.glob("checkpoint_*.h5"))
    damage(newest)
    code, stdout, err = run(out, "--restart")
    assert code == 0, err
    assert f"skipped corrupt checkpoint {newest}" in err and reason in err, err
    assert f"restarting from {previous}" in stdout
    assert_same_snapshots(out, reference)


def test_every_checkpoint_with_a_changed_time(reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    for c in out.glob("checkpoint_*.h5"):
        change_time_digit(c)
    before = fingerprint(out)
    code, _, err = run(out, "--restart", end=0.3)
    assert code == EXIT_REFUSED and "no usable checkpoint" in err and "checksum mismatch" in err
    assert fingerprint(out) == before


# --- changed parameters on restart ----------------------------------------------------------

VARIANT = """
import argparse, sys
from regosph.examples import soil_collapse
from regosph import run_control
ap = argparse.ArgumentParser()
ap.add_argument("--output"); ap.add_argument("--spacing", type=float)
ap.add_argument("--end-time", type=float)
ap.add_argument("--friction-angle", type=float, default=19.8)
ap.add_argument("--gravity", type=float, default=9.81)
run_control.add_arguments(ap)
args = ap.parse_args()
soil_collapse.SOIL["friction_angle"] = args.friction_angle
sys.exit(run_control.run(soil_collapse.build(args.spacing, gravity=args.gravity), args,
                         metadata={{"setup": "x"}}))
"""


def test_changed_parameters_on_restart(tmp_path):
    script = tmp_path / "variant.py"
    script.write_text(VARIANT.format())
    out = tmp_path / "run"
    code, _, err = run(out, end=0.05, script=script)
    assert code == 0, err
    before = fingerprint(out)
    code, _, err = run(out, "--restart", "--friction-angle", "35", "--gravity", "1.62",
                       end=0.1, script=script)
    assert code == EXIT_REFUSED, err
    assert "materials[aluminium bars].friction_angle_deg: 19.8 -> 35" in err, err
    assert re.search(r"physics\.gravity_m_s2: \[0(\.0)?,-9\.81,0(\.0)?\] -> "
                     r"\[0(\.0)?,-1\.62,0(\.0)?\]", err), err
    assert fingerprint(out) == before  # nothing removed, nothing written
    # Asked for explicitly: accepted, and recorded.
    code, _, err = run(out, "--restart", "--friction-angle", "35", "--gravity", "1.62",
                       "--allow-change", "physics.gravity_m_s2",
                       "--allow-change", "materials[aluminium bars].friction_angle_deg",
                       end=0.1, script=script)
    assert code == 0, err
    record = json.loads((out / "run.json").read_text())
    assert record["materials"][0]["friction_angle_deg"] == 35.0
    assert record["physics"]["gravity_m_s2"][1] == -1.62
    [restart] = record["restarts"]
    assert restart["from"].startswith("checkpoint_") and 0 < restart["time_s"] <= 0.05
    assert {c["field"] for c in restart["changed"]} >= {
        "physics.gravity_m_s2", "materials[aluminium bars].friction_angle_deg", "run.end_time_s"}
