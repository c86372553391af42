"""docs/architecture.md names only what exists: every function, type, member or constant it
quotes in backticks (`foo_bar`, `Foo::bar`, `foo()`, `module.name`) occurs in the code of the
source tree (src, python, tests, examples, validation, bench, CMakeLists.txt), outside comments
and string literals (a string that is exactly an environment variable's name counts). File
names, paths, shell commands and formulas in backticks are not names and are left alone. A pure
scan of the source files: it needs no build.
"""
import io
import re
import tokenize

DOCUMENT = "docs/architecture.md"
SOURCE_DIRS = ("src", "python", "tests", "examples", "validation", "bench")
SOURCE_FILES = ("CMakeLists.txt",)
CPP_SUFFIXES = {".hpp", ".cpp", ".h", ".cc"}
# A backtick span ending in one of these is a file name, not a code name.
FILE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc", ".py", ".md", ".json", ".csv", ".h5", ".xdmf",
                 ".txt", ".toml", ".cfg", ".ipynb", ".stl")

SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A quoted name: identifiers joined by :: or ., optionally followed by an argument list.
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.)[A-Za-z_][A-Za-z0-9_]*)*)(?:\(.*\))?")
# What C++ code is not: comments, string and character literals (a character literal is one
# character or one escape, so that digit separators such as 20'000'000 stay code).
CPP_NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\[^\n]{1,4}|[^\'\\\n])\'',
                          re.S)
HASH_COMMENT = re.compile(r"#[^\n]*")


def quoted_names(markdown):
    """{name: [its components]} of every backtick span of `markdown` that quotes a code name
    (outside fenced blocks); spans with spaces, slashes or a file suffix are not names."""
    names = {}
    for span in SPAN.findall(FENCE.sub("", markdown)):
        span = span.strip()
        if span.endswith(FILE_SUFFIXES) or "/" in span or "*" in span:
            continue
        m = NAME.fullmatch(span)
        if m:
            names[span] = re.split(r"::|\.", m.group(1))
    return names


def cpp_identifiers(text):
    return set(IDENTIFIER.findall(CPP_NOT_CODE.sub(" ", text)))


# An environment variable's name, which code holds as a string ("OMP_WAIT_POLICY").
ENVIRONMENT_NAME = re.compile(r"""^[rb]?(['"])([A-Z][A-Z0-9]*_[A-Z0-9_]+)\1$""")


def python_identifiers(text):
    """NAME tokens of Python source (comments and strings excluded, but for strings that are
    exactly an environment variable's name); by a plain scan with comments removed when the
    file does not tokenize."""
    try:
        found = set()
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME:
                found.add(tok.string)
            elif tok.type == tokenize.STRING and ENVIRONMENT_NAME.match(tok.string):
                found.add(ENVIRONMENT_NAME.match(tok.string).group(2))
        return found
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set(IDENTIFIER.findall(HASH_COMMENT.sub(" ", text)))


def code_identifiers(root):
    """Every identifier that occurs in code under `root`'s source directories."""
    paths = [p for d in SOURCE_DIRS if (root / d).is_dir() for p in (root / d).rglob("*")]
    paths += [root / f for f in SOURCE_FILES if (root / f).is_file()]
    found = set()
    for path in paths:
        if not path.is_file():
            continue
        if path.suffix in CPP_SUFFIXES:
            found |= cpp_identifiers(path.read_text(encoding="utf-8", errors="replace"))
        elif path.suffix == ".py":  # its code, and its module's name (and its package's)
            found |= python_identifiers(path.read_text(encoding="utf-8", errors="replace"))
            found.add(path.stem if path.stem != "__init__" else path.parent.name)
        elif path.name == "CMakeLists.txt":
            text = path.read_text(encoding="utf-8", errors="replace")
            found |= set(IDENTIFIER.findall(HASH_COMMENT.sub(" ", text)))
    return found


def missing_names(markdown, root):
    """(checked names, the quoted names of which some component occurs nowhere in code)."""
    names = quoted_names(markdown)
    found = code_identifiers(root)
    return names, sorted(n for n, parts in names.items() if not all(p in found for p in parts))


def test_every_name_the_architecture_quotes_exists(repo_root):
    names, missing = missing_names((repo_root / DOCUMENT).read_text(encoding="utf-8"), repo_root)
    assert len(names) > 150, f"only {len(names)} quoted names found in {DOCUMENT}"
    assert not missing, (f"{DOCUMENT} quotes names that occur nowhere in the code "
                         f"(describe the code as it is): {', '.join(missing)}")


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_scan_reports_a_name_left_only_in_comments_and_strings(tmp_path):
    write(tmp_path, "src/sph/step.cpp",
          "// stage_particles packs the records\n"
          "/* stage_load_bodies\n   was here */\n"
          "const char* s = \"old_name\"; const long n = 20'000'000;\n"
          "void Integrator::stage_update(int final) { gather(final); }\n")
    write(tmp_path, "python/regosph/run_control.py",
          "# removed_helper()\n"
          "def add_arguments(parser):\n"
          "    \"\"\"not_a_name either\"\"\"\n")
    doc = ("`Integrator::stage_update(final = false)` calls `gather`; "
           "`run_control.add_arguments`; `stage_particles`; `stage_load_bodies`; `old_name`; "
           "`removed_helper()`; `not_a_name`; not names: `sph/step.cpp`, `equations.*`, "
           "`python -m regosph`, `run.json`, `0.9/err`.\n"
           "```\n`in_a_fence`\n```\n")
    names, missing = missing_names(doc, tmp_path)
    assert set(names) == {"Integrator::stage_update(final = false)", "gather",
                          "run_control.add_arguments", "stage_particles", "stage_load_bodies",
                          "old_name", "removed_helper()", "not_a_name"}
    assert missing == sorted(["stage_particles", "stage_load_bodies", "old_name",
                              "removed_helper()", "not_a_name"])


# --- the README and the documentation site (docs/, built by Sphinx in the docs_html test) ---
README_MAX_LINES = 80
ISSUE_NUMBER = re.compile(r"\bissues? \d+", re.I)


def test_readme_is_what_a_newcomer_reads_first(repo_root):
    """The two commands at the top, short, no issue numbers or benchmark history, and a link
    to every page it names that exists."""
    text = (repo_root / "README.md").read_text(encoding="utf-8")
    first_block = FENCE.search(text).group(0)
    assert text.index(first_block) < 200, "the README must open with `make run` and `make test`"
    assert "make run" in first_block and "make test" in first_block
    assert len(text.splitlines()) <= README_MAX_LINES
    assert not ISSUE_NUMBER.search(text), ISSUE_NUMBER.search(text)
    assert "M particle-steps/s" not in text and "× PySPH" not in text
    for link in re.findall(r"\]\(([^)#]+)\)", text):
        if "://" not in link:
            assert (repo_root / link).is_file(), f"README links to a missing file: {link}"


def test_user_pages_carry_no_issue_numbers(repo_root):
    user_pages = [p for p in (repo_root / "docs").rglob("*.md") if p.name != "architecture.md"]
    assert len(user_pages) >= 15
    for page in user_pages:
        m = ISSUE_NUMBER.search(page.read_text(encoding="utf-8"))
        assert not m, f"{page.relative_to(repo_root)}: {m.group(0)!r}"


def test_every_example_is_in_the_gallery(repo_root):
    gallery = (repo_root / "docs" / "gallery" / "index.md").read_text(encoding="utf-8")
    scripts = [p.name for p in (repo_root / "examples").glob("*.py") if p.name != "__init__.py"]
    missing = [s for s in scripts if f"examples/{s}" not in gallery]
    assert not missing, f"examples missing from docs/gallery/index.md: {missing}"


def test_every_python_module_is_in_the_api_reference(repo_root):
    api = (repo_root / "docs" / "api.rst").read_text(encoding="utf-8")
    package = repo_root / "python" / "regosph"
    modules = {"regosph." + ".".join(p.relative_to(package).with_suffix("").parts)
               for p in package.rglob("*.py")
               if p.name not in ("__init__.py", "__main__.py")}
    modules |= {"regosph.post", "regosph._core"}
    documented = set(re.findall(r"\.\. automodule:: (\S+)", api))
    assert not modules - documented, f"not in docs/api.rst: {sorted(modules - documented)}"
