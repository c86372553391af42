"""The brush-sampler convergence study's analysis (validation/brush_sampler/convergence.py):
margins in mass, their counting uncertainty and the converged verdict."""
import pytest

from conftest import load_script

conv = load_script("validation/brush_sampler/convergence.py", "sampler_convergence")
M = 0.01  # kg/m per particle


def row(mass_1s, mass_05s=0.0, first=0.5):
    return {"mass_1s_kg_per_m": mass_1s, "mass_0.5s_kg_per_m": mass_05s, "first_entry_s": first,
            "particle_mass_kg_per_m": M}


def test_counting_uncertainty_is_sqrt_n_particles_and_at_least_one():
    assert conv.uncertainty(row(100 * M), "mass_1s_kg_per_m") == pytest.approx(10 * M)
    assert conv.uncertainty(row(0.0), "mass_1s_kg_per_m") == pytest.approx(M)


def test_a_margin_that_settles_is_converged_and_one_that_moves_is_not():
    spacings = [2.5e-3, 1.75e-3, 1.25e-3]
    # P6 - P5 at 1 s: +30, +12, +10 particles' mass (settled within the counting error)
    table = {}
    for s, (p6, p5) in zip(spacings, [(130, 100), (112, 100), (110, 100)]):
        table[("P6", s)], table[("P5", s)] = row(p6 * M), row(p5 * M)
    found = {f["finding"]: f for f in conv.findings(table, spacings)}
    cohesion = next(f for k, f in found.items() if "cohesion raises" in k)
    assert [round(v[1] / M) for v in cohesion["values"]] == [30, 12, 10]
    assert cohesion["converged"] is True
    # ... and one that flips sign between the two finest spacings is not.
    table[("P6", 1.25e-3)] = row(60 * M)
    cohesion = next(f for f in conv.findings(table, spacings) if "cohesion raises" in f["finding"])
    assert cohesion["values"][-1][1] < 0 and cohesion["converged"] is False
    # A finding whose runs exist at one spacing only is undecided.
    phobos = next(f for f in conv.findings(table, spacings) if "ten times" in f["finding"])
    assert phobos["values"] == [] and phobos["converged"] is None


def test_unknown_run_names_are_refused(capsys):
    with pytest.raises(SystemExit):
        conv.main(["--runs-dir", "/nonexistent", "--runs", "P0", "X9"])
    assert "X9" in capsys.readouterr().err
