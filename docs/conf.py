"""Sphinx configuration of regosph's documentation (Debian's python3-sphinx and
python3-myst-parser; nothing from PyPI).

    /usr/bin/python3 -m sphinx -W -b html docs build/docs/html

The API reference imports the package and its compiled core from the build tree
(REGOSPH_PYTHON_DIR, default ../build/python): run `make build` first.
"""
import os
import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("REGOSPH_PYTHON_DIR", str(DOCS.parent / "build" / "python")))
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import regosph  # noqa: E402  (after the path; its version names the docs)

project = "regosph"
author = "the regosph authors"
release = regosph.__version__
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.mathjax"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"description": "SPH for regolith and the tools that meet it",
                      "fixed_sidebar": True}
html_title = f"regosph {release}"
# Snippets in the pages are not run: the build must stay quick and never start a simulation.
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}


def literal_docstring(app, what, name, obj, options, lines):
    """regosph's docstrings are plain text (units, formulas with * and _, indented lists), not
    reStructuredText: show each as written, in a literal block, instead of letting docutils
    misread it."""
    if not any(line.strip() for line in lines):
        return
    body = [("    " + line) if line.strip() else "" for line in lines]
    lines[:] = ["::", ""] + body + [""]


def setup(app):
    app.connect("autodoc-process-docstring", literal_docstring)
