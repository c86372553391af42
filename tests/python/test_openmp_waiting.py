"""The package makes idle OpenMP threads spin briefly and then sleep (OMP_WAIT_POLICY=passive
with GOMP_SPINCOUNT=regosph.SPIN_ROUNDS) unless the user chose a policy, and warns when the
OpenMP runtime was loaded before it (the setting then comes too late).

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
print(os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"))
print(sum("OMP_WAIT_POLICY" in str(w.message) for w in caught))
"""


def probe(mode, policy=None, spin=None):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    if spin is not None:
        env["GOMP_SPINCOUNT"] = spin
    out = subprocess.run([sys.executable, "-c", PROBE, mode], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return out[0], out[1], int(out[2])


def test_hybrid_by_default():
    import regosph
    assert probe("plain") == ("passive", str(regosph.SPIN_ROUNDS), 0)


def test_the_users_choice_is_kept():
    assert probe("plain", "active") == ("active", "None", 0)
    assert probe("gomp-first", "active") == ("active", "None", 0)
    assert probe("plain", spin="0") == ("None", "0", 0)


def test_warns_when_openmp_was_loaded_first():
    policy, spin, warnings = probe("gomp-first")
    assert warnings == 1
