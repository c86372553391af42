"""make test and its build log (issue 49, finding 7): Eigen's headers compile without warnings
in our flags (src/core/eigen.hpp), the module links without GCC's LTO message, and the sanitize
target shows the short collapse's own verdict only when it fails, so that `result: FAIL` of a
0.05 s collapse never precedes `sanitize: ok`."""
import re
import subprocess

import pytest

from conftest import REPO

EIGEN_USER = """
#include "core/eigen.hpp"
double product_sum(const Eigen::MatrixXd& a, const Eigen::VectorXd& x) { return (a * x).sum(); }
Eigen::Vector3d solve(const Eigen::Matrix3d& a, const Eigen::Vector3d& b) { return a.inverse() * b; }
"""


def test_eigen_compiles_without_warnings_in_the_release_flags(tmp_path):
    # GCC 12 with -march=native on an AVX-512 machine warned (-Wmaybe-uninitialized) inside
    # its intrinsics wherever Eigen's packet code was inlined, -isystem notwithstanding.
    source = tmp_path / "eigen_user.cpp"
    source.write_text(EIGEN_USER)
    out = subprocess.run(["g++", f"-I{REPO / 'src'}", "-isystem", "/usr/include/eigen3", "-O3",
                          "-march=native", "-Wall", "-Wextra", "-Wpedantic", "-std=c++20", "-c",
                          str(source), "-o", str(tmp_path / "eigen_user.o")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "warning" not in out.stderr, out.stderr


def test_no_file_includes_eigen_but_through_its_header():
    direct = [p for p in (REPO / "src").rglob("*.[ch]pp") if p.name != "eigen.hpp"
              and re.search(r"#include <Eigen/", p.read_text())]
    assert direct == []


def sanitize_recipe():
    """The Makefile's sanitize, sanitize-build and sanitize-run rules (up to the next comment)."""
    text = (REPO / "Makefile").read_text()
    return text[text.index("\nsanitize:"):].split("\n\n#")[0]


def test_the_collapse_output_is_shown_only_when_the_sanitize_run_fails():
    recipe = sanitize_recipe()
    failing = (recipe.index("if [ $$status -gt 1 ]"), recipe.index("sanitize: FAILED: collapse"))
    reads = [m.start() for m in re.finditer(r"\$\$tmp/stdout", recipe)
             if not recipe[:m.start()].rstrip().endswith(">")]  # not the redirection
    assert reads and all(failing[0] < r < failing[1] for r in reads)


def test_the_sanitized_tree_builds_only_what_it_runs_with_line_tables():
    recipe = sanitize_recipe()
    assert "--target unit_tests _core" in recipe
    assert '"-O0 -g1"' in recipe


def test_the_module_links_without_the_lto_message():
    cmake = (REPO / "CMakeLists.txt").read_text()
    assert "target_link_options(_core PRIVATE $<$<CONFIG:Release,MinSizeRel>:-flto=auto>)" in cmake
