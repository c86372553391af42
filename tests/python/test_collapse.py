"""Short regression of the soil collapse (SPEC.md section 7, examples/soil_collapse.py) at a
coarse resolution: 3 x the paper's spacing (~300 soil particles), 0.35 s of simulated time,
the soil's own wave speed in the artificial viscosity; ~10 s on 2 threads.

Checks: the soil mass is exactly constant (no equation changes a particle's mass); nothing
passes the no-slip floor or the fixed wall (SPEC 6, no penetration); the block collapses
(its toe runs out beyond the removed retaining wall at x = 0.2 m); the corner at the fixed wall
inside the failure line stays put (Bui 2008: only material outside the failure line moves);
the run writes readable snapshots, series.xdmf, diagnostics.csv and run.json.
"""
import json
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import pandas as pd
import pytest

import regosph as rs
from regosph.examples import soil_collapse

SPACING = 3 * soil_collapse.PAPER_SPACING  # m
END_TIME = 0.35                            # s
SNAPSHOT_INTERVAL = 0.05                   # s


@pytest.fixture(scope="module")
def collapse(tmp_path_factory):
    out = tmp_path_factory.mktemp("collapse") / "run"
    sim = soil_collapse.build(SPACING, viscosity_sound_speed=0.0)
    before = dict(ids=sim.ids, positions=sim.positions, mass=sim.mass, kind=sim.kind)
    summary = sim.run(END_TIME, output_dir=str(out), snapshot_interval=SNAPSHOT_INTERVAL,
                      progress_interval=0, metadata={"setup": "test_collapse"})
    return sim, before, summary, out


def test_setup_matches_the_example(collapse):
    sim, before, _, _ = collapse
    soil = before["kind"] == rs.KIND_DYNAMIC
    nx = int(soil_collapse.BLOCK_LENGTH / SPACING)
    ny = int(soil_collapse.BLOCK_HEIGHT / SPACING)
    assert soil.sum() == nx * ny
    assert sim.body_names == ["soil", "walls"]


def test_mass_is_exactly_constant(collapse):
    sim, before, _, _ = collapse
    soil = sim.kind == rs.KIND_DYNAMIC
    np.testing.assert_array_equal(sim.ids, before["ids"])  # same order, nobody lost
    np.testing.assert_array_equal(sim.mass[soil], before["mass"][soil])
    assert sim.mass[soil].sum() == before["mass"][soil].sum()


def test_no_penetration_of_floor_and_wall(collapse):
    sim, _, _, out = collapse
    soil = sim.kind == rs.KIND_DYNAMIC
    # Every snapshot, not only the last state.
    for f in sorted(out.glob("snapshot_*.h5")):
        with h5py.File(f, "r") as h5:
            x = h5["particles/position"][...]
            kind = h5["particles/kind"][...]
        s = kind == rs.KIND_DYNAMIC
        assert (x[s, 1] > 0.0).all(), f.name   # floor at y = 0
        assert (x[s, 0] > 0.0).all(), f.name   # fixed wall at x = 0
    x = sim.positions
    assert (x[soil, 1] > 0.0).all() and (x[soil, 0] > 0.0).all()
    # The walls did not move.
    walls = ~soil
    np.testing.assert_array_equal(sim.velocities[walls], 0.0)


def test_toe_runs_out_and_the_block_slumps(collapse):
    sim, before, _, _ = collapse
    soil = sim.kind == rs.KIND_DYNAMIC
    x0, x1 = before["positions"][soil], sim.positions[soil]
    assert x0[:, 0].max() < soil_collapse.BLOCK_LENGTH
    assert x1[:, 0].max() > 0.2                      # beyond the removed retaining wall
    assert x1[:, 1].max() < x0[:, 1].max() + 1e-3    # nothing rises above the initial top
    assert x1[:, 0].mean() > x0[:, 0].mean() + 0.01  # the mass moved outward on average


def test_material_far_from_the_slope_stays_put(collapse):
    sim, before, _, _ = collapse
    soil = sim.kind == rs.KIND_DYNAMIC
    x0, x1 = before["positions"][soil], sim.positions[soil]
    corner = (x0[:, 0] < 0.03) & (x0[:, 1] < 0.03)
    assert corner.sum() >= 9
    displacement = np.linalg.norm(x1[corner] - x0[corner], axis=1)
    assert displacement.max() < 0.1 * SPACING
    # ...while the top right corner of the block moved by more than 10 spacings.
    far = np.argmax(x0[:, 0] + x0[:, 1])
    assert np.linalg.norm(x1[far] - x0[far]) > 10 * SPACING


def test_output_files_are_written_and_readable(collapse):
    sim, before, summary, out = collapse
    n_snap = int(round(END_TIME / SNAPSHOT_INTERVAL)) + 1  # t = 0, 0.05, ..., 0.35
    files = sorted(out.glob("snapshot_*.h5"))
    assert len(files) == n_snap == summary.snapshots
    times = []
    for i, f in enumerate(files):
        with h5py.File(f, "r") as h5:
            times.append(float(h5.attrs["time"]))
            assert int(h5.attrs["dim"]) == 2
            assert h5.attrs["setup"] in ("test_collapse", b"test_collapse")
            p = h5["particles"]
            assert p["position"].shape == (sim.size, 3)
            assert p["stress"].shape == (sim.size, 6)
            assert p["velocity"].shape == (sim.size, 3)
            for name in ("density", "mass", "smoothing_length", "plastic_multiplier", "yielding",
                         "material", "body", "kind", "id"):
                assert p[name].shape == (sim.size,), name
            if i == 0:
                np.testing.assert_array_equal(p["position"][:, :2], before["positions"])
            if i == len(files) - 1:
                np.testing.assert_array_equal(p["position"][:, :2], sim.positions)
                np.testing.assert_array_equal(p["id"][...], sim.ids)
    np.testing.assert_allclose(times, SNAPSHOT_INTERVAL * np.arange(n_snap), rtol=0, atol=1e-12)

    # series.xdmf: one temporal grid per snapshot, referencing the files.
    root = ET.parse(out / "series.xdmf").getroot()
    grids = root.findall("./Domain/Grid/Grid")
    assert len(grids) == n_snap
    xdmf_times = [float(g.find("Time").get("Value")) for g in grids]
    np.testing.assert_allclose(xdmf_times, times, atol=1e-12)
    referenced = {item.text.split(":")[0] for item in root.iter("DataItem") if item.text and ".h5:" in item.text}
    assert referenced == {f.name for f in files}

    # diagnostics.csv: time grows to the end time, the mass column is constant.
    df = pd.read_csv(out / "diagnostics.csv")
    # plane strain: per metre of depth
    assert {"time [s]", "dt [s]", "mass [kg/m]", "kinetic_energy [J/m]", "momentum_x [N s/m]"} <= set(df.columns)
    assert len(df) >= 10
    assert (np.diff(df["time [s]"]) > 0).all()
    assert df["time [s]"].iloc[0] == 0.0
    assert df["time [s]"].iloc[-1] == pytest.approx(END_TIME, abs=1e-12)
    soil = sim.kind == rs.KIND_DYNAMIC
    np.testing.assert_allclose(df["mass [kg/m]"], sim.mass[soil].sum(), rtol=1e-15)
    assert df["kinetic_energy [J/m]"].max() > 0.0
    assert (df["dt [s]"].iloc[1:] > 0).all()

    # run.json: the setup as JSON.
    run = json.loads((out / "run.json").read_text())
    assert run["dim"] == 2
    assert run["run"]["end_time_s"] == END_TIME
    assert [b["name"] for b in run["bodies"]] == ["soil", "walls"]
    assert run["metadata"]["setup"] == "test_collapse"
    assert run["physics"]["gravity_m_s2"][1] == pytest.approx(-soil_collapse.GRAVITY)
