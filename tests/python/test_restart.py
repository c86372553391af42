"""Checkpoints and exact restart (issue 6): a collapse killed with SIGKILL at moments the test
picks at random, or stopped with SIGTERM, and restarted from its checkpoints, ends bit-for-bit
where an uninterrupted run ends; a corrupt newest checkpoint is skipped for the previous one."""
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from conftest import REPO
from regosph import post

SCRIPT = REPO / "examples" / "soil_collapse.py"
ARGS = ["--spacing", "5.164e-3", "--end-time", "0.25", "--snapshot-interval", "0.05",
        "--checkpoint-every", "40"]


def environment():
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    build_python = str(REPO / "build" / "python")
    env["PYTHONPATH"] = os.pathsep.join(p for p in [env.get("PYTHONPATH", ""), build_python] if p)
    return env


def launch(out, *extra):
    return subprocess.Popen([sys.executable, str(SCRIPT), "--output", str(out), *ARGS, *extra],
                            env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc, timeout=300):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def wait_for_checkpoint(out, proc, timeout=120):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None or list(Path(out).glob("checkpoint_*.h5")):
            return
        time.sleep(0.02)
    raise AssertionError("no checkpoint appeared")


def assert_same_run(a, b):
    """Same snapshots (names, times, every array bit for bit) and the same diagnostics."""
    assert_same_snapshots(a, b)
    da = pd.read_csv(Path(a) / "diagnostics.csv").drop(columns=["rejected_steps [-]"])
    db = pd.read_csv(Path(b) / "diagnostics.csv").drop(columns=["rejected_steps [-]"])
    assert da["time [s]"].is_monotonic_increasing and da["time [s]"].is_unique
    pd.testing.assert_frame_equal(da, db, check_exact=True)


def assert_same_snapshots(a, b):
    """Same snapshot files, times and every array bit for bit."""
    sa, sb = sorted(Path(a).glob("snapshot_*.h5")), sorted(Path(b).glob("snapshot_*.h5"))
    assert [p.name for p in sa] == [p.name for p in sb]
    for fa, fb in zip(sa, sb):
        with h5py.File(fa) as A, h5py.File(fb) as B:
            assert A.attrs["time"] == B.attrs["time"] and A.attrs["step"] == B.attrs["step"]
            for name in B["particles"]:
                np.testing.assert_array_equal(A["particles"][name][:], B["particles"][name][:],
                                              err_msg=f"{fa.name}:{name}")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted")
    code, _, err = finish(launch(out))
    assert code == 0, err
    return out


def test_sigkill_at_random_moments_then_restart_is_bit_identical(reference, tmp_path):
    rng = random.Random(20261122)
    proc = launch(tmp_path)
    kills = 0
    while kills < 3:
        wait_for_checkpoint(tmp_path, proc)
        time.sleep(rng.uniform(0.0, 0.5))
        if proc.poll() is not None:
            break
        proc.kill()  # SIGKILL: no chance to clean up
        proc.wait()
        kills += 1
        proc = launch(tmp_path, "--restart")
    code, out, err = finish(proc)
    assert code == 0, err
    assert kills >= 1
    assert_same_run(tmp_path, reference)


def test_sigterm_checkpoints_and_exits_cleanly_then_restarts(reference, tmp_path):
    proc = launch(tmp_path)
    wait_for_checkpoint(tmp_path, proc)
    time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(signal.SIGTERM)
    code, out, err = finish(proc)
    assert code == 128 + signal.SIGTERM, err
    assert "interrupted by signal 15" in out
    newest = max(tmp_path.glob("checkpoint_*.h5"))
    step = int(newest.stem.split("_")[1])
    assert f"step {step};" in out  # the checkpoint holds the step the run stopped at

    # The checkpoint carries the wall time so far; the restarted segment adds to it.
    before = post.Run(tmp_path).wall_seconds
    assert 0.0 < before < 300.0

    code, out, err = finish(launch(tmp_path, "--restart"))
    assert code == 0, err
    assert_same_run(tmp_path, reference)
    m = re.search(r"in ([0-9.]+) s wall, .* \(([0-9.]+) s over all segments of the run\)", out)
    assert m, out
    segment, total = float(m.group(1)), float(m.group(2))
    assert total == pytest.approx(before + segment, abs=0.15)  # printed to 0.1 s
    assert before < post.Run(tmp_path).wall_seconds <= total + 0.05
    # An uninterrupted run: its one segment is all of it.
    assert 0.0 < post.Run(reference).wall_seconds < 300.0


def test_corrupt_newest_checkpoint_falls_back_to_the_previous(reference, tmp_path):
    proc = launch(tmp_path)
    while len(list(tmp_path.glob("checkpoint_*.h5"))) < 2 and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    finish(proc)
    checkpoints = sorted(tmp_path.glob("checkpoint_*.h5"))
    assert len(checkpoints) == 2
    newest = checkpoints[-1]
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])  # truncated
    code, out, err = finish(launch(tmp_path, "--restart"))
    assert code == 0, err
    assert "skipped corrupt checkpoint" in err and newest.name in err
    assert f"restarting from {checkpoints[0]}" in out
    assert_same_run(tmp_path, reference)
