#!/usr/bin/env bash
# Install the Debian packages regosph needs, if any is missing. Idempotent; silent when
# everything is present. Used by `make build`, `make run` and `make test`.
set -euo pipefail

packages=(
  g++ make cmake git pkg-config
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libeigen3-dev libnanoflann-dev
  pybind11-dev python3-pybind11 doctest-dev nlohmann-json3-dev
  python3-dev python3-numpy python3-h5py python3-matplotlib python3-pandas python3-pytest
  python3-nbclient python3-ipykernel python3-mpi4py python3-scipy
  # the documentation site (docs/): Sphinx, its default theme, Markdown pages
  python3-sphinx python3-myst-parser
  # CAD tool meshes (STL, OBJ, ...): regosph.read_mesh
  python3-meshio
  # `python3 -m build` of docs/install.md (pip: python3-pip, python3-venv)
  python3-build python3-pip python3-venv
  # bench/rings_bench.py runs PySPH next to regosph; PySPH compiles its kernels at run time
  # (Cython + g++ with OpenMP, into ~/.pysph)
  python3-pysph cython3
  # ParaView's default XDMF 3 reader opens series.xdmf in tests/python/test_formats.py (pvpython,
  # headless); scripts/paraview_views.py. 134 packages, 138 MB of archives, 789 MB installed,
  # 33 s here with the archives partly cached.
  paraview python3-paraview
  # scripts/paraview_views.py draws its pictures on a virtual display (xvfb-run)
  xvfb
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "bootstrap: installing missing Debian packages: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "bootstrap: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "bootstrap: done"
