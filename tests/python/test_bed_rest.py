"""The bed-at-rest validation (validation/bed_rest/run.py) on a coarse bed, in seconds: under
Monaghan's viscosity a prepared bed stays at rest for eight periods; under the Riemann solver
alone with Heun's step it does not (docs/guide/physics.md: the step amplifies the undamped
particle-scale modes); stepped by SSP-RK3 with the limiter's floor it does; and the report
says which is which."""
import json

from conftest import load_script
from regosph.bed import REST_SPEED_FRACTION

bed_rest = load_script("validation/bed_rest/run.py", "bed_rest_run")

SPACING = 0.04  # m: 12 x 11 particles, a bed in about three seconds
PERIODS = 8


def measured(name, tmp_path):
    settings, cohesion = bed_rest.CASES[name]
    return bed_rest.measure(name, settings, cohesion, PERIODS, str(tmp_path / "bed"),
                            spacing=SPACING)


def test_a_bed_stays_at_rest_under_monaghans_viscosity(tmp_path):
    r = measured("monaghan", tmp_path)
    assert len(r["largest_speed_every_two_periods"]) == PERIODS // 2
    assert r["at_rest"] and max(r["largest_speed_every_two_periods"]) < REST_SPEED_FRACTION
    assert r["largest_displacement_m"] < 1e-3 * SPACING


def test_the_riemann_solver_alone_leaves_the_bed_moving_under_heuns_step(tmp_path):
    r = measured("riemann", tmp_path)
    speeds = r["largest_speed_every_two_periods"]
    assert not r["at_rest"]
    assert speeds[-1] > 10.0 * REST_SPEED_FRACTION > speeds[0]  # it grows, from near rest


def test_the_riemann_solver_keeps_the_bed_at_rest_under_ssp_rk3_with_the_floor(tmp_path):
    r = measured("riemann, SSP-RK3, floor 0.03 (reconstructed)", tmp_path)
    assert r["at_rest"] and max(r["largest_speed_every_two_periods"]) < REST_SPEED_FRACTION
    assert r["largest_displacement_m"] < 1e-3 * SPACING


def test_the_report_states_each_case(tmp_path):
    out = tmp_path / "out"
    assert bed_rest.main(["--output", str(out), "--periods", "2", "--spacing", str(SPACING),
                          "--case", "monaghan"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert [r["case"] for r in results] == ["monaghan"]
    report = (out / "report.md").read_text()
    assert "| monaghan |" in report and "| yes |" in report
    assert "Reading" not in report  # it compares all the cases: not for one
