"""The package imports without surprises: importing regosph changes only the OpenMP waiting
policy in the environment (it must precede the OpenMP runtime, see regosph/__init__.py), leaves
sys.stdout, sys.excepthook and the compiled classes alone, and its modules import each other
without a cycle."""
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "python" / "regosph"

PROBE = """
import json, os, sys
before = dict(os.environ)
stdout, hook = sys.stdout, sys.excepthook
import regosph
print(json.dumps(dict(
    added=sorted(set(os.environ) - set(before)),
    changed=sorted(k for k in before if os.environ.get(k) != before[k]),
    stdout=sys.stdout is stdout, excepthook=sys.excepthook is hook,
    python_methods=sorted(k for k, v in vars(regosph.Simulation).items()
                          if getattr(v, "__module__", None) == "regosph"))))
"""


def test_import_sets_only_the_openmp_waiting_policy():
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
           and not k.startswith(("OMPI_", "PMI_", "PMIX_"))}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         check=True).stdout
    seen = json.loads(out)
    assert seen == dict(added=["GOMP_SPINCOUNT", "OMP_WAIT_POLICY"], changed=[], stdout=True,
                        excepthook=True, python_methods=[])


def module_imports(path):
    """Package modules that `path` imports when it is imported (module level, not inside
    functions), as dotted names relative to the package ('' is the package itself)."""
    here = path.relative_to(PACKAGE).with_suffix("")
    parts = list(here.parts)
    package = parts[:-1]
    found = set()
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
        target = base + (node.module.split(".") if node.module else [])
        for alias in node.names:
            sub = target + [alias.name]
            if (PACKAGE.joinpath(*sub).with_suffix(".py").is_file()
                    or PACKAGE.joinpath(*sub, "__init__.py").is_file()):
                found.add(".".join(sub))
            else:
                found.add(".".join(target))
    return found


def graph():
    edges = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        name = name.removesuffix("__init__").rstrip(".")
        edges[name] = module_imports(path)
    return edges


def find_cycle(edges):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_package_has_no_import_cycle():
    edges = graph()
    assert "ranks" in edges[""] and "bed" in edges[""]  # the graph sees the package's imports
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(n or "regosph" for n in cycle)


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"": {"bed"}, "bed": {""}}) == ["", "bed", ""]
    assert find_cycle({"": {"bed"}, "bed": {"post.run"}, "post.run": set()}) is None
