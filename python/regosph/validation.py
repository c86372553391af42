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


# The numerical share of the dissipation (issue 44): the work of the pair dissipation the
# scheme adds (Monaghan's artificial viscosity or the Riemann solver's) against all the
# dissipation of the energy budget: plasticity, the walls' friction and extrapolated stress,
# the artificial stress and the scheme's own. A term that came out negative (a moving wall's
# extrapolated stress can feed energy in) dissipated nothing and stays out of the total. A
# result whose share exceeds NUMERICAL_SHARE_FLAG is flagged in its report: the scheme, not
# the soil, shaped it.
SCHEME_TERMS = ("viscous_dissipation", "riemann_dissipation")
DISSIPATION_TERMS = SCHEME_TERMS + ("plastic_dissipation", "wall_dissipation",
                                    "artificial_stress_dissipation")
NUMERICAL_SHARE_FLAG = 0.25


@dataclass(frozen=True)
class DissipationShare:
    """The energy budget's cumulative dissipation at the end of a run [J, J/m in 2D]: the
    scheme's (viscous + Riemann) and the total (every term of DISSIPATION_TERMS)."""
    scheme: float
    total: float

    @classmethod
    def from_row(cls, row, total="dissipation_J_per_m"):
        """From a results row that holds numerical_share and the total under `total`."""
        return cls(row["numerical_share"] * row[total], row[total])

    @property
    def share(self):
        """The scheme's fraction of the total dissipation (0 when nothing dissipated)."""
        return self.scheme / self.total if self.total > 0.0 else 0.0

    @property
    def flagged(self):
        return self.share > NUMERICAL_SHARE_FLAG

    def text(self, unit="J"):
        """'12.0 % of 3.4 J' (unit: 'J/m' in 2D), followed by a FLAG when the share exceeds
        NUMERICAL_SHARE_FLAG."""
        flag = (f" (FLAG: above {100 * NUMERICAL_SHARE_FLAG:.0f} %: the scheme, not the soil, "
                "shapes this result)" if self.flagged else "")
        return f"{100 * self.share:.1f} % of {self.total:.3g} {unit}{flag}"


def dissipation_share(diagnostics):
    """The DissipationShare of a run's end: `diagnostics` is sim.diagnostics() (or anything
    with the budget's attributes), a diagnostics.csv path, its DataFrame (the last row) or
    one of its rows (a Series)."""
    if isinstance(diagnostics, (str, Path)):
        import pandas as pd

        diagnostics = pd.read_csv(diagnostics)
    if hasattr(diagnostics, "columns"):
        diagnostics = diagnostics.iloc[-1]
    if hasattr(diagnostics, "index"):  # a row: columns named with or without their units
        row = diagnostics.rename(index=lambda c: c.split(" [")[0])
        value = lambda name: float(row[name]) if name in row.index else 0.0  # noqa: E731
    else:
        value = lambda name: float(getattr(diagnostics, name, 0.0))  # noqa: E731
    scheme = sum(value(n) for n in SCHEME_TERMS)
    return DissipationShare(scheme, scheme + sum(max(value(n), 0.0) for n in DISSIPATION_TERMS
                                                 if n not in SCHEME_TERMS))


def numerical_share_check(name, shares):
    """A non-required Check that no run's numerical share exceeds NUMERICAL_SHARE_FLAG:
    `shares` maps run names to DissipationShare; the detail names the largest."""
    worst = max(shares, key=lambda k: shares[k].share)
    which = "" if len(shares) == 1 else f"largest {worst}: "
    return Check(f"{name}: the scheme's share of the dissipation <= "
                 f"{100 * NUMERICAL_SHARE_FLAG:.0f} %",
                 not any(s.flagged for s in shares.values()),
                 f"{which}{100 * shares[worst].share:.1f} %", required=False)


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


def dissipation_line(physics, integrator=None):
    """The numerical dissipation scheme of a run.json's physics section, and with its
    integrator section the time scheme when it is SSP-RK3."""
    rk3 = integrator is not None and integrator.get("scheme", "").startswith("SSP-RK3")
    step = "; SSP-RK3 time steps" if rk3 else ""
    if physics.get("dissipation", "monaghan") == "monaghan":
        return (f"Monaghan artificial viscosity (alpha {physics['av_alpha']:.3g}, "
                f"beta {physics['av_beta']:.3g}"
                + (", Balsara switch" if physics.get("av_balsara") else "")
                + (", Morris-Monaghan switch" if physics.get("av_switch") else "") + ")" + step)
    extra = "".join(
        text for text, on in (
            (f", damps {physics.get('riemann_pairs')} pairs", "riemann_pairs" in physics),
            (f", stress jump in the {physics.get('riemann_stress_jump', '').replace('_', ' ')}",
             "riemann_stress_jump" in physics),
            (f", density diffusion delta {physics.get('density_diffusion', 0.0):.3g}",
             "density_diffusion" in physics),
            (", linear reconstruction", "riemann_reconstruction" in physics),
            (f", hourglass control {physics.get('hourglass_control', 0.0):.3g}",
             "hourglass_control" in physics),
            (f", limiter floor {physics.get('riemann_limiter_floor', 0.0):.3g}",
             "riemann_limiter_floor" in physics)) if on)
    return (f"{physics['dissipation']} (limiter "
            f"{physics.get('riemann_limiter', float('nan')):.3g}{extra}){step}")


def contact_line(record):
    """How soil meets each wall, tool and body (its boundary bodies' contact), from a
    run.json."""
    parts = []
    for body in record["bodies"]:
        if body["motion"] == "dynamic":
            continue
        contact = body.get("contact", "bonded")  # run.json names only the laws not bonded
        if contact == "bonded":
            parts.append(f"{body['name']} bonded (takes the soil's stress, tension included)")
        elif contact == "tension_cut":
            parts.append(f"{body['name']} tension_cut (keeps shear and compression, no tension "
                         f"beyond adhesion {body.get('adhesion_Pa', 0.0):.4g} Pa)")
        else:
            parts.append(f"{body['name']} unilateral (the soil separates; adhesion "
                         f"{body.get('adhesion_Pa', 0.0):.4g} Pa)")
    return "; ".join(parts) if parts else "no walls"


def physics_section(run_dirs, heading="## Physics"):
    """The report's lines naming the laws its runs used, read from their run.json: every
    deformable material's constitutive law with its parameters, the soil-wall contact and the
    dissipation scheme. Runs that differ show each distinct line once."""
    import json
    materials, contacts, schemes = [], [], []
    for run_dir in run_dirs:
        with open(Path(run_dir) / "run.json") as f:
            record = json.load(f)
        for m in record["materials"]:
            line = material_line(m)
            if m["model"] != "Rigid" and line not in materials:
                materials.append(line)
        for line, seen in ((contact_line(record), contacts),
                           (dissipation_line(record["physics"], record.get("integrator")),
                            schemes)):
            if line not in seen:
                seen.append(line)
    if not materials and not schemes:
        raise ValueError("physics_section: no runs given")
    return [heading, ""] + [f"- material {m}" for m in materials] + \
        [f"- wall contact: {c}" for c in contacts] + \
        [f"- numerical dissipation: {s}" for s in schemes]
