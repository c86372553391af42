"""The static elastic cantilever of issue 16 (examples/cantilever.py; method and measures in its
docstring): tip deflection relative to the clamp-face tangent, delta_rel, against Timoshenko's
beam measured the same way, at 4, 5 and 6 particles through the thickness, with and without
the kernel gradient correction. The longer study (4, 6, 8 rows) is validation/cantilever/.

Asserted: every run reaches its static state (residual oscillation below 2 % of the
deflection over one first-mode period, centreline within 3 % of the beam shape); with the
correction the error of delta_rel falls from 4 to 5 to 6 rows, and at 6 rows it is smaller
than without. Without the correction the figures are printed, not bounded: they do not
converge (docs/guide/physics.md).
"""
import pytest

from regosph.examples import cantilever

ROWS = (4, 5, 6)


@pytest.fixture(scope="module")
def results():
    out = {}
    for rows in ROWS:
        for on in (False, True):
            out[rows, on] = cantilever.run(rows, kernel_correction=on)
            print(cantilever.describe(out[rows, on]))
    return out


def test_every_run_reaches_its_static_state(results):
    for r in results.values():
        assert r["residual_amplitude"] < 2e-2, cantilever.describe(r)
        assert r["fit_rms"] < 3e-2, cantilever.describe(r)


def test_the_correction_converges_towards_beam_theory(results):
    error = {key: abs(r["delta_rel_over_timoshenko"] - 1.0) for key, r in results.items()}
    corrected = [error[rows, True] for rows in ROWS]
    assert corrected[0] > corrected[1] > corrected[2], corrected
    assert error[6, True] < error[6, False], error


def test_bad_resolution_is_refused():
    for bad in (1, 2.5, True, "4"):
        with pytest.raises(ValueError, match=r"rows = .* must be a whole number >= 2"):
            cantilever.build(bad)
