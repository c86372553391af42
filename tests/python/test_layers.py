"""The layers of src/ (docs/architecture.md): includes point down only.

    core  <  materials, geometry, parallel  <  io  <  sph

A file may include its own layer and any lower one. materials, geometry and parallel sit side
by side and never include each other. Every project include in src/ names its layer
(`"core/particles.hpp"`), so that the rule can be read off the line. A pure scan of the source
files: it needs no build.
"""
import re

import pytest

# Height of each layer directory of src/; a file may include a lower layer or its own.
LAYERS = {"core": 0, "materials": 1, "geometry": 1, "parallel": 1, "io": 2, "sph": 3}
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cc"}
# `#include "x"` or `#include <x>` at the start of a line (not commented out with //).
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def include_violations(src):
    """(file, line number, include, reason) for every include in `src` that breaks the rule,
    and the number of project includes checked."""
    violations, checked = [], 0
    for path in sorted(src.rglob("*")):
        if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
            continue
        rel = path.relative_to(src)
        layer = rel.parts[0] if len(rel.parts) > 1 else None
        if layer not in LAYERS:
            violations.append((rel, 0, "", "lies outside the layer directories "
                               f"{sorted(LAYERS)}: add its directory to docs/architecture.md "
                               "and to LAYERS here"))
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, target = m.groups()
            target_layer = target.split("/")[0] if "/" in target else None
            if target_layer not in LAYERS:
                if quote == '"':  # a project header that does not say its layer
                    violations.append((rel, number, target, "a project include must name its "
                                       "layer directory, e.g. \"core/particles.hpp\""))
                continue  # a system or library header
            checked += 1
            if target_layer == layer:
                continue
            if LAYERS[target_layer] > LAYERS[layer]:
                violations.append((rel, number, target,
                                   f"layer {layer} includes the higher layer {target_layer}"))
            elif LAYERS[target_layer] == LAYERS[layer]:
                violations.append((rel, number, target,
                                   f"{layer} includes its sibling layer {target_layer}"))
    return violations, checked


def report(violations):
    return "\n".join(f"src/{rel}:{n}: #include {target!r}: {why}"
                     for rel, n, target, why in violations)


def test_includes_point_down_the_layers(repo_root):
    src = repo_root / "src"
    for layer in LAYERS:
        assert any((src / layer).glob("*.hpp")), f"src/{layer} has no headers (moved?)"
    violations, checked = include_violations(src)
    assert checked > 50, f"only {checked} project includes found under {src}"
    assert not violations, "includes that cross the layers upwards or sideways:\n" + \
        report(violations)


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("rel, include, reason", [
    ("materials/model.hpp", "sph/equations.hpp", "higher layer sph"),
    ("core/particles.hpp", "io/snapshot.hpp", "higher layer io"),
    ("io/snapshot.cpp", "sph/recorder.hpp", "higher layer sph"),
    ("geometry/kinematics.hpp", "materials/material.hpp", "sibling layer materials"),
    ("parallel/domain.cpp", "geometry/shapes.hpp", "sibling layer geometry"),
    ("sph/equations.cpp", "equations.hpp", "must name its layer"),
    ("physics/new.hpp", "core/particles.hpp", "outside the layer directories"),
])
def test_the_scan_names_file_and_include_of_a_violation(tmp_path, rel, include, reason):
    write(tmp_path, "core/tensor.hpp", '#include "core/particles.hpp"\n')
    write(tmp_path, "sph/ok.cpp", '#include <vector>\n#include "io/json.hpp"\n'
          '// #include "python/bindings.hpp" (commented out: ignored)\n')
    write(tmp_path, rel, f'#pragma once\n\n#include <array>\n#include "{include}"\n')
    violations, _ = include_violations(tmp_path)
    assert len(violations) == 1, report(violations)
    text = report(violations)
    assert f"src/{rel}" in text and reason in text
    if "outside" not in reason:
        assert f":4: #include '{include}'" in text


def test_downward_and_same_layer_includes_pass(tmp_path):
    write(tmp_path, "core/fields.hpp", '#include "core/particles.hpp"\n')
    write(tmp_path, "materials/m.hpp", '#include "core/tensor.hpp"\n#include "materials/x.hpp"\n')
    write(tmp_path, "io/json.hpp", '#include "materials/material.hpp"\n'
          '#include "parallel/mpi_env.hpp"\n#include "geometry/shapes.hpp"\n'
          '#include <nlohmann/json.hpp>\n#include <regosph/version.hpp>\n')
    write(tmp_path, "sph/s.cpp", '#  include "io/run_directory.hpp"\n#include "core/units.hpp"\n')
    violations, checked = include_violations(tmp_path)
    assert violations == [] and checked == 8
