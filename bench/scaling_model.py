#!/usr/bin/env python3
"""A scaling model of regosph under MPI: the decomposition's counts measured on 1-64 ranks,
replicated by a lattice model of the decomposition, and the time per step on a cluster
predicted from them (issue 46, item 4; docs/cluster.md, "Scaling on a cluster").

    /usr/bin/python3 bench/scaling_model.py --measure   # the counting runs (~15 min here)
    /usr/bin/python3 bench/scaling_model.py             # the model from bench/scaling_counts.json

1. Counts (`--measure`, bench/scaling_case.py under mpiexec, ranks oversubscribed): the 3D
   lander's half bed at 12.5 mm on 1-64 ranks (strong), and refined with the ranks, 25 mm / P^(1/3)
   (weak): per rank the owned particles, halo copies, halo partners, bytes, halo updates,
   collective calls and pair-list entries. Written to bench/scaling_counts.json.
2. Replica: the bed's lattice and the code's orthogonal recursive bisection (src/parallel/
   domain.cpp: cut across the longest extent, the lower ranks' share of the weights, dynamic 1
   and boundary 1/4) computed exactly on the lattice, and each rank's halo (every particle of
   another rank within `reach` of its owned particles' bounding box), partners and pair work
   (rows of the particles near the free surface are shorter). Checked against the counts.
3. Model of one step on C cores as R ranks x T threads (every term per rank, the slowest rank
   setting the pace):
       t = tau (work + c_halo halo) / (T e_T)                  compute, at the measured rate
         + u (alpha + partners o) + bytes_off_node / beta_rank  halo updates
         + calls ceil(log2 R) alpha_coll                          reductions (time step, ...)
         + (migration + halo build + rebalance) / steps_per_build
   with tau the time of one dynamic particle-step on a core (1 / the measured rate) and the
   network of a stated InfiniBand HDR cluster (NETWORK). Efficiency = t(1 core) / (C t).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
COUNTS = HERE / "scaling_counts.json"
RANKS = (1, 2, 4, 8, 16, 32, 64)
STRONG_SPACING = 0.0125   # m: 111 000 particles
WEAK_SPACING = 0.025      # m at 1 rank; / P^(1/3) on P ranks

# The bed of examples/lander_3d.py (prepared_bed.build): regolith WIDTH x DEPTH x BREADTH [m]
# in fixed walls WALL_LAYERS spacings thick (ceil(h / spacing), h = 2.5 spacings), the walls
# FREEBOARD spacings above the surface; every particle on the lattice (i + 1/2) spacing.
WIDTH, DEPTH, BREADTH = 1.2, 0.3, 0.4
SUPPORT = 2.5             # h / spacing (prepared_bed.SMOOTHING_FACTOR)
WALL_LAYERS, FREEBOARD = 3, 2
BOUNDARY_WEIGHT = 0.25    # parallel::Domain::kBoundaryWeight
IMBALANCE_TOLERANCE = 0.05  # parallel::Domain::kImbalanceTolerance
CUT_ITERATIONS = 52       # allreduces per level of a tree computation, + 3 for the extents
NEIGHBOUR_SKIN, PAIR_MARGIN, MAX_SKIN_FACTOR = 0.15, 0.2, 2.0  # IntegratorOptions, AdaptiveHeun
BLOCK = 8                 # pair lists are padded to whole blocks (pair_selection.hpp)
DYNAMIC, BOUNDARY = 0, 1

# A typical InfiniBand HDR cluster (200 Gb/s = 25 GB/s a direction per node): MPI ping-pong
# latencies of 0.9-1.5 us and ~10 GB/s at 32 kB messages are what OSU micro-benchmarks show on
# InfiniBand with Open MPI (e.g. gist.github.com/jfgrimm/3af692a5475bdd4ed836b5a18197a209);
# taken here as 1.5 us, 0.5 us per further message in flight, 12 GB/s per node shared by its
# ranks' off-node traffic, 1.5 us per round of a reduction (recursive doubling); 64 cores a
# node. Assumptions, not measurements.
NETWORK = dict(alpha_s=1.5e-6, per_message_s=0.5e-6, node_bandwidth=12e9, alpha_coll_s=1.5e-6,
               cores_per_node=64)
# The run: the 3D lander at 2.5 cm ran 0.41 M particle-steps/s on the 2 cores here
# (docs/impact_studies.md), 0.2 M per core; 70 % of a step in the pair loop (perf of the rings,
# bench/README.md), so a particle's time is 0.3 + 0.7 x its pair entries / the bulk's. A halo
# copy costs c_halo of a particle (copies and list builds); 8 threads a rank at 90 % (two
# threads measured 1.86-1.98 x here; 8 not measured); lists rebuilt every 10 steps.
RUN = dict(rate_per_core=0.2e6, pair_fraction=0.7, c_halo=0.02, thread_efficiency=0.9,
           steps_per_build=10)
TREE_PASS_S = 1.5e-9  # one particle in one pass of the tree's bisection [s] (assumption)
# Parallel HDF5 on a cluster's parallel file system: 5 GB/s for one job (assumption).
IO = dict(bandwidth=5e9, snapshot_bytes=146)


# ---- counting runs ------------------------------------------------------------------------

def run_case(ranks, spacing, setup, steps=4):
    """One bench/scaling_case.py run on `ranks` oversubscribed ranks: its JSON line."""
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        raise SystemExit("scaling_model: no mpiexec on PATH")
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_MCA_mpi_yield_when_idle="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [mpiexec, "-n", str(ranks), "--oversubscribe", "--bind-to", "none",
           sys.executable, str(HERE / "scaling_case.py"), "--spacing", repr(spacing),
           "--setup", setup, "--steps", str(steps)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"scaling_model: {' '.join(cmd)} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(ranks, path):
    """The strong and the weak series; written to path as they come."""
    data = {"strong": [], "weak": []}
    for p in ranks:
        data["strong"].append(run_case(p, STRONG_SPACING, "whole"))
        print(f"strong {p:>3} ranks: {data['strong'][-1]['particles']} particles", flush=True)
        path.write_text(json.dumps(data, indent=1))
    for p in ranks:
        data["weak"].append(run_case(p, WEAK_SPACING / p ** (1 / 3), "split"))
        print(f"weak   {p:>3} ranks: {data['weak'][-1]['particles']} particles", flush=True)
        path.write_text(json.dumps(data, indent=1))
    return data


# ---- the lattice replica ----------------------------------------------------------------

class Bed:
    """The particles as disjoint index boxes [lo, hi) of the lattice (i + 1/2) spacing, each
    of one kind; `top`: the first row above the regolith."""

    def __init__(self, spacing, width=WIDTH, depth=DEPTH, breadth=BREADTH):
        self.spacing = spacing
        nx, ny, nz = (round(v / spacing) for v in (width, depth, breadth))
        t, up = WALL_LAYERS, ny + FREEBOARD
        self.shape, self.top = (nx, ny, nz), ny
        self.boxes = [((0, 0, 0), (nx, ny, nz), DYNAMIC),
                      ((-t, -t, -t), (nx + t, 0, nz + t), BOUNDARY),      # floor
                      ((-t, 0, -t), (0, up, nz + t), BOUNDARY),           # x walls
                      ((nx, 0, -t), (nx + t, up, nz + t), BOUNDARY),
                      ((0, 0, -t), (nx, up, 0), BOUNDARY),                # z walls (z < 0:
                      ((0, 0, nz), (nx, up, nz + t), BOUNDARY)]           # the symmetry plane)
        self.lo = np.array([-t, -t, -t])
        self.hi = np.array([nx + t, up, nz + t])

    def count(self, kind=None):
        return sum(int(np.prod(np.subtract(h, l))) for l, h, k in self.boxes
                   if kind is None or k == kind)


def intersect(box, region):
    lo = np.maximum(box[0], region[0])
    hi = np.minimum(box[1], region[1])
    return (lo, hi) if np.all(hi > lo) else None


def pair_radius():
    """Pairs within h_ab + margin, margin = PAIR_MARGIN x the narrowest skin [spacings]."""
    return SUPPORT * (1.0 + PAIR_MARGIN * NEIGHBOUR_SKIN)


class PairWork:
    """Pair-list entries of the bed's dynamic particles (padded to blocks, as the pair loop
    visits them): `bulk` in a full neighbourhood; in the rows less than `radius` below the free
    surface the neighbours above it are missing, except the wall particles above the surface
    next to the walls (the walls' freeboard). Sums over index boxes of the regolith."""

    def __init__(self, bed, radius):
        r = int(math.floor(radius))
        off = np.arange(-r, r + 1)
        dx, dy, dz = (a.ravel() for a in np.meshgrid(off, off, off, indexing="ij"))
        ball = (dx ** 2 + dy ** 2 + dz ** 2 < radius ** 2) & ((dx != 0) | (dy != 0) | (dz != 0))
        dx, dy, dz = dx[ball], dy[ball], dz[ball]
        self.bulk = BLOCK * math.ceil(len(dx) / BLOCK)
        nx, _, nz = bed.shape
        wall = np.ones((nx + 2 * r, nz + 2 * r), dtype=int)  # columns outside the regolith
        wall[r:r + nx, r:r + nz] = 0
        self.depth = r  # rows 0 .. r-1 below the surface lack neighbours
        self.tables = []
        for d in range(r):
            count = np.full((nx, nz), int(np.sum(dy <= d)))
            for a, c in zip(dx[dy > d], dz[dy > d]):
                count += wall[r + a:r + a + nx, r + c:r + c + nz]
            padded = BLOCK * ((count + BLOCK - 1) // BLOCK)
            table = np.zeros((nx + 1, nz + 1), dtype=np.int64)  # summed-area table
            table[1:, 1:] = padded.cumsum(0).cumsum(1)
            self.tables.append(table)
        self.top = bed.top

    def entries(self, lo, hi):
        """Entries of the regolith particles in the index box [lo, hi)."""
        rows = np.arange(lo[1], hi[1])
        depth = self.top - 1 - rows
        total = int(np.sum(depth >= self.depth)) * self.bulk * int((hi[0] - lo[0]) * (hi[2] - lo[2]))
        for d in depth[depth < self.depth]:
            t = self.tables[d]
            total += int(t[hi[0], hi[2]] - t[lo[0], hi[2]] - t[hi[0], lo[2]] + t[lo[0], lo[2]])
        return total


def leaf_load(bed, region, work=None):
    """(dynamic, boundary, weight, pair entries (with a PairWork), bounding box or None) of a
    region."""
    n = [0, 0]
    entries, lo, hi = 0, None, None
    for blo, bhi, kind in bed.boxes:
        cut = intersect((blo, bhi), region)
        if cut is None:
            continue
        clo, chi = cut
        n[kind] += int(np.prod(chi - clo))
        lo = clo if lo is None else np.minimum(lo, clo)
        hi = chi - 1 if hi is None else np.maximum(hi, chi - 1)
        if kind == DYNAMIC and work is not None:
            entries += work.entries(clo, chi)
    weight = n[0] + BOUNDARY_WEIGHT * n[1]
    return n[0], n[1], weight, entries, (None if lo is None else (lo, hi))


def plane_weights(bed, region, axis):
    """Weights of the region's particles per lattice plane across `axis`, from its first
    occupied plane; and that plane's index."""
    cuts = [(intersect((l, h), region), k) for l, h, k in bed.boxes]
    cuts = [(c, k) for c, k in cuts if c is not None]
    first = min(int(c[0][axis]) for c, _ in cuts)
    last = max(int(c[1][axis]) for c, _ in cuts)
    w = np.zeros(last - first)
    for (clo, chi), kind in cuts:
        area = np.prod(np.delete(chi - clo, axis))
        w[clo[axis] - first:chi[axis] - first] += area * (1.0 if kind == DYNAMIC else BOUNDARY_WEIGHT)
    return w, first


def orb(bed, ranks):
    """The leaves of Domain::compute_tree on the lattice, in rank order: index regions
    [lo, hi) (planes of the lower ranks' side: those below the smallest cut that gives them
    their share of the weight)."""
    big = 1 << 40
    todo = [((np.full(3, -big), np.full(3, big)), 0, ranks)]
    leaves = [None] * ranks
    while todo:
        region, r0, r1 = todo.pop()
        if r1 - r0 == 1:
            leaves[r0] = region
            continue
        _, _, _, _, box = leaf_load(bed, region)
        extent = box[1] - box[0]
        axis = int(np.argmax(extent))  # the first of equal extents, as domain.cpp
        w, first = plane_weights(bed, region, axis)
        mid = (r0 + r1) // 2
        target = w.sum() * (mid - r0) / (r1 - r0)
        reached = np.nonzero(np.cumsum(w) >= target)[0]
        k = int(reached[0]) if len(reached) and reached[0] < len(w) - 1 else len(w) - 2
        cut = first + k + 1  # planes [first, cut) go to the lower ranks
        lower_hi, upper_lo = region[1].copy(), region[0].copy()
        lower_hi[axis], upper_lo[axis] = cut, cut
        todo.append(((region[0], lower_hi), r0, mid))
        todo.append(((upper_lo, region[1]), mid, r1))
    return leaves


def gap_counts(lo, hi, blo, bhi, g_max):
    """For index intervals [lo, hi) (arrays), the number of indices i at gap g = 0 .. g_max
    from the interval [blo, bhi] (gap max(0, blo - i, i - bhi))."""
    g = np.arange(g_max + 1)
    zero = np.clip(np.minimum(hi, bhi + 1) - np.maximum(lo, blo), 0, None)
    below = ((blo[:, None] - g >= lo[:, None]) & (blo[:, None] - g < hi[:, None]))
    above = ((bhi[:, None] + g >= lo[:, None]) & (bhi[:, None] + g < hi[:, None]))
    out = (below.astype(int) + above.astype(int))
    out[:, 0] = zero
    return out


def halo_pairs(bed, leaves, boxes, reach):
    """Halo copies rank r receives from rank s, for every pair within reach: (r, s, copies of
    dynamic particles, of boundary particles). boxes: per rank the owned particles' bounding
    box (lo, hi inclusive) or None."""
    ranks = [r for r, b in enumerate(boxes) if b is not None]
    lo = np.array([boxes[r][0] for r in ranks])
    hi = np.array([boxes[r][1] for r in ranks])
    receivers, senders = [], []
    for i0 in range(0, len(ranks), 256):  # receivers in chunks: P^2 pairs at 4096 ranks
        gap = np.maximum(0, np.maximum(lo[None, :, :] - hi[i0:i0 + 256, None, :],
                                       lo[i0:i0 + 256, None, :] - hi[None, :, :]))
        near = (gap ** 2).sum(axis=2) < reach ** 2
        r, s = np.nonzero(near)
        keep = (r + i0) != s
        receivers.append(r[keep] + i0)
        senders.append(s[keep])
    R, S = np.concatenate(receivers), np.concatenate(senders)
    g_max = math.ceil(reach) - 1
    g = np.arange(g_max + 1)
    inside = (g[:, None, None] ** 2 + g[None, :, None] ** 2 + g[None, None, :] ** 2
              < reach ** 2).astype(float)
    region_lo = np.array([leaves[ranks[s]][0] for s in S]).reshape(-1, 3)
    region_hi = np.array([leaves[ranks[s]][1] for s in S]).reshape(-1, 3)
    copies = np.zeros((2, len(R)))
    for blo, bhi, kind in bed.boxes:
        clo, chi = np.maximum(region_lo, blo), np.minimum(region_hi, bhi)
        valid = np.all(chi > clo, axis=1)
        c = [gap_counts(clo[:, a], chi[:, a], lo[R, a], hi[R, a], g_max) for a in range(3)]
        copies[kind] += np.einsum("ni,nj,nk,ijk->n", *c, inside) * valid
    rank = np.array(ranks)
    return rank[R], rank[S], copies[DYNAMIC], copies[BOUNDARY]


def replica(bed, ranks, reach):
    """Per rank (arrays over ranks): dynamic, boundary, weight, pair entries, halo copies
    (dynamic, boundary), partners; and the halo pairs (halo_pairs)."""
    leaves = orb(bed, ranks)
    work = PairWork(bed, pair_radius())
    loads = [leaf_load(bed, leaf, work) for leaf in leaves]
    out = {k: np.array([l[i] for l in loads], dtype=float)
           for i, k in enumerate(("dynamic", "boundary", "weight", "work"))}
    out["bulk"] = work.bulk
    boxes = [l[4] for l in loads]
    if ranks == 1:
        zero = np.zeros(1)
        out.update(halo_dynamic=zero, halo_boundary=zero, partners=zero,
                   pairs=(zero[:0], zero[:0], zero[:0], zero[:0]))
        return out
    R, S, dyn, bnd = halo_pairs(bed, leaves, boxes, reach)
    out["halo_dynamic"] = np.bincount(R, weights=dyn, minlength=ranks)
    out["halo_boundary"] = np.bincount(R, weights=bnd, minlength=ranks)
    out["partners"] = np.bincount(R, minlength=ranks).astype(float)
    out["pairs"] = (R, S, dyn, bnd)
    return out


def reach_spacings(skin_factor):
    """Halo reach h_max + skin in spacings: the skin is skin_factor x NEIGHBOUR_SKIN x h
    (AdaptiveHeun: from 1 at the first build up to MAX_SKIN_FACTOR)."""
    return SUPPORT * (1.0 + skin_factor * NEIGHBOUR_SKIN)


# ---- the measured counts against the replica, and the constants fitted from them ---------

def check_run(run):
    """The replica of one counting run next to its counts: per-rank arrays, the halo reach
    [spacings] of its first and its last list build (the skin grows when lists live short),
    and whether the tree was recomputed after the distribution (on moved particles, which the
    lattice replica does not follow)."""
    detail = run["ranks_detail"]
    bed = Bed(run["spacing_m"])
    reach = SUPPORT + detail[0]["skin_m"] / run["spacing_m"]
    first = SUPPORT + detail[0]["first_step_skin_m"] / run["spacing_m"]
    rep = replica(bed, run["ranks"], reach)
    rep_first = replica(bed, run["ranks"], first)
    got = {k: np.array([d[k] for d in detail], dtype=float)
           for k in ("owned", "dynamic", "halo", "partners", "pair_entries", "halo_bytes_sent",
                     "halo_updates", "collective_calls", "first_step_bytes", "first_step_halo",
                     "trees", "rebalances", "bytes_sent")}
    R, S, dyn, bnd = rep["pairs"]
    sent = (np.bincount(S.astype(int), weights=dyn, minlength=run["ranks"]),
            np.bincount(S.astype(int), weights=bnd, minlength=run["ranks"]))
    return dict(run=run, bed=bed, rep=rep, got=got, sent=sent, reach=reach, first_reach=first,
                first_halo=rep_first["halo_dynamic"] + rep_first["halo_boundary"],
                retree=bool(got["trees"].max() > 1))


def fit_constants(checks):
    """Per step without a list rebuild: halo updates and bytes per dynamic and per boundary
    halo copy sent; collective calls (without those of new trees: CUT_ITERATIONS + 3 a level);
    bytes per copy at a halo build (all fields). Bytes: least squares over the ranks of the
    runs that kept their first tree. Each evaluation refreshes the boundary copies' values and,
    unless it rebuilt the lists, the dynamic copies' state (integrator.cpp, prepare): the
    counted steps, which rebuilt at their first evaluation, refreshed the dynamic copies once
    and the boundary copies twice; a step without a rebuild refreshes both twice."""
    multi = [c for c in checks if c["run"]["ranks"] > 1]
    updates, calls, rows, rhs, builds = [], [], [], [], []
    for c in multi:
        steps, got = c["run"]["steps"], c["got"]
        has = got["partners"] > 0
        builds.append(np.array([d["halo_builds"] for d in c["run"]["ranks_detail"]])[has] / steps)
        updates.append(got["halo_updates"][has] / steps)
        trees = got["rebalances"] * (CUT_ITERATIONS + 3) * log2(c["run"]["ranks"])
        calls.append((got["collective_calls"] - trees) / steps)
        if not c["retree"]:
            rows.append(np.stack(c["sent"], axis=1)[has])
            rhs.append(got["halo_bytes_sent"][has] / steps)
    coef, *_ = np.linalg.lstsq(np.concatenate(rows), np.concatenate(rhs), rcond=None)
    whole = [c for c in multi if c["run"]["setup"] == "whole"]
    record = (sum(c["got"]["first_step_bytes"].sum() for c in whole) /
              max(sum(c["got"]["first_step_halo"].sum() for c in whole), 1.0))
    rebuilt = float(np.median(np.concatenate(builds)))  # share of counted steps that rebuilt
    dynamic_updates = 2.0 - rebuilt
    if not (np.isclose(np.median(np.concatenate(updates)), 2.0 + dynamic_updates) and dynamic_updates > 0):
        raise SystemExit("scaling_model: halo updates per step are not those of the integrator "
                         "(two boundary refreshes, a dynamic one per evaluation without rebuild)")
    return dict(updates_per_step=4.0,
                calls_per_step=float(np.median(np.concatenate(calls))),
                bytes_dynamic=float(2 * coef[0] / dynamic_updates), bytes_boundary=float(coef[1]),
                record_bytes=float(record))


def print_table(title, columns, lines):
    """A table: its title, a header line from "title width, title width, ..." (each title
    right-aligned in its width of characters, one space apart), then its lines."""
    print(title)
    cells = [column.rsplit(" ", 1) for column in columns.split(", ")]
    print(" ".join(f"{head:>{int(width)}}" for head, width in cells))
    for line in lines:
        print(line)


def check_line(c):
    """The line of print_checks of one counting run `c` (check_run)."""
    g, r = c["got"], c["rep"]
    halo_r = r["halo_dynamic"] + r["halo_boundary"]
    weight = g["dynamic"] + BOUNDARY_WEIGHT * (g["owned"] - g["dynamic"])
    return (f"{c['series']:>6} {c['run']['ranks']:>5} {c['run']['particles']:>9} "
            f"{g['owned'].mean():>7.0f} ({g['owned'].max():>6.0f}) "
            f"{g['halo'].mean():>6.0f} ({g['halo'].max():>6.0f}) "
            f"{g['halo'].sum() / g['owned'].sum():>10.3f} "
            f"{g['partners'].mean():>5.1f} ({g['partners'].max():>3.0f}) "
            f"{g['pair_entries'].max() / g['pair_entries'].mean():>9.3f} "
            f"{weight.max() / weight.mean():>11.3f} {g['trees'].max():>5.0f} {c['reach']:>5.2f} "
            f"{halo_r.mean():>6.0f} ({halo_r.max():>6.0f}) "
            f"{r['partners'].mean():>5.1f} ({r['partners'].max():>3.0f}) "
            f"{r['work'].max() / r['work'].mean():>9.3f} "
            f"{r['weight'].max() / r['weight'].mean():>11.3f}")


def print_checks(checks):
    print_table("Measured counts (bench/scaling_case.py) and the replica, per rank: mean (max); "
                "reach in spacings at the last build; trees: bisections computed (1: the "
                "distribution's)",
                "series 6, ranks 5, particles 9, owned 15, halo 15, halo/owned 10, partners 11, "
                "work imb. 9, weight imb. 11, trees 5, reach 5, replica: halo 15, partners 11, "
                "work imb. 9, weight imb. 11", map(check_line, checks))


def agreement(checks):
    """Largest relative differences replica / measured on any rank: the first step's halo
    (every run), and the counts of the last build in the runs that kept their first tree."""
    worst = {"first-step halo": 0.0}
    for c in checks:
        g, r = c["got"], c["rep"]
        d = np.abs(c["first_halo"] - g["first_step_halo"]) / np.maximum(g["first_step_halo"], 1)
        worst["first-step halo"] = max(worst["first-step halo"], float(d.max()))
        if c["retree"]:
            continue
        pairs = dict(owned=(r["dynamic"] + r["boundary"], g["owned"]),
                     dynamic=(r["dynamic"], g["dynamic"]),
                     halo=(r["halo_dynamic"] + r["halo_boundary"], g["halo"]),
                     partners=(r["partners"], g["partners"]),
                     pair_entries=(r["work"], g["pair_entries"]))
        for k, (model, meas) in pairs.items():
            d = float(np.max(np.abs(model - meas) / np.maximum(meas, 1.0)))
            worst[k] = max(worst.get(k, 0.0), d)
    return worst


# ---- the model of a step on a cluster -------------------------------------------------------

def cost_units(rep):
    """Per rank: a step's compute in dynamic particle-steps of the bulk (the boundary particles
    at the decomposition's weight)."""
    bulk = rep["bulk"]
    pf = RUN["pair_fraction"]
    return (1.0 - pf) * rep["dynamic"] + pf * rep["work"] / bulk + BOUNDARY_WEIGHT * rep["boundary"]


def particle_step_seconds():
    """tau: a bulk dynamic particle-step on one core [s], from the measured rate of the 3D
    lander at 2.5 cm (its dynamic particle-steps per second and per core)."""
    bed = Bed(0.025)
    rep = replica(bed, 1, reach_spacings(1.0))
    return bed.count(DYNAMIC) / RUN["rate_per_core"] / float(cost_units(rep).sum())


def log2(n):
    return math.ceil(math.log2(n)) if n > 1 else 0


def rebuild_seconds(rep, ranks, beta, const, rebalance):
    """One list rebuild under MPI: migration (two reductions, an all-to-all of counts, the
    particles that moved: negligible), the halo build (an all-gather of every rank's box, the
    copies with all their fields) and, when the weights are out of tolerance, a new tree."""
    net = NETWORK
    alpha, coll = net["alpha_s"], net["alpha_coll_s"]
    alltoall = log2(ranks) * alpha + ranks / 2 * log2(ranks) * 4 / beta  # Bruck, 4-byte counts
    allgather = log2(ranks) * alpha + ranks * 56 / beta                  # 56-byte boxes
    halo = rep["halo_dynamic"] + rep["halo_boundary"]
    build = 2 * alpha + float(np.max(halo)) * const["record_bytes"] / beta
    # A new tree: per level CUT_ITERATIONS + 3 reductions, and as many passes over the owned
    # particles (TREE_PASS_S each: a compare and an add).
    passes = log2(ranks) * (CUT_ITERATIONS + 3)
    owned = float(np.max(rep["dynamic"] + rep["boundary"]))
    tree = passes * (log2(ranks) * coll + owned * TREE_PASS_S) if rebalance else 0.0
    return 2 * log2(ranks) * coll + alltoall + allgather + build + tree


def step_time(bed, cores, threads, const, tau, skin_factor=MAX_SKIN_FACTOR):
    """The model's step on `cores` cores as cores/threads ranks: its terms [s] and counts."""
    ranks = cores // threads
    rep = replica(bed, ranks, reach_spacings(skin_factor))
    per_node = max(1, NETWORK["cores_per_node"] // threads)
    beta = NETWORK["node_bandwidth"] / min(per_node, ranks)
    speed = threads * (RUN["thread_efficiency"] if threads > 1 else 1.0)
    halo = rep["halo_dynamic"] + rep["halo_boundary"]
    compute = tau * (cost_units(rep) + RUN["c_halo"] * halo) / speed
    R, S, dyn, bnd = rep["pairs"]
    off = (R // per_node) != (S // per_node)
    bytes_off = np.bincount(R.astype(int), minlength=ranks,
                            weights=(const["bytes_dynamic"] * dyn + const["bytes_boundary"] * bnd) * off)
    u = const["updates_per_step"]
    comm = (u * (NETWORK["alpha_s"] + rep["partners"] * NETWORK["per_message_s"]) * (rep["partners"] > 0)
            + bytes_off / beta)
    slowest = compute + comm
    k = int(np.argmax(slowest))
    weights = rep["weight"]
    rebalance = weights.max() > (1 + IMBALANCE_TOLERANCE) * weights.mean()
    coll = const["calls_per_step"] * log2(ranks) * NETWORK["alpha_coll_s"]
    build = rebuild_seconds(rep, ranks, beta, const, rebalance) / RUN["steps_per_build"]
    total = float(slowest[k]) + coll + build
    ideal = tau * float(cost_units(replica(bed, 1, 1.0)).sum()) / cores if ranks > 1 else None
    return dict(cores=cores, threads=threads, ranks=ranks, particles=bed.count(),
                owned=float((rep["dynamic"] + rep["boundary"]).mean()),
                halo_ratio=float(halo.sum() / (rep["dynamic"] + rep["boundary"]).sum()),
                partners=float(rep["partners"].mean()),
                imbalance=float(cost_units(rep).max() / cost_units(rep).mean()),
                weight_imbalance=float(weights.max() / weights.mean()), rebalance=bool(rebalance),
                compute=float(compute[k]), comm=float(comm[k]), coll=coll, build=build,
                step=total, ideal=ideal if ideal is not None else total)


def bed_for(particles):
    """The lander bed's shape at the spacing that gives about `particles` particles."""
    spacing = (WIDTH * DEPTH * BREADTH / particles) ** (1 / 3)
    for _ in range(20):  # walls included: a fixed point in the spacing
        spacing *= (Bed(spacing).count() / particles) ** (1 / 3)
    return Bed(spacing)


# ---- predictions ------------------------------------------------------------------------

# The 3D studies of docs/impact_studies.md ("Estimated costs of the full 3D studies"): particles
# of one run, and the study's particle-steps (runs x steps, beds included) as that page counts
# them, which at RUN["rate_per_core"] give its core-hours on one core.
STUDIES = [
    ("Uehara, 2.5 mm", 62_932, 6 * 62_932 * 5_550 + 62_932 * 793),
    ("Uehara, 1.25 mm", 503_456, 6 * 503_456 * 11_100),
    ("low gravity, 2.5 mm", 62_932, 90 * 62_932 * 5_550),
    ("low gravity, 1.25 mm", 503_456, 90 * 503_456 * 11_100),
    ("lander 3D, 1 cm", 185_000, 9 * 185_000 * 20_000 + 5 * 185_000 * 17_000),
    ("lander 3D, 5 mm", 1_480_000, 16 * (9 * 185_000 * 20_000 + 5 * 185_000 * 17_000)),
    ("anchor 3D cone, 18 runs", 110_000, 18 * 110_000 * 60_000),
]
CORES = (64, 256, 1024, 4096)
LAYOUTS = ((1, "1 thread/rank"), (8, "8 threads/rank"))


def predictions(const, tau):
    """Strong and weak scaling of the lander at 5 mm and of the 10^8-particle bed."""
    lander, big = Bed(0.005), bed_for(1e8)
    rows = []
    for name, strong, weak in (
            ("lander 5 mm", lambda c: lander,
             lambda c: Bed(0.005 * (CORES[0] / c) ** (1 / 3))),
            ("10^8 bed", lambda c: big,
             lambda c: Bed(big.spacing * (CORES[-1] / c) ** (1 / 3)))):
        for threads, layout in LAYOUTS:
            for cores in CORES:
                s = step_time(strong(cores), cores, threads, const, tau)
                w = step_time(weak(cores), cores, threads, const, tau)
                rows.append(dict(bed=name, layout=layout, strong=s, weak=w))
    return rows


def prediction_line(r):
    """The line of print_predictions of one bed, layout and core count `r` (predictions)."""
    s, w = r["strong"], r["weak"]
    return (f"{r['bed']:>11} {r['layout']:>14} {s['cores']:>5} {s['ranks']:>5} "
            f"{s['owned']:>10.0f} {s['halo_ratio']:>10.2f} {s['partners']:>8.1f} "
            f"{s['imbalance']:>9.3f} {'yes' if s['rebalance'] else 'no':>15} "
            f"{1e3 * s['compute']:>10.3f} {1e3 * s['comm']:>8.3f} {1e3 * s['coll']:>9.3f} "
            f"{1e3 * s['build']:>8.3f} {s['ideal'] / s['step']:>8.1%} "
            f"{w['ideal'] / w['step']:>7.1%}")


def print_predictions(rows):
    print_table("\nPredicted step on an InfiniBand HDR cluster (bench/scaling_model.py NETWORK, "
                "RUN); strong: the same bed on more cores; weak: the particles per core of the "
                "64-core lander / of the 10^8 bed on 4096 cores",
                "bed 11, layout 14, cores 5, ranks 5, owned/rank 10, halo/owned 10, partners 8, "
                "work imb. 9, tree each build 15, compute ms 10, halo ms 8, reduce ms 9, "
                "build ms 8, strong E 8, weak E 7", map(prediction_line, rows))


def print_studies(const, tau):
    print("\nCore-hours of the 3D studies (docs/impact_studies.md): on one core at "
          f"{RUN['rate_per_core'] / 1e6:.2f} M particle-steps/s, and at the predicted strong "
          "efficiency of one run on C cores (8 threads/rank; 1 thread/rank below 64)")
    print(f"{'study':>24} {'particles/run':>13} {'1 core':>8} " +
          " ".join(f"{c:>14}" for c in (16,) + CORES))
    for name, particles, psteps in STUDIES:
        hours = psteps / RUN["rate_per_core"] / 3600
        bed = bed_for(particles)
        cells = []
        for cores in (16,) + CORES:
            threads = 1 if cores < 64 else 8
            s = step_time(bed, cores, threads, const, tau)
            eff = s["ideal"] / s["step"]
            cells.append(f"{hours / eff:>7.0f} ({eff:>4.0%})")
        print(f"{name:>24} {particles:>13} {hours:>8.0f} " + " ".join(f"{c:>14}" for c in cells))


def print_io(const):
    print("\nI/O: a snapshot is ~146 B a particle (docs/cluster.md), a checkpoint ~"
          f"{const['record_bytes']:.0f} B (every field; the halo build's record), at "
          f"{IO['bandwidth'] / 1e9:.0f} GB/s for the job (assumption)")
    for name, n in (("lander 5 mm", Bed(0.005).count()), ("10^8 bed", bed_for(1e8).count())):
        snap = n * IO["snapshot_bytes"] / IO["bandwidth"]
        ckpt = n * const["record_bytes"] / IO["bandwidth"]
        print(f"  {name}: {n} particles, snapshot {snap:.2f} s, checkpoint {ckpt:.2f} s "
              f"({ckpt / 600:.2%} of 10 wall minutes), restart reads "
              f"{n * const['record_bytes'] / 1e9:.1f} GB on every rank")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measure", action="store_true",
                    help="run the counting runs (mpiexec) and write --counts")
    ap.add_argument("--ranks", type=int, nargs="*", default=list(RANKS))
    ap.add_argument("--counts", type=Path, default=COUNTS, help="the counts' JSON file")
    ap.add_argument("--json", type=Path, help="write the model's tables to this file")
    args = ap.parse_args()
    data = measure(args.ranks, args.counts) if args.measure else json.loads(args.counts.read_text())
    checks = []
    for series in ("strong", "weak"):
        for run in data[series]:
            checks.append(dict(check_run(run), series=series))
    print_checks(checks)
    worst = agreement(checks)
    print("replica against the counts, largest relative difference on any rank: " +
          ", ".join(f"{k} {v:.2%}" for k, v in worst.items()))
    const = fit_constants(checks)
    tau = particle_step_seconds()
    print("fitted, per step without a rebuild: " + ", ".join(f"{k} {v:.3g}" for k, v in const.items()) +
          f"; tau = {tau * 1e6:.2f} us a bulk particle-step")
    rows = predictions(const, tau)
    print_predictions(rows)
    print_studies(const, tau)
    print_io(const)
    if args.json:
        args.json.write_text(json.dumps(dict(constants=const, agreement=worst, tau_s=tau,
                                             predictions=rows), indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
