"""The validation studies' shared harness (regosph.validation): acceptance lines, the verdict
and exit status from the required checks, and the report written and printed."""
import pandas as pd

from regosph import validation
from regosph.validation import Check


def test_acceptance_lines_and_status():
    checks = [Check("depth within 30 % of the law", True, "12.1 mm vs 11.0 mm"),
              Check("extracted by the ramped pull", True),
              Check("more at 500 rpm", False, "4 vs 5", required=False)]
    assert [c.line() for c in checks] == [
        "- PASS: depth within 30 % of the law (12.1 mm vs 11.0 mm)",
        "- PASS: extracted by the ramped pull",
        "- FAIL (not required): more at 500 rpm (4 vs 5)"]
    assert validation.passed(checks) and validation.verdict(checks) == "PASS"
    assert validation.exit_status(checks) == validation.EXIT_PASSED == 0
    checks.append(Check("no energy created", False, "E_out/E_in = 1.2"))
    assert not validation.passed(checks) and validation.verdict(checks) == "FAIL"
    assert validation.exit_status(checks) == validation.EXIT_FAILED == 1
    assert validation.acceptance_section(checks[:1], preamble="Criteria.") == [
        "## Acceptance", "", "Criteria.", "", checks[0].line()]


def test_results_and_report_are_written_and_the_report_printed(tmp_path, capsys):
    rows = [{"run": "a", "depth": 0.0123456, "ok": True}, {"run": "b", "depth": 2.0, "ok": False}]
    table = validation.save_results(rows, tmp_path)
    assert pd.read_csv(tmp_path / "results.csv").equals(table)
    assert validation.results_table(table, ["run", "depth"]).splitlines()[2:] == [
        "| a | 0.0123 |", "| b | 2 |"]
    checks = [Check("b deeper than a", table["depth"][1] > table["depth"][0])]
    status = validation.finish(["# Title", "", *validation.acceptance_section(checks)], checks,
                               tmp_path)
    text = "# Title\n\n## Acceptance\n\n- PASS: b deeper than a\n"
    assert status == 0
    assert (tmp_path / "report.md").read_text() == text
    assert capsys.readouterr().out == text


def test_numerical_share_from_diagnostics_and_csv(tmp_path):
    from types import SimpleNamespace

    d = SimpleNamespace(viscous_dissipation=1.0, riemann_dissipation=0.5,
                        plastic_dissipation=3.0, wall_dissipation=0.5,
                        artificial_stress_dissipation=0.0, kinetic_energy=9.0)
    s = validation.dissipation_share(d)
    assert (s.scheme, s.total) == (1.5, 5.0) and s.share == 0.3 and s.flagged
    assert s.text("J/m").startswith("30.0 % of 5 J/m (FLAG")
    csv = tmp_path / "diagnostics.csv"
    pd.DataFrame({"time [s]": [0.0, 1.0], "viscous_dissipation [J]": [0.0, 1.0],
                  "plastic_dissipation [J]": [0.0, 9.0]}).to_csv(csv, index=False)
    s = validation.dissipation_share(csv)
    assert s.share == 0.1 and not s.flagged and "FLAG" not in s.text()
    assert validation.dissipation_share(pd.read_csv(csv).iloc[-1]) == s
    check = validation.numerical_share_check("collapse", {
        "a": s, "b": validation.DissipationShare(3.0, 10.0)})
    assert not check.passed and not check.required and "largest b: 30.0 %" in check.detail
    assert validation.DissipationShare(0.0, 0.0).share == 0.0
    d.wall_dissipation = -2.0  # fed energy in: not dissipation
    assert validation.dissipation_share(d).total == 4.5
