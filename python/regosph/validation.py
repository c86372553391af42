"""What every validation study (validation/*/) shares: its results table, its acceptance checks,
the report and the exit status.

    rows = [analyse(run) for run in runs]                  # one dict per run
    table = validation.save_results(rows, out)             # results.csv; a DataFrame
    checks = [validation.Check("h0.2_steel: depth within 30 % of the law", ok, "12 vs 11 mm")]
    text = ["# Title", "", validation.results_table(table, ["run", "depth"]), "",
            *validation.acceptance_section(checks)]
    return validation.finish(text, checks, out)            # report.md, printed; exit status

A study's exit status: EXIT_PASSED (0) when every required check passed, EXIT_FAILED (1)
otherwise; statuses from 2 on are the study's own (missing runs, bad input, ...).
"""
from dataclasses import dataclass
from pathlib import Path

EXIT_PASSED, EXIT_FAILED = 0, 1
REPORT_FILE, RESULTS_FILE = "report.md", "results.csv"


@dataclass(frozen=True)
class Check:
    """One acceptance criterion: what is checked, whether it held, the numbers behind it, and
    whether the study fails without it (required) or only reports it."""
    name: str
    passed: bool
    detail: str = ""
    required: bool = True

    @property
    def verdict(self):
        return "PASS" if self.passed else "FAIL"

    def line(self):
        """'- PASS: name (detail)', the acceptance line of the report."""
        return (f"- {self.verdict}{'' if self.required else ' (not required)'}: {self.name}"
                + (f" ({self.detail})" if self.detail else ""))


def passed(checks):
    """True when every required check held."""
    return all(c.passed for c in checks if c.required)


def verdict(checks):
    """'PASS' or 'FAIL' for a whole study."""
    return "PASS" if passed(checks) else "FAIL"


def exit_status(checks):
    return EXIT_PASSED if passed(checks) else EXIT_FAILED


def acceptance_section(checks, heading="## Acceptance", preamble=None):
    """The report's acceptance lines under `heading`, after an optional paragraph that states
    the criteria."""
    lines = [heading, ""]
    if preamble:
        lines += [preamble, ""]
    return lines + [c.line() for c in checks]


def save_results(rows, out, name=RESULTS_FILE):
    """The rows (dicts, one per run, or a DataFrame) as out/results.csv; returns the DataFrame."""
    import pandas as pd

    table = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    table.to_csv(Path(out) / name, index=False)
    return table


def results_table(table, columns=None, fmt=".3g"):
    """The table's `columns` (default: all) as a Markdown table, numbers in format `fmt`."""
    from .post import to_markdown

    return to_markdown(table if columns is None else table[list(columns)], fmt)


def write_report(text, out, name=REPORT_FILE):
    """Lines of text as out/report.md; returns the text."""
    text = "\n".join(text) + "\n"
    (Path(out) / name).write_text(text)
    return text


def finish(text, checks, out, name=REPORT_FILE):
    """Write the report (lines of text) to out/report.md, print it, and return the study's exit
    status from its checks."""
    print(write_report(text, out, name), end="")
    return exit_status(checks)


# The strength and stiffness parameters a report names for each law (run.json keys, shown as
# "name value unit").
_LAW_PARAMETERS = (("friction_angle_deg", "phi", "deg"), ("dilatancy_angle_deg", "psi", "deg"),
                   ("cohesion_Pa", "c", "Pa"), ("tensile_strength_Pa", "sigma_t", "Pa"),
                   ("static_friction", "mu_s", ""), ("limit_friction", "mu_2", ""),
                   ("grain_diameter_m", "d", "m"), ("porosity", "porosity", ""),
                   ("bulk_modulus_Pa", "K", "Pa"), ("shear_modulus_Pa", "G", "Pa"))


def material_line(material):
    """'name: Model (phi 42 deg, c 0 Pa, ..., Houlsby elasticity)' of one run.json material."""
    shown = [f"{label} {material[key]:.4g}{' ' + unit if unit else ''}"
             for key, label, unit in _LAW_PARAMETERS if key in material]
    if "elasticity_exponent" in material:
        shown.append(f"Houlsby elasticity (n {material['elasticity_exponent']:.3g}, "
                     f"p_r {material['elasticity_reference_pressure_Pa']:.4g} Pa)")
    return f"{material['name']}: {material['model']}" + (f" ({', '.join(shown)})" if shown else "")


def dissipation_line(physics):
    """The numerical dissipation scheme of a run.json's physics section."""
    if physics.get("dissipation", "monaghan") == "monaghan":
        return (f"Monaghan artificial viscosity (alpha {physics['av_alpha']:.3g}, "
                f"beta {physics['av_beta']:.3g}"
                + (", Balsara switch" if physics.get("av_balsara") else "") + ")")
    return f"{physics['dissipation']} (limiter {physics.get('riemann_limiter', float('nan')):.3g})"


def physics_section(run_dirs, heading="## Physics"):
    """The report's lines naming the laws its runs used, read from their run.json: every
    deformable material's constitutive law with its parameters, and the dissipation scheme.
    Runs that differ show each distinct line once."""
    import json
    materials, schemes = [], []
    for run_dir in run_dirs:
        with open(Path(run_dir) / "run.json") as f:
            record = json.load(f)
        for m in record["materials"]:
            line = material_line(m)
            if m["model"] != "Rigid" and line not in materials:
                materials.append(line)
        scheme = dissipation_line(record["physics"])
        if scheme not in schemes:
            schemes.append(scheme)
    if not materials and not schemes:
        raise ValueError("physics_section: no runs given")
    return [heading, ""] + [f"- material {m}" for m in materials] + \
        [f"- numerical dissipation: {s}" for s in schemes]
