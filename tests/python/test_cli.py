"""python3 -m regosph info / plot / compare / sweep, run as a user would (subprocess)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import regosph
from test_post_compare import sampler_run

ENV = {**os.environ, "PYTHONPATH": str(Path(regosph.__file__).resolve().parents[1]),
       "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


def cli(*args, cwd=None):
    return subprocess.run(["/usr/bin/python3", "-m", "regosph", *map(str, args)],
                          capture_output=True, text=True, env=ENV, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    sampler_run(root, "E2", 9.81, 300, 0.0, rate=30.0, t0=0.5)
    sampler_run(root, "P0", 0.0057, 100, 0.0, rate=400.0, t0=0.35)
    return root


def test_info(runs):
    r = cli("info", runs / "P0")
    assert r.returncode == 0, r.stderr
    assert "run P0" in r.stdout and "rpm = 100" in r.stdout
    assert "snapshots: 2 from 0 s to 1 s (end time 1 s, finished)" in r.stdout
    assert "observer tray: 260 particles" in r.stdout
    r = cli("info", runs / "P0", "--json")
    info = json.loads(r.stdout)
    assert info["observers"]["tray"]["first_entry_s"] == pytest.approx(0.36)
    assert info["bodies"][1]["motion"] == "kinematic" and info["particles"] == 25


def test_plot(runs, tmp_path):
    r = cli("plot", runs / "E2", "--field", "vx", "--times", "0", "1", "--out", tmp_path / "fig")
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in (tmp_path / "fig").iterdir())
    assert names == ["tray_count.png", "vx_0.000s.png", "vx_1.000s.png"]
    assert all((tmp_path / "fig" / n).stat().st_size > 5000 for n in names)


def test_compare_csv_and_markdown(runs, tmp_path):
    r = cli("compare", runs / "E2", runs / "P0", "--csv", tmp_path / "t.csv", "--times", "1")
    assert r.returncode == 0, r.stderr
    table = pd.read_csv(tmp_path / "t.csv")
    assert list(table["run"]) == ["E2", "P0"]
    assert list(table["tray_count_1s"]) == [15, 260]
    assert table.loc[1, "tray_rate_per_s"] == pytest.approx(400, rel=0.01)
    r = cli("compare", runs, "--markdown")  # a directory of runs
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("| run | setup |") and len(lines) == 4
    assert lines[3].startswith("| P0 | brush_sampler |")


def test_errors_name_the_file(runs, tmp_path):
    r = cli("info", tmp_path / "nowhere")
    assert r.returncode == 2 and "nowhere: no such run directory" in r.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "run.json").write_text('{"dim": 2,')
    r = cli("compare", runs / "P0", bad)
    assert r.returncode == 2 and f"{bad / 'run.json'}: not valid JSON" in r.stderr
    assert "Traceback" not in r.stderr
    (tmp_path / "empty").mkdir()
    r = cli("compare", tmp_path / "empty")  # neither a run nor a directory of runs
    assert r.returncode == 2 and "run.json: missing" in r.stderr


def test_sweep_command(tmp_path):
    (tmp_path / "rows.csv").write_text("run,speed\nA,1\nB,2\n")
    setup = "import sys, pathlib; a = sys.argv; pathlib.Path(a[2]).joinpath('args.txt').write_text(' '.join(a[1:]))"
    r = cli("sweep", "--rows", tmp_path / "rows.csv", "--root", tmp_path / "s", "--name-column",
            "run", "--", "/usr/bin/python3", "-c", setup, "{run}", "{output}")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s" / "B" / "args.txt").read_text() == f"B {tmp_path / 's' / 'B'} --speed 2"
    assert "warning" not in r.stderr
    # The label column without its placeholder names the runs but is not passed: said.
    r = cli("sweep", "--rows", tmp_path / "rows.csv", "--root", tmp_path / "l", "--name-column",
            "run", "--", "/usr/bin/python3", "-c", setup, "x", "{output}")
    assert r.returncode == 0, r.stderr
    assert "the command has no {run}" in r.stderr
    assert (tmp_path / "l" / "A" / "args.txt").read_text() == f"x {tmp_path / 'l' / 'A'} --speed 1"
    r = cli("sweep", "--rows", tmp_path / "rows.csv", "--root", tmp_path / "s", "--batch",
            "--", "/usr/bin/python3", "-c", setup, "{run}", "{output}")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s" / "run=A__speed=1" / "job.sbatch").is_file()
    r = cli("sweep", "--rows", tmp_path / "none.csv", "--root", tmp_path / "s", "--", "x")
    assert r.returncode == 2 and "none.csv: no such parameter table" in r.stderr


def test_an_unreadable_snapshot_is_reported_and_skipped(runs, tmp_path):
    # Issue 15, item 5: one damaged snapshot (SIGKILL, a full disk) made info, plot and
    # compare fail completely.
    import shutil
    run = tmp_path / "P0"
    shutil.copytree(runs / "P0", run)
    bad = sorted(run.glob("snapshot_*.h5"))[0]
    bad.write_bytes(bad.read_bytes()[:100])
    warning = f"warning: skipping unreadable snapshot {bad}"
    r = cli("info", run)
    assert r.returncode == 0, r.stderr
    assert warning in r.stderr and "snapshots: 1 from 1 s to 1 s" in r.stdout
    r = cli("plot", run, "--out", tmp_path / "fig")
    assert r.returncode == 0 and warning in r.stderr, r.stderr
    assert (tmp_path / "fig" / "speed_1.000s.png").is_file()
    r = cli("compare", run, runs / "E2", "--times", "1")
    assert r.returncode == 0 and warning in r.stderr, r.stderr
    assert "P0" in r.stdout and "E2" in r.stdout
