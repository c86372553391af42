"""Reading a run directory: run.json, snapshot_<k>.h5, diagnostics.csv, observers.csv/.h5.

Everything is lazy: opening a Run reads run.json only; a snapshot file is opened when one of
its fields is touched, and each field is read once per Snapshot object.
"""
import difflib
import json
import re
from pathlib import Path

import numpy as np

SNAPSHOT_PATTERN = re.compile(r"^snapshot_(\d+)\.h5$")
# "kinetic_energy [J]" -> ("kinetic_energy", "J")
_UNIT_SUFFIX = re.compile(r"^(.*?)\s*\[([^\[\]]*)\]$")
# Fields derived from the stored datasets (Snapshot.__getitem__).
DERIVED_FIELDS = ("speed", "pressure", "x", "y", "z", "vx", "vy", "vz") + tuple(
    "stress_" + c for c in ("xx", "yy", "zz", "xy", "xz", "yz"))
STRESS_COMPONENTS = ("xx", "yy", "zz", "xy", "xz", "yz")  # column order of /particles/stress


class RunFormatError(ValueError):
    """A run directory's file is missing a part or has the wrong format; the message names the
    file and the part."""


def split_units(columns):
    """Column names with a unit suffix -> (plain names, {plain name: unit})."""
    names, units = [], {}
    for c in columns:
        m = _UNIT_SUFFIX.match(c)
        name, unit = (m.group(1), m.group(2)) if m else (c, "")
        names.append(name)
        units[name] = unit
    return names, units


def read_csv_with_units(path):
    """A CSV whose header names carry "[unit]" suffixes as a DataFrame with the plain names as
    columns and df.attrs["units"] = {name: unit}."""
    import pandas as pd

    path = Path(path)
    try:
        df = pd.read_csv(path)
    except FileNotFoundError:
        raise
    except Exception as e:  # pandas raises several parser errors
        raise RunFormatError(f"{path}: not a readable CSV file ({e})") from e
    names, units = split_units(df.columns)
    if len(set(names)) != len(names):
        raise RunFormatError(f"{path}: duplicate column names after removing units: {names}")
    df.columns = names
    if "time" not in df.columns:
        raise RunFormatError(f"{path}: no 'time [s]' column (columns: {list(df.columns)})")
    df.attrs["units"] = units
    df.attrs["source"] = str(path)
    return df


def parse_value(text):
    """A metadata string as int or float where it parses, else the string itself."""
    if not isinstance(text, str):
        return text
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


# Datasets renamed since: {name in older files: current name} (src/core/fields.hpp, former_name).
FORMER_NAMES = {"plastic_strain": "plastic_multiplier"}


class Snapshot:
    """One snapshot file. Fields are NumPy arrays read on first access: snap["position"],
    snap.velocity, snap["speed"] (derived), ...; snap.time [s] and snap.step come from the file's
    attributes."""

    def __init__(self, path, index, run=None):
        self.path = Path(path)
        self.index = index
        self.run = run
        self._fields = {}
        self._attrs = None
        self._units = None

    def _file(self):
        import h5py

        try:
            return h5py.File(self.path, "r")
        except FileNotFoundError:
            raise FileNotFoundError(f"{self.path}: snapshot file is missing") from None
        except OSError as e:
            raise RunFormatError(f"{self.path}: not a readable HDF5 file ({e})") from e

    def _load_header(self):
        if self._attrs is not None:
            return
        with self._file() as f:
            attrs = {k: (v.item() if hasattr(v, "item") else v) for k, v in f.attrs.items()}
            if "particles" not in f:
                raise RunFormatError(f"{self.path}: no /particles group")
            # Fields under their current names; a file older than a rename keeps its old one.
            stored = {FORMER_NAMES.get(k, k): k for k in f["particles"]}
            units = {k: str(f["particles"][d].attrs.get("units", "")) for k, d in stored.items()}
        for key in ("time", "step"):
            if key not in attrs:
                raise RunFormatError(f"{self.path}: attribute '{key}' is missing")
        self._attrs, self._units, self._stored = attrs, units, stored

    @property
    def attrs(self):
        """File attributes: time, step, dim, regosph_version and the run's metadata."""
        self._load_header()
        return self._attrs

    @property
    def time(self):
        return float(self.attrs["time"])

    @property
    def step(self):
        return int(self.attrs["step"])

    @property
    def dim(self):
        if "dim" in self.attrs:
            return int(self.attrs["dim"])
        return self.run.dim if self.run is not None else 3

    @property
    def fields(self):
        """Names of the stored datasets under /particles."""
        self._load_header()
        return sorted(self._units)

    @property
    def units(self):
        """{field: unit} of the stored datasets (e.g. "position": "m")."""
        self._load_header()
        return dict(self._units)

    def __len__(self):
        return len(self["position"])

    def __getitem__(self, name):
        if name in self._fields:
            return self._fields[name]
        if name in self.fields:
            with self._file() as f:
                value = f["particles"][self._stored[name]][()]
        elif name in DERIVED_FIELDS:
            value = self._derived(name)
        else:
            raise KeyError(f"{self.path}: no field '{name}' (stored: {', '.join(self.fields)}; "
                           f"derived: {', '.join(DERIVED_FIELDS)})")
        self._fields[name] = value
        return value

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def _derived(self, name):
        if name == "speed":
            return np.linalg.norm(self["velocity"], axis=1)
        if name == "pressure":  # p = -tr(sigma)/3, tension-positive stress
            return -self["stress"][:, :3].sum(axis=1) / 3.0
        if name in ("x", "y", "z"):
            return self["position"][:, "xyz".index(name)]
        if name in ("vx", "vy", "vz"):
            return self["velocity"][:, "xyz".index(name[1])]
        return self["stress"][:, STRESS_COMPONENTS.index(name[len("stress_"):])]

    def select(self, material=None, body=None, kind=None):
        """Boolean mask of the particles of the given material(s) and body(ies) (names or
        indices, a single one or a list) and kind ("dynamic", "boundary" or 0/1)."""
        mask = np.ones(len(self), dtype=bool)
        if material is not None:
            mask &= np.isin(self["material"], self._indices(material, "materials"))
        if body is not None:
            mask &= np.isin(self["body"], self._indices(body, "bodies"))
        if kind is not None:
            code = {"dynamic": 0, "boundary": 1}.get(kind, kind)
            if code not in (0, 1):
                raise ValueError(f"kind: {kind!r} is not 'dynamic', 'boundary', 0 or 1")
            mask &= self["kind"] == code
        return mask

    def _names(self, attribute):
        """The names stored in the snapshot's attribute (a JSON array), [] in older files."""
        text = self.attrs.get(attribute)
        if text is None:
            return []
        return json.loads(text.decode() if isinstance(text, bytes) else text)

    @property
    def material_names(self):
        """Material names, indexed by the `material` field (stored in the snapshot; run.json
        for files written before they were)."""
        return self._names("material_names") or (self.run.materials if self.run else [])

    @property
    def body_names(self):
        """Body names, indexed by the `body` field (as material_names)."""
        return self._names("body_names") or (self.run.bodies if self.run else [])

    def _indices(self, which, table):
        items = which if isinstance(which, (list, tuple, set, np.ndarray)) else [which]
        names = self.material_names if table == "materials" else self.body_names
        out = []
        for item in items:
            if isinstance(item, (int, np.integer)):
                out.append(int(item))
            elif item in names:
                out.append(names.index(item))
            else:
                raise ValueError(f"{table[:-1] if table == 'materials' else 'body'}: {item!r} "
                                 f"is not in this run ({', '.join(names) or 'no names known'})")
        return out

    def to_dataframe(self, fields=None):
        """Particle fields as a pandas DataFrame, one row per particle: vectors split into
        x/y(/z) columns, stress into stress_xx ... stress_yz; material and body names added
        when the run is known. df.attrs["units"] gives the units."""
        import pandas as pd

        fields = fields or self.fields
        axes = "xyz"[: self.dim]
        cols, units = {}, {}
        for name in fields:
            a = self[name]
            unit = self.units.get(name, "")
            if name == "position":
                for i, c in enumerate(axes):
                    cols[c], units[c] = a[:, i], unit
            elif name == "velocity":
                for i, c in enumerate(axes):
                    cols["v" + c], units["v" + c] = a[:, i], unit
            elif name == "stress":
                for i, c in enumerate(STRESS_COMPONENTS):
                    cols["stress_" + c], units["stress_" + c] = a[:, i], unit
            elif a.ndim == 1:
                cols[name], units[name] = a, unit
            else:
                for i in range(a.shape[1]):
                    cols[f"{name}_{i}"], units[f"{name}_{i}"] = a[:, i], unit
        df = pd.DataFrame(cols)
        if self.run is not None:
            if "material" in df:
                df["material_name"] = np.asarray(self.run.materials, dtype=object)[df["material"]]
            if "body" in df:
                df["body_name"] = np.asarray(self.run.bodies, dtype=object)[df["body"]]
        df.attrs["units"] = units
        df.attrs["time"] = self.time
        return df

    def __repr__(self):
        return f"Snapshot({str(self.path)!r}, index={self.index})"


class Run:
    """A run directory written by Simulation.run. Opening it reads and checks run.json only.

        run = Run("runs/sampler/P0")
        run.metadata["rpm"], run.times, run.snapshot(time=0.5)["speed"], run.observers
    """

    _REQUIRED = ("dim", "materials", "bodies", "run")

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.is_dir():
            raise FileNotFoundError(f"{self.path}: no such run directory")
        config = self.path / "run.json"
        if not config.is_file():
            raise FileNotFoundError(f"{config}: missing (not a regosph run directory)")
        try:
            self.parameters = json.loads(config.read_text())
        except (ValueError, UnicodeDecodeError) as e:
            raise RunFormatError(f"{config}: not valid JSON ({e})") from e
        if not isinstance(self.parameters, dict):
            raise RunFormatError(f"{config}: the top level is not an object")
        for key in self._REQUIRED:
            if key not in self.parameters:
                raise RunFormatError(f"{config}: key '{key}' is missing")
        for key in ("materials", "bodies"):
            entries = self.parameters[key]
            if not isinstance(entries, list) or not all(isinstance(e, dict) and "name" in e
                                                        for e in entries):
                raise RunFormatError(f"{config}: '{key}' is not a list of objects with a 'name'")
        self._cache = {}

    # ---- run.json -------------------------------------------------------------------------
    @property
    def name(self):
        """The metadata's "run" entry when present, else the directory name."""
        return str(self.metadata.get("run", self.path.name))

    @property
    def dim(self):
        return int(self.parameters["dim"])

    @property
    def metadata(self):
        """The setup's metadata (strings, as written)."""
        return dict(self.parameters.get("metadata", {}))

    @property
    def metadata_values(self):
        """The metadata with numbers parsed (ints and floats where they parse)."""
        return {k: parse_value(v) for k, v in self.metadata.items()}

    @property
    def materials(self):
        """Material names; a particle's `material` field indexes this list."""
        return [m["name"] for m in self.parameters["materials"]]

    @property
    def bodies(self):
        """Body names; a particle's `body` field indexes this list."""
        return [b["name"] for b in self.parameters["bodies"]]

    def body(self, name):
        """The run.json entry of one body."""
        for b in self.parameters["bodies"]:
            if b["name"] == name:
                return b
        raise ValueError(f"body: {name!r} is not in {self.path / 'run.json'} "
                         f"({', '.join(self.bodies)})")

    @property
    def end_time(self):
        """Requested end time [s] (run.json run.end_time_s)."""
        try:
            return float(self.parameters["run"]["end_time_s"])
        except (KeyError, TypeError, ValueError) as e:
            raise RunFormatError(f"{self.path / 'run.json'}: run.end_time_s is missing or "
                                 "not a number") from e

    @property
    def particle_count(self):
        return int(sum(b.get("particles", 0) for b in self.parameters["bodies"]))

    @property
    def wall_seconds(self):
        """Wall-clock seconds the run has computed so far, over all its segments (restarts
        included) [s]: the attribute checkpoint_wall_seconds of its newest checkpoint. NaN when
        it has no checkpoint or the checkpoint was written before regosph recorded it."""
        import h5py

        found = sorted(self.path.glob("checkpoint_*.h5"))
        for f in reversed(found):  # the names sort by step (zero-padded)
            try:
                with h5py.File(f, "r") as h:
                    text = h.attrs["checkpoint_wall_seconds"]
                seconds = float.fromhex(text.decode() if isinstance(text, bytes) else str(text))
            except (OSError, KeyError, ValueError):
                continue
            return seconds if seconds > 0 else float("nan")
        return float("nan")

    # ---- snapshots ------------------------------------------------------------------------
    def _snapshot_paths(self):
        found = []
        for f in self.path.iterdir():
            m = SNAPSHOT_PATTERN.match(f.name)
            if m:
                found.append((int(m.group(1)), f))
        return [f for _, f in sorted(found)]

    def _header(self, f):
        """(time, None) for a readable snapshot file, (None, reason) for one that is not; cached
        while the file keeps its size and modification time."""
        try:
            st = f.stat()
        except OSError as e:
            return None, str(e)
        key = (st.st_mtime_ns, st.st_size)
        known = self._cache.setdefault("headers", {})
        if f not in known or known[f][0] != key:
            try:
                known[f] = (key, (Snapshot(f, None, self).time, None))
            except (RunFormatError, OSError, KeyError, ValueError) as e:
                known[f] = (key, (None, str(e)))
        return known[f][1]

    @property
    def snapshot_files(self):
        """snapshot_<k>.h5 paths in order of k (not cached: a running job adds files). A file
        that cannot be read (damaged, truncated) is left out and listed in skipped_snapshots,
        so that one bad file does not stop the reading of a run."""
        return [f for f in self._snapshot_paths() if self._header(f)[1] is None]

    @property
    def skipped_snapshots(self):
        """(path, reason) of each snapshot file that cannot be read."""
        out = []
        for f in self._snapshot_paths():
            reason = self._header(f)[1]
            if reason is not None:
                out.append((f, reason))
        return out

    @property
    def times(self):
        """Times [s] of the (readable) snapshots, in order (read from each file once)."""
        return np.array([self._header(f)[0] for f in self.snapshot_files])

    def __len__(self):
        return len(self.snapshot_files)

    def snapshot(self, index=None, *, time=None):
        """Snapshot by position in the list (negative counts from the end) or the one nearest
        to `time` [s]; a time beyond the first or last snapshot by more than half their mean
        spacing is refused (ValueError)."""
        files = self.snapshot_files
        if not files:
            raise FileNotFoundError(f"{self.path}: no snapshot_*.h5 files")
        if (index is None) == (time is None):
            raise ValueError("snapshot: give exactly one of index and time")
        if time is not None:
            times = self.times
            # nearest within half the spacing of the snapshots at the ends, not beyond
            margin = 0.5 * (times[-1] - times[0]) / max(len(times) - 1, 1)
            if not times[0] - margin <= time <= times[-1] + margin:
                raise ValueError(f"snapshot: time {time:g} s is outside the run's snapshots "
                                 f"({times[0]:g} s to {times[-1]:g} s, {len(times)} snapshots)")
            index = int(np.argmin(np.abs(times - time)))
        if not -len(files) <= index < len(files):
            raise IndexError(f"snapshot: index {index} out of range (the run has {len(files)})")
        index %= len(files)
        cached = self._cache.setdefault("snapshots", {})
        if files[index] not in cached:
            if len(cached) >= 4:  # keep memory bounded for large runs
                cached.pop(next(iter(cached)))
            cached[files[index]] = Snapshot(files[index], index, self)
        return cached[files[index]]

    def snapshots(self):
        """Iterate over all snapshots in order."""
        for i in range(len(self)):
            yield self.snapshot(i)

    @property
    def finished(self):
        """True when the last snapshot is at the requested end time."""
        times = self.times if self.snapshot_files else []
        return len(times) > 0 and abs(times[-1] - self.end_time) <= 1e-9 * max(1.0, self.end_time)

    # ---- time series ----------------------------------------------------------------------
    @property
    def diagnostics(self):
        """diagnostics.csv as a DataFrame (units in .attrs["units"])."""
        if "diagnostics" not in self._cache:
            f = self.path / "diagnostics.csv"
            if not f.is_file():
                raise FileNotFoundError(f"{f}: missing")
            self._cache["diagnostics"] = read_csv_with_units(f)
        return self._cache["diagnostics"]

    @property
    def observers(self):
        """observers.csv (or observers.h5 when the CSV is absent) as a DataFrame: columns time,
        step, <observer>.count, <observer>.mass; units in .attrs["units"]."""
        if "observers" not in self._cache:
            csv, h5 = self.path / "observers.csv", self.path / "observers.h5"
            if csv.is_file():
                df = read_csv_with_units(csv)
            elif h5.is_file():
                df = _read_observers_h5(h5)
            else:
                raise FileNotFoundError(f"{csv}: missing (the run has no observers)")
            self._cache["observers"] = df
        return self._cache["observers"]

    @property
    def observer_names(self):
        """Names of the observers ("tray", ...), from the observer series' columns."""
        try:
            cols = self.observers.columns
        except FileNotFoundError:
            return []
        return [c[: -len(".count")] for c in cols if c.endswith(".count")]

    def observer(self, name):
        """One observer's series: DataFrame with columns time [s], count [-], mass."""
        df = self.observers
        if f"{name}.count" not in df.columns:
            raise KeyError(f"{df.attrs.get('source', self.path)}: no observer '{name}' "
                           f"(observers: {', '.join(self.observer_names) or 'none'})")
        out = df[["time", f"{name}.count", f"{name}.mass"]].copy()
        out.columns = ["time", "count", "mass"]
        units = df.attrs["units"]
        out.attrs["units"] = {"time": units["time"], "count": units[f"{name}.count"],
                              "mass": units[f"{name}.mass"]}
        return out

    def body_loads(self, body):
        """Force and torque on one (kinematic) body from diagnostics.csv: DataFrame with columns
        time, force_x, force_y(, force_z), torque_z (3D: torque_x, torque_y, torque_z), and the
        power the regolith takes from it and its work since t = 0 (power, work) when the run
        recorded them."""
        self._check_body(body)
        return _body_columns(self.diagnostics, body, self.path / "diagnostics.csv", "load")

    def _check_body(self, body):
        """KeyError naming the run's bodies (and the closest name) when `body` is not one."""
        if body not in self.bodies:
            close = difflib.get_close_matches(body, self.bodies, n=1)
            raise KeyError(f"{self.path}: no body '{body}'"
                           + (f" (did you mean '{close[0]}'?)" if close else "")
                           + f"; bodies: {', '.join(self.bodies)}; with loads: "
                           + (", ".join(self.loaded_bodies) or "none"))

    def rigid_body(self, body):
        """The track of one rigid body from bodies.csv: DataFrame with columns time, x, y(, z),
        angle (2D) or qw, qx, qy, qz (3D), vx, vy(, vz), omega_z (3D omega_x/y/z), force_*,
        torque_* of the regolith and applied_force_*, applied_torque_* (units in
        .attrs["units"])."""
        path = self.path / "bodies.csv"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: missing (the run has no rigid body)")
        self._check_body(body)
        return _body_columns(read_csv_with_units(path), body, path, "rigid-body")

    @property
    def loaded_bodies(self):
        """Bodies with force/torque columns in diagnostics.csv."""
        try:
            cols = self.diagnostics.columns
        except FileNotFoundError:
            return []
        return [b for b in self.bodies if f"{b}.force_x" in cols]

    def __repr__(self):
        return f"Run({str(self.path)!r})"


def _body_columns(table, body, path, what):
    """The columns '<body>.<name>' of a time series, renamed <name>, with time first."""
    cols = [c for c in table.columns if c.startswith(body + ".")]
    if not cols:
        have = sorted({c.split(".")[0] for c in table.columns if "." in c})
        raise KeyError(f"{path}: no {what} columns for body '{body}' (bodies with {what} "
                       f"columns: {', '.join(have) or 'none'})")
    out = table[["time"] + cols].copy()
    out.columns = ["time"] + [c[len(body) + 1:] for c in cols]
    out.attrs["units"] = {n: table.attrs["units"][c] for n, c in zip(out.columns, ["time"] + cols)}
    return out


def _read_observers_h5(path):
    """observers.h5 (/time, /step, /<name>/count, /<name>/mass) as the observers.csv frame."""
    import h5py
    import pandas as pd

    try:
        with h5py.File(path, "r") as f:
            if "time" not in f:
                raise RunFormatError(f"{path}: dataset /time is missing")
            cols = {"time": f["time"][()], "step": f["step"][()] if "step" in f else None}
            units = {"time": "s", "step": "-"}
            for name, group in f.items():
                if isinstance(group, h5py.Group):
                    for q in ("count", "mass"):
                        if q not in group:
                            raise RunFormatError(f"{path}: dataset /{name}/{q} is missing")
                        cols[f"{name}.{q}"] = group[q][()]
                        units[f"{name}.{q}"] = str(group[q].attrs.get("units", ""))
    except OSError as e:
        raise RunFormatError(f"{path}: not a readable HDF5 file ({e})") from e
    if cols["step"] is None:
        del cols["step"], units["step"]
    df = pd.DataFrame(cols)
    df.attrs["units"] = units
    df.attrs["source"] = str(path)
    return df


def find_runs(root):
    """Run objects for every directory under `root` (itself or its subdirectories, one level)
    holding a run.json, sorted by directory name."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such directory")
    if (root / "run.json").is_file():
        return [Run(root)]
    return [Run(d) for d in sorted(root.iterdir()) if (d / "run.json").is_file()]
