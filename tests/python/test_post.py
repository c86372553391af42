"""regosph.post.Run and Snapshot: lazy reading, fields, series with units, clear errors."""
import json

import numpy as np
import pytest

from regosph import post
from test_post_format import join, particles, write_run


@pytest.fixture
def run_dir(tmp_path):
    bed = particles([[0.0, 0.0], [0.1, 0.0], [0.2, 0.0]], material=0, body=0,
                    velocity=[[3.0, 4.0], [0.0, 0.0], [0.0, -1.0]], mass=2.0)
    tool = particles([[0.0, 0.5]], material=1, body=1, kind=1, mass=5.0)
    snaps = [(t, join(bed, tool)) for t in (0.0, 0.25, 0.5)]
    t = np.linspace(0, 0.5, 6)
    return write_run(tmp_path / "E0", snaps,
                     metadata={"run": "E0", "rpm": "100", "gravity_m_s2": "9.81", "soil": "dry"},
                     observers={"tray": (t, [0, 0, 1, 2, 4, 4], 0.5 * np.arange(6))},
                     loads={"brush left": {"time": t, "torque_z": -np.arange(6.0)}},
                     bodies=[("bed", "regolith", "dynamic", 3), ("brush left", "tool", "kinematic", 1)])


def test_parameters_metadata_and_times(run_dir):
    run = post.Run(run_dir)
    assert run.name == "E0" and run.dim == 2 and run.end_time == 0.5
    assert run.metadata["rpm"] == "100"
    assert run.metadata_values == {"run": "E0", "rpm": 100, "gravity_m_s2": 9.81, "soil": "dry"}
    assert run.materials == ["regolith", "tool"] and run.bodies == ["bed", "brush left"]
    np.testing.assert_allclose(run.times, [0.0, 0.25, 0.5])
    assert len(run) == 3 and run.finished


def test_snapshot_by_index_and_time(run_dir):
    run = post.Run(run_dir)
    assert run.snapshot(-1).time == 0.5
    assert run.snapshot(time=0.3).time == 0.25
    assert run.snapshot(1).step == 100
    with pytest.raises(IndexError, match="out of range"):
        run.snapshot(3)
    with pytest.raises(ValueError, match="exactly one"):
        run.snapshot(1, time=0.2)


def test_fields_derived_and_dataframe(run_dir):
    snap = post.Run(run_dir).snapshot(0)
    np.testing.assert_allclose(snap["speed"], [5.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(snap.x, [0.0, 0.1, 0.2, 0.0])
    assert snap.units["velocity"] == "m/s"
    np.testing.assert_array_equal(snap.select(material="regolith"), [1, 1, 1, 0])
    np.testing.assert_array_equal(snap.select(body="brush left", kind="boundary"), [0, 0, 0, 1])
    df = snap.to_dataframe(["position", "velocity", "stress", "material"])
    assert list(df.columns[:4]) == ["x", "y", "vx", "vy"]
    assert "stress_xy" in df and df.attrs["units"]["vx"] == "m/s"
    assert list(df["material_name"]) == ["regolith"] * 3 + ["tool"]
    with pytest.raises(KeyError, match="no field 'temperature'"):
        snap["temperature"]
    with pytest.raises(ValueError, match="material: 'ice' is not in this run"):
        snap.select(material="ice")


def test_snapshots_are_read_lazily(run_dir):
    # A corrupt snapshot costs nothing until it is touched; then it names itself and is left
    # out, so that one damaged file does not stop the reading of a run (issue 15, item 5).
    (run_dir / "snapshot_000002.h5").write_bytes(b"not hdf5")
    run = post.Run(run_dir)
    assert run.metadata["run"] == "E0"
    snap = run.snapshot(1)
    assert snap.time == 0.25
    np.testing.assert_array_equal(run.times, [0.0, 0.25])
    [(path, reason)] = run.skipped_snapshots
    assert path.name == "snapshot_000002.h5"
    assert "snapshot_000002.h5: not a readable HDF5" in reason


def test_series_with_units(run_dir):
    run = post.Run(run_dir)
    diag = run.diagnostics
    assert "kinetic_energy" in diag and diag.attrs["units"]["kinetic_energy"] == "J/m"  # 2D
    assert run.observer_names == ["tray"]
    tray = run.observer("tray")
    assert list(tray["count"]) == [0, 0, 1, 2, 4, 4]
    assert tray.attrs["units"]["mass"] == "kg/m"
    loads = run.body_loads("brush left")
    assert loads["torque_z"].min() == -5.0 and loads.attrs["units"]["force_x"] == "N/m"
    assert run.loaded_bodies == ["brush left"]
    with pytest.raises(KeyError, match="no observer 'bin'"):
        run.observer("bin")


def test_observers_from_h5_when_csv_is_absent(run_dir):
    (run_dir / "observers.csv").unlink()
    tray = post.Run(run_dir).observer("tray")
    assert list(tray["count"]) == [0, 0, 1, 2, 4, 4]
    assert tray.attrs["units"]["mass"] == "kg/m"


def test_bad_run_directories_name_the_file(tmp_path, run_dir):
    with pytest.raises(FileNotFoundError, match="no such run directory"):
        post.Run(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="empty/run.json: missing"):
        post.Run(tmp_path / "empty")
    cfg = run_dir / "run.json"
    good = json.loads(cfg.read_text())
    cfg.write_text("{not json")
    with pytest.raises(post.RunFormatError, match="run.json: not valid JSON"):
        post.Run(run_dir)
    del good["bodies"]
    cfg.write_text(json.dumps(good))
    with pytest.raises(post.RunFormatError, match="run.json: key 'bodies' is missing"):
        post.Run(run_dir)
    (run_dir / "observers.csv").unlink()
    (run_dir / "observers.h5").unlink()
    good["bodies"] = []
    cfg.write_text(json.dumps(good))
    with pytest.raises(FileNotFoundError, match="observers.csv: missing"):
        post.Run(run_dir).observers
    (run_dir / "diagnostics.csv").write_text("a [s],b\n1,2\n")
    with pytest.raises(post.RunFormatError, match="diagnostics.csv: no 'time \\[s\\]' column"):
        post.Run(run_dir).diagnostics


def test_find_runs(tmp_path, run_dir):
    write_run(tmp_path / "A1", [(0.0, particles([[0, 0]]))])
    (tmp_path / "not_a_run").mkdir()
    assert [r.path.name for r in post.find_runs(tmp_path)] == ["A1", "E0"]
    assert [r.name for r in post.find_runs(run_dir)] == ["E0"]
