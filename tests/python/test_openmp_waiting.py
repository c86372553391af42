"""The package makes idle OpenMP threads spin briefly and then sleep (OMP_WAIT_POLICY=passive
with GOMP_SPINCOUNT=regosph.SPIN_ROUNDS) unless the user chose a policy, and warns when the
OpenMP runtime was loaded before it (the setting then comes too late) and a simulation runs:
a plot-only script that imported matplotlib first is not warned.

Each case runs in a fresh interpreter: the policy is read once per process, when libgomp loads."""
import os
import subprocess
import sys

PROBE = """
import ctypes, os, sys, warnings
if sys.argv[1] == "gomp-first":
    ctypes.CDLL("libgomp.so.1")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import regosph
    if sys.argv[2:] == ["run"]:
        sim = regosph.Simulation(dim=2)
        soil = sim.add_material(regosph.ElasticSolid("s", density=2000.0, bulk_modulus=1e6,
                                                     shear_modulus=1e6))
        sim.add_body("s", regosph.lattice_fill(regosph.rectangle((0, 0), (0.05, 0.05)), 0.01),
                     material=soil, motion="dynamic", spacing=0.01, smoothing_length=0.025)
        sim.run(1e-5, progress_interval=0)
        sim.run(2e-5, progress_interval=0)
print(os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"))
print(sum("OMP_WAIT_POLICY" in str(w.message) for w in caught))
"""


def probe(mode, policy=None, spin=None, run=False):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    if spin is not None:
        env["GOMP_SPINCOUNT"] = spin
    out = subprocess.run([sys.executable, "-c", PROBE, mode] + (["run"] if run else []), env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return out[0], out[1], int(out[2])


def test_hybrid_by_default():
    import regosph
    assert probe("plain") == ("passive", str(regosph.SPIN_ROUNDS), 0)


def test_the_users_choice_is_kept():
    assert probe("plain", "active") == ("active", "None", 0)
    assert probe("gomp-first", "active") == ("active", "None", 0)
    assert probe("plain", spin="0") == ("None", "0", 0)


def test_warns_once_when_openmp_was_loaded_first_and_a_simulation_runs():
    policy, spin, warnings = probe("gomp-first", run=True)
    assert warnings == 1


def test_a_script_that_only_imports_is_not_warned():
    # matplotlib or SciPy imported before regosph in a plot-only script load libgomp first
    assert probe("gomp-first")[2] == 0
    assert probe("plain", run=True)[2] == 0
