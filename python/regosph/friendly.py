"""Answers a user can act on when a call into the compiled core goes wrong.

pybind11 answers a misspelt keyword (``smoothing_lenght=``) with "incompatible function
arguments" followed by the repr of every argument, whole position arrays included. The wrappers
here name the unknown keyword, suggest the closest valid one and summarise the arguments by type
and shape. The material factories also warn (PlausibilityWarning) about values that are almost
surely a unit slip; a script that means them silences the warning explicitly::

    warnings.filterwarnings("ignore", category=rs.PlausibilityWarning)
"""
import difflib
import functools
import re
import warnings

_INCOMPATIBLE = re.compile(r"incompatible (function|constructor) arguments")
_OVERLOAD = re.compile(r"^\s*\d+\.\s*(.*)$")


class PlausibilityWarning(UserWarning):
    """A value that is valid but almost surely given in the wrong unit (degrees meant as
    radians, MPa as Pa, g/cm^3 as kg/m^3)."""


def _split_top_level(text):
    """`text` split at the commas outside brackets (types such as Tuple[float, float])."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _overload_parameters(message):
    """[(name, has_default), ...] of each overload pybind11 lists in its error message."""
    overloads = []
    for line in message.splitlines():
        m = _OVERLOAD.match(line)
        if not m or "(" not in m.group(1):
            continue
        sig = m.group(1)
        start, depth = sig.index("("), 0
        for end in range(start, len(sig)):
            depth += {"(": 1, ")": -1}.get(sig[end], 0)
            if depth == 0:
                break
        params = []
        for part in _split_top_level(sig[start + 1:end]):
            name = part.split(":")[0].split("=")[0].strip()
            if name and not name.startswith("*") and name != "self":
                params.append((name, "=" in part))
        overloads.append(params)
    return overloads


def _describe(value):
    """A short account of an argument: the type and shape of an array, never its values."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"{type(value).__name__} of shape {tuple(shape)}"
    if isinstance(value, (bool, int, float, str, type(None))):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)} items"
    return type(value).__name__


def explain(message, name, args, kwargs):
    """The TypeError message for a pybind11 "incompatible arguments" error of `name`."""
    overloads = _overload_parameters(message)
    valid = sorted({p for params in overloads for p, _ in params})
    unknown = [k for k in kwargs if valid and k not in valid]
    if unknown:
        words = []
        for k in unknown:
            close = difflib.get_close_matches(k, valid, n=1, cutoff=0.6)
            words.append(f"'{k}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        return (f"{name}: unknown keyword argument{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(words)}; the keywords are {', '.join(valid)}")
    if len(overloads) == 1:
        missing = [p for p, has_default in overloads[0][len(args):]
                   if not has_default and p not in kwargs]
        if missing:
            return f"{name}: missing argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    head = message.split("Invoked with")[0].rstrip()
    got = [_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()]
    return f"{head}\n\nInvoked with: {', '.join(got)}"


def forgiving(func, name):
    """`func` (a pybind11 function or method) answering argument errors with explain()."""
    @functools.wraps(func)
    def call(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except TypeError as e:
            if not _INCOMPATIBLE.search(str(e)):
                raise
            raise TypeError(explain(str(e), name, args, kwargs)) from None
    return call


def forgiving_class(cls):
    """Wraps the constructor and methods of a pybind11 class in place."""
    for attr, value in list(vars(cls).items()):
        if type(value).__name__ != "instancemethod" or (attr.startswith("__") and attr != "__init__"):
            continue
        setattr(cls, attr, forgiving(value, f"{cls.__name__}.{attr}" if attr != "__init__"
                                     else cls.__name__))
    return cls


# Bounds below which a value is almost surely in the wrong unit.
_ANGLES_DEG = ("friction_angle", "dilatancy_angle")   # [deg]; 0 is a valid choice
_MODULI_PA = ("bulk_modulus", "shear_modulus", "youngs_modulus")
MIN_PLAUSIBLE_ANGLE_DEG = 1.0
MIN_PLAUSIBLE_MODULUS_PA = 1e3
MIN_PLAUSIBLE_SOIL_DENSITY = 100.0  # [kg/m^3]; regolith and sands: 1000-2000 bulk, 2650 grains


def check_plausible(material, values, soil):
    """Warns (PlausibilityWarning) about each value of a material that looks like a unit slip:
    an angle in (0, 1) deg, a modulus in (0, 1 kPa), and for a soil a density in (0, 100 kg/m^3).
    """
    slips = []
    for key in _ANGLES_DEG:
        v = values.get(key)
        if v is not None and 0 < v < MIN_PLAUSIBLE_ANGLE_DEG:
            slips.append(f"{key} = {v:g} deg (angles are in degrees; {v:g} rad would be "
                         f"{v * 57.29577951308232:.3g} deg)")
    for key in _MODULI_PA:
        v = values.get(key)
        if v is not None and 0 < v < MIN_PLAUSIBLE_MODULUS_PA:
            slips.append(f"{key} = {v:g} Pa (moduli are in Pa; {v:g} MPa would be {v * 1e6:g} Pa)")
    for key in ("density", "grain_density"):
        v = values.get(key)
        if soil and v is not None and 0 < v < MIN_PLAUSIBLE_SOIL_DENSITY:
            slips.append(f"{key} = {v:g} kg/m^3 (densities are in kg/m^3; {v:g} g/cm^3 would "
                         f"be {v * 1e3:g} kg/m^3)")
    for slip in slips:
        warnings.warn(f"material '{material}': {slip}; silence with warnings.filterwarnings("
                      "'ignore', category=regosph.PlausibilityWarning) if meant",
                      PlausibilityWarning, stacklevel=3)


def checked_material(factory, soil):
    """A material factory (DruckerPrager, ElasticSolid, Rigid) that checks plausibility."""
    friendly = forgiving(factory, factory.__name__)

    @functools.wraps(factory)
    def make(*args, **kwargs):
        material = friendly(*args, **kwargs)  # refuses bad arguments before any warning
        check_plausible(material.name, kwargs, soil)
        return material
    return make
