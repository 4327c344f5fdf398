#!/usr/bin/python3
"""hcasim plot: pictures of a sweep's table, a run's statistics and its time series.

Run as `hcasim plot KIND ...` (the program starts this script with Debian's
/usr/bin/python3 and matplotlib). Every picture is written as PNG and SVG
(OUT.png and OUT.svg; an OUT ending in .png or .svg writes that one only), and
beside it OUT.csv holds the values drawn (in the units of their source: a
rate in b/s even where the axis shows Gb/s), one row per point of a series,
so a script or a test can read back what a picture shows.

  hcasim plot sweep DIR|results.csv|results.db --x AXIS --y METRIC [--series AXIS]
                    [--where AXIS=VALUE ...] [--band minmax|std] [--logx] [--logy]
                    [--title TEXT] [--out OUT]
                    [--reference FILE.csv [--reference-x COL] [--reference-y COL]
                     [--reference-where COL=VALUE ...] [--reference-label TEXT]]
      The metric's mean over seeds (and over any run of the same x and
      series) against an axis, one line per value of the series axis, with the
      min-max range (or one standard deviation) as a band. Other axes that
      vary must be fixed with --where. Failed runs (exit code not 0) are left
      out and counted in the title. --reference draws published points
      (a CSV with a header, '#' lines are comments; x an axis value, y in the
      metric's units; columns x and y unless --reference-x/-y name others) as
      black crosses beside the model's lines, filtered by --reference-where;
      they go in OUT.csv as the series "reference: LABEL" (runs 0).
  hcasim plot run DIR [--out PREFIX]
      From one run's results.db (or details.json): PREFIX_throughput (per flow), PREFIX_latency
      (per flow, the CDF through the reported min, percentiles and max; with
      more than 12 flows the 4 fastest and 8 slowest at p99), and for a fabric
      with switches PREFIX_ports (utilisation and credit-stall share of every
      switch port, a heat map with the switches by level: a switch's level is
      its distance in links from the nearest HCA).
  hcasim plot timeseries DIR|timeseries.csv [--kind port|flow|qp]
                    [--metric METRIC] [--match REGEX] [--top N] [--out OUT]
      One line per port-VL, flow or QP over time: byte counts as Gb/s over
      their interval (summed over --bin K intervals; by default enough for at
      most 60 points a line), the rest as sampled. The N largest by their sum
      (8 by default) when more match.
Exit codes: 0 written, 2 bad input (one line on stderr naming what is wrong).
"""

import argparse
import collections
import csv
import json
import math
import os
import re
import sqlite3
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


class BadInput(Exception):
    pass


def save(fig, out, columns, rows):
    """Writes the figure (PNG and SVG, or the one OUT names) and OUT.csv."""
    base, ext = os.path.splitext(out)
    if ext not in (".png", ".svg"):
        base, ext = out, ""
    folder = os.path.dirname(base)
    if folder:
        os.makedirs(folder, exist_ok=True)
    written = []
    for e in ([ext] if ext else [".png", ".svg"]):
        fig.savefig(base + e, dpi=120, bbox_inches="tight", metadata={"Date": None} if e == ".svg" else None)
        written.append(base + e)
    plt.close(fig)
    with open(base + ".csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        w.writerows(rows)
    written.append(base + ".csv")
    print("wrote " + ", ".join(written))


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def axis_number(text):
    """A number, or a percentage ("40%") as its number: axis values drawn at their values."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*%\s*", str(text))
    return float(m.group(1)) if m else number(text)


def sort_key(value):
    """Axis values in order: by magnitude where they carry one (8KiB < 16KiB, 2m < 100m)."""
    m = re.match(r"^\s*([0-9.]+)\s*([A-Za-z/]*)", str(value))
    if not m:
        return (1, 0.0, str(value))
    scale = {"": 1, "k": 1e3, "m": 1e-3, "km": 1e3, "cm": 1e-2, "ki": 1024, "kib": 1024, "mib": 2**20,
             "gib": 2**30, "b": 1, "kb": 1e3, "mb": 1e6, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1,
             "ps": 1e-12, "gb/s": 1e9, "mb/s": 1e6, "tb/s": 1e12}.get(m.group(2).lower(), 1)
    return (0, float(m.group(1)) * scale, str(value))


def axis_scale(name):
    """(divisor, label): rates in b/s are drawn in Gb/s."""
    if re.search(r"_bps(\[|$)", name):
        return 1e9, f"{name} (Gb/s)"
    return 1.0, axis_label(name)


def axis_label(name):
    """Units where the column name says them."""
    for suffix, unit in (("_bps", "b/s"), ("_ns", "ns"), ("_ps", "ps"), ("_bytes", "bytes"), ("_gbps", "Gb/s")):
        if re.search(re.escape(suffix) + r"(\[|$)", name):
            return f"{name} ({unit})"
    return name


# --- sweep -----------------------------------------------------------------

def parse_where(items, columns, flag, name, listed):
    """{column: value} of NAME=VALUE filters, each naming one of columns."""
    where = {}
    for w in items:
        if "=" not in w or w.split("=", 1)[0] not in columns:
            raise BadInput(f"{flag} {w}: accepted: {name}=VALUE with {name} one of {', '.join(listed)}")
        k, v = w.split("=", 1)
        where[k] = v
    return where


def csv_text(v):
    """A results.db value as results.csv writes it: NULL empty, numbers as JSON, text bare."""
    if v is None:
        return ""
    if isinstance(v, float):
        return json.dumps(v)
    return str(v)


def read_sweep_rows(path):
    """The rows of a sweep's table, as dicts of text: results.csv, or results.db's runs table."""
    if path.endswith(".db"):
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            cur = db.execute("SELECT * FROM runs ORDER BY rowid")
        except sqlite3.Error as e:
            raise BadInput(f"{path}: not a sweep's results.db ({e})") from e
        names = [c[0] for c in cur.description]
        return [{k: csv_text(v) for k, v in zip(names, row)} for row in cur]
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_sweep(a):
    path = os.path.join(a.table, "results.csv") if os.path.isdir(a.table) else a.table
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file; accepted: a sweep's folder, its results.csv or its results.db")
    rows = read_sweep_rows(path)
    if not rows:
        raise BadInput(f"{path}: no rows")
    columns = list(rows[0].keys())
    meta_path = os.path.join(os.path.dirname(path), "results.json")
    axes = json.load(open(meta_path))["axes"] if os.path.exists(meta_path) else []
    for flag, col in (("--x", a.x), ("--y", a.y), ("--series", a.series)):
        if col is not None and col not in columns:
            raise BadInput(f"{flag} {col}: not a column of {path}; accepted: {', '.join(columns)}")
    where = parse_where(a.where, columns, "--where", "AXIS", axes or columns)
    rows = [r for r in rows if all(r[k] == v for k, v in where.items())]
    free = [ax for ax in axes if ax not in (a.x, a.series) and ax not in where and len({r[ax] for r in rows}) > 1]
    if free:
        raise BadInput(f"axis {free[0]} varies and is not plotted; accepted: --series {free[0]} or "
                       f"--where {free[0]}=VALUE (values: {', '.join(sorted({r[free[0]] for r in rows}, key=sort_key))})")
    failed = [r for r in rows if r.get("exit_code", "0") != "0"]
    groups = collections.defaultdict(list)
    for r in rows:
        if r in failed:
            continue
        y = number(r[a.y])
        if y is None:
            continue
        groups[(r[a.series] if a.series else "", r[a.x])].append(y)
    if not groups:
        raise BadInput(f"--y {a.y}: no run has a number there")
    series = sorted({s for s, _ in groups}, key=sort_key)
    scale, ylabel = axis_scale(a.y)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    out_rows = []
    for s in series:
        xs = sorted({x for t, x in groups if t == s}, key=sort_key)
        # Numbers and percentages at their values; quantities with units (8KiB, 100m) evenly
        # spaced in order, or at their magnitudes on a log axis.
        numeric = all(axis_number(x) is not None for x in xs)
        magnitudes = a.logx and all(sort_key(x)[0] == 0 for x in xs)
        pos = ([axis_number(x) for x in xs] if numeric else [sort_key(x)[1] for x in xs] if magnitudes
               else list(range(len(xs))))
        mean, lo, hi = [], [], []
        for x in xs:
            v = groups[(s, x)]
            m = statistics.fmean(v)
            if a.band == "std":
                d = statistics.stdev(v) if len(v) > 1 else 0.0
                lo.append(m - d)
                hi.append(m + d)
            else:
                lo.append(min(v))
                hi.append(max(v))
            mean.append(m)
            out_rows.append([s, x, m, lo[-1], hi[-1], len(v)])
        label = f"{a.series} = {s}" if a.series else a.y
        ax.plot(pos, [m / scale for m in mean], marker="o", label=label)
        ax.fill_between(pos, [v / scale for v in lo], [v / scale for v in hi], alpha=0.2)
        if not numeric:
            ax.set_xticks(pos, xs)
            ax.minorticks_off()
        elif any(str(x).strip().endswith("%") for x in xs):
            ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter())
    if a.reference:
        points = reference_points(a)
        xs = sorted({x for _, x in groups}, key=sort_key)
        numeric = all(axis_number(x) is not None for x in xs)
        magnitudes = a.logx and all(sort_key(x)[0] == 0 for x in xs)
        pos = []
        for x, _ in points:
            if numeric and axis_number(x) is not None:
                pos.append(axis_number(x))
            elif magnitudes and sort_key(x)[0] == 0:
                pos.append(sort_key(x)[1])
            elif x in xs:
                pos.append(xs.index(x))
            else:
                raise BadInput(f"--reference {a.reference}: x {x} is not a value of --x {a.x}; "
                               f"accepted: {', '.join(xs)}")
        ax.plot(pos, [y / scale for _, y in points], linestyle="none", marker="x", color="black", markersize=8,
                label=a.reference_label)
        out_rows += [[f"reference: {a.reference_label}", x, y, y, y, 0] for x, y in points]
    ax.set_xlabel(axis_label(a.x))
    ax.set_ylabel(ylabel)
    if a.logx:
        ax.set_xscale("log")
    if a.logy:
        ax.set_yscale("log")
    seeds = max(len(v) for v in groups.values())
    band = "min to max" if a.band == "minmax" else "one standard deviation"
    title = a.title or f"{a.y} against {a.x}"
    note = f"mean of {seeds} run{'s' if seeds > 1 else ''} per point, band: {band}"
    if where:
        note += "; " + ", ".join(f"{k} = {v}" for k, v in where.items())
    if failed:
        note += f"; {len(failed)} failed run{'s' if len(failed) > 1 else ''} left out"
    ax.set_title(f"{title}\n{note}", fontsize=10)
    ax.grid(True, alpha=0.3)
    if a.series or len(series) > 1 or a.reference:
        ax.legend(fontsize=8)
    out = a.out or os.path.join(os.path.dirname(path), "plots", re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{a.y}_vs_{a.x}"))
    save(fig, out, ["series", "x", "mean", "low", "high", "runs"], out_rows)


def reference_points(a):
    """(x, y) of the reference CSV's rows that pass --reference-where, in file order; x as written."""
    if not os.path.exists(a.reference):
        raise BadInput(f"--reference {a.reference}: no such file; accepted: a CSV file with a header")
    with open(a.reference, newline="") as f:
        rows = list(csv.DictReader(row for row in f if not row.startswith("#")))
    columns = list(rows[0].keys()) if rows else []
    where = parse_where(a.reference_where, columns, "--reference-where", "COL", columns)
    for flag, col in (("--reference-x", a.reference_x), ("--reference-y", a.reference_y)):
        if col not in columns:
            raise BadInput(f"{flag} {col}: not a column of {a.reference}; accepted: {', '.join(columns)}")
    points = []
    for r in rows:
        if any(r[k] != v for k, v in where.items()):
            continue
        y = number(r[a.reference_y])
        if y is None:
            raise BadInput(f"--reference {a.reference}: y {r[a.reference_y]} of x {r[a.reference_x]} is not a number")
        points.append((r[a.reference_x], y))
    if not points:
        raise BadInput(f"--reference {a.reference}: no row passes --reference-where")
    return points


    return points


# --- one run -----------------------------------------------------------------

def load_stats(folder):
    path = os.path.join(folder, "stats.json") if os.path.isdir(folder) else folder
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file; accepted: a run's folder or its stats.json")
    try:
        return json.load(open(path)), path
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not valid JSON: {e}") from e


def nested(row, prefix):
    """The columns of a results.db row that start with prefix, without it: latency_p99_ns -> p99_ns."""
    return {k[len(prefix):]: v for k, v in row.items() if k.startswith(prefix) and v is not None}


def load_detail(folder):
    """A run's flows, switches (name -> level) and ports (name, peer, utilization, credit-stall ps) from its
    results.db, or from details.json when the run wrote that instead."""
    db_path, json_path = os.path.join(folder, "results.db"), os.path.join(folder, "details.json")
    if os.path.exists(db_path):
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        flows = []
        for r in db.execute("SELECT * FROM flows ORDER BY rowid"):
            r = dict(r)
            flows.append({"name": r["name"], "data_throughput_bps": r["data_throughput_bps"],
                          "latency": {k: v for k, v in nested(r, "latency_").items() if not k.startswith("parts_")}})
        switches = {r["name"]: r["level"] for r in db.execute("SELECT name, level FROM switches")}
        stall = collections.Counter()
        for r in db.execute("SELECT port, credit_stall_ps FROM port_vls"):
            stall[r["port"]] += r["credit_stall_ps"] or 0
        ports = [{"name": r["name"], "peer": r["peer"], "utilization": r["utilization"], "credit_stall_ps": stall[r["name"]]}
                 for r in db.execute("SELECT name, peer, utilization FROM ports ORDER BY rowid")]
        return flows, switches, ports
    if os.path.exists(json_path):
        d = json.load(open(json_path))
        ports = [{"name": p["name"], "peer": p.get("peer", ""), "utilization": p.get("utilization", 0.0),
                  "credit_stall_ps": sum(v.get("credit_stall_ps", 0) for v in p.get("vls", []))} for p in d["ports"]]
        return d["flows"], {w["name"]: w["level"] for w in d["switches"]}, ports
    raise BadInput(f"{folder}: no results.db or details.json; accepted: a run's folder with its detail "
                   "(outputs.details db, json or both)")


def flow_throughput(flows, prefix, name):
    flows = [f for f in flows if f.get("data_throughput_bps") is not None]
    if not flows:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    values = [(f["name"], f["data_throughput_bps"] / 1e9) for f in flows]
    rows = [[n, i, v] for i, (n, v) in enumerate(values)]
    if len(values) <= 40:
        ax.bar([n for n, _ in values], [v for _, v in values])
        ax.tick_params(axis="x", labelrotation=45)
        ax.set_xlabel("flow")
    else:  # too many to name: sorted, as a rank plot
        ordered = sorted(v for _, v in values)
        ax.plot(range(1, len(ordered) + 1), ordered)
        ax.set_xlabel("flows, by throughput")
    ax.set_ylabel("data throughput (Gb/s)")
    ax.set_title(f"{name}: per-flow data throughput ({len(values)} flows)", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, prefix + "_throughput", ["flow", "index", "gbps"], rows)


def percentile_points(latency):
    """(latency ns, fraction) through the reported percentiles: p50 -> 0.50, p999 -> 0.999."""
    pts = []
    if "min_ns" in latency:
        pts.append((latency["min_ns"], 0.0))
    for k, v in latency.items():
        m = re.fullmatch(r"p(\d+)_ns", k)
        if m:
            d = m.group(1)
            pts.append((v, int(d) / 10 ** len(d)))
    if "max_ns" in latency:
        pts.append((latency["max_ns"], 1.0))
    return sorted(pts, key=lambda p: (p[1], p[0]))


def flow_latency(flows, prefix, name):
    flows = [f for f in flows if f.get("latency", {}).get("count", 0) > 0]
    if not flows:
        return
    if len(flows) > 12:  # the slowest at p99 and the fastest, named
        flows = sorted(flows, key=lambda f: f["latency"].get("p99_ns", 0))
        flows = flows[:4] + flows[-8:]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rows = []
    for f in flows:
        pts = percentile_points(f["latency"])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=f["name"])
        rows += [[f["name"], x, q] for x, q in pts]
    ax.set_xscale("log")
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel("fraction of packets at or below")
    ax.set_title(f"{name}: latency CDF per flow\n(straight lines between the reported min, percentiles and max)",
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, prefix + "_latency", ["flow", "latency_ns", "fraction"], rows)


def port_heat_map(s, levels, ports, prefix, name):
    """levels: each switch's distance in links from the nearest HCA (1: an HCA's neighbour)."""
    if not levels:
        return
    sim = s["run"]["sim_time_ps"] or 1
    node_of = lambda port: port.rsplit(".", 1)[0]
    number_of = lambda port: int(port.rsplit(".p", 1)[1])
    ports = [p for p in ports if node_of(p["name"]) in levels]
    order = sorted(levels, key=lambda w: (-levels[w], sort_key(w)))
    row_of = {w: i for i, w in enumerate(order)}
    width = max(number_of(p["name"]) for p in ports)
    util = [[math.nan] * width for _ in order]
    stall = [[math.nan] * width for _ in order]
    rows = []
    for p in ports:
        r, c = row_of[node_of(p["name"])], number_of(p["name"]) - 1
        stalled = p["credit_stall_ps"]
        util[r][c] = p.get("utilization", 0.0)
        stall[r][c] = stalled / sim
        rows.append([node_of(p["name"]), levels[node_of(p["name"])], c + 1, util[r][c], stall[r][c]])
    fig, axes = plt.subplots(1, 2, figsize=(12, max(3.0, 0.18 * len(order) + 1.5)), sharey=True)
    for ax, data, title in ((axes[0], util, "transmit utilisation"), (axes[1], stall, "credit-stall share of time")):
        im = ax.imshow(data, aspect="auto", cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("port number")
        ax.set_xticks(range(0, width, max(1, width // 8)), [str(i + 1) for i in range(0, width, max(1, width // 8))])
        for i in range(1, len(order)):  # a line between levels
            if levels[order[i]] != levels[order[i - 1]]:
                ax.axhline(i - 0.5, color="white", linewidth=1.5)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    step = max(1, len(order) // 40)
    axes[0].set_yticks(range(0, len(order), step), [f"L{levels[w]} {w}" for w in order][::step], fontsize=7)
    axes[0].set_ylabel("switch (L = level, top first)")
    fig.suptitle(f"{name}: switch ports over {sim / 1e6:.3g} us", fontsize=11)
    save(fig, prefix + "_ports", ["switch", "level", "port", "utilization", "credit_stall_share"], rows)


def plot_run(a):
    s, path = load_stats(a.run)
    name = s.get("run", {}).get("scenario", "run")
    prefix = a.out or os.path.join(os.path.dirname(path), "plots", name)
    flows, levels, ports = load_detail(os.path.dirname(path) or ".")
    flow_throughput(flows, prefix, name)
    flow_latency(flows, prefix, name)
    port_heat_map(s, levels, ports, prefix, name)


# --- time series ---------------------------------------------------------------

def plot_timeseries(a):
    path = os.path.join(a.series_file, "timeseries.csv") if os.path.isdir(a.series_file) else a.series_file
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file; accepted: a run's folder with timeseries.csv "
                       "(set outputs.sample_interval) or the file")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        want = ["time_ps", "kind", "name", "vl", "metric", "value"]
        if reader.fieldnames != want:
            raise BadInput(f"{path}: columns {reader.fieldnames}; accepted: {','.join(want)}")
        rows = [r for r in reader if r["kind"] == a.kind]
    metrics = sorted({r["metric"] for r in rows})
    if not rows:
        raise BadInput(f"--kind {a.kind}: no such rows in {path}")
    metric = a.metric or metrics[0]
    if metric not in metrics:
        raise BadInput(f"--metric {metric}: accepted for kind {a.kind}: {', '.join(metrics)}")
    pattern = re.compile(a.match) if a.match else None
    lines = collections.defaultdict(list)
    for r in rows:
        label = r["name"] + (f" VL{r['vl']}" if r["vl"] != "" else "")
        if r["metric"] == metric and (pattern is None or pattern.search(label)):
            lines[label].append((int(r["time_ps"]), float(r["value"])))
    if not lines:
        raise BadInput(f"--match {a.match}: no {a.kind} matches")
    chosen = sorted(lines, key=lambda k: (-sum(v for _, v in lines[k]), k))[: a.top]
    rate = metric.startswith("bytes")
    # Byte counts of short intervals are mostly whole packets or nothing: summed
    # over --bin intervals (by default enough for at most 60 points a line).
    longest = max(len(lines[k]) for k in chosen)
    width = a.bin or max(1, math.ceil(longest / 60)) if rate else 1
    fig, ax = plt.subplots(figsize=(8, 4.5))
    out_rows = []
    for label in sorted(chosen, key=sort_key):
        pts = sorted(lines[label])
        xs, ys = [], []
        start = 0
        for i in range(0, len(pts), width):
            group = pts[i:i + width]
            t = group[-1][0]
            if rate:
                y = sum(v for _, v in group) * 8 / ((t - start) * 1e-12) / 1e9 if t > start else 0.0
            else:
                y = group[-1][1]
            xs.append(t / 1e6)
            ys.append(y)
            out_rows.append([label, t, y])
            start = t
        ax.plot(xs, ys, label=label, marker="." if len(xs) <= 60 else None)
    ax.set_xlabel("simulated time (us)")
    if rate:
        ax.set_ylim(bottom=0)
    per = "" if width == 1 else f" of {width} samples"
    ax.set_ylabel(f"{metric} as Gb/s over each interval{per}" if rate else metric)
    shown = f"{len(chosen)} of {len(lines)}" if len(lines) > len(chosen) else f"{len(lines)}"
    ax.set_title(f"{metric} per {a.kind} over time ({shown}, largest by total)", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    out = a.out or os.path.join(os.path.dirname(path), "plots", f"timeseries_{a.kind}_{metric}")
    save(fig, out, ["series", "time_ps", "gbps" if rate else metric], out_rows)


class Parser(argparse.ArgumentParser):
    """argparse's, with its errors on one line."""

    def error(self, message):
        raise BadInput(f"{message}; see hcasim plot --help")


def main(argv):
    p = Parser(prog="hcasim plot", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True, parser_class=Parser)
    sw = sub.add_parser("sweep", help="a metric against an axis from a sweep's table")
    sw.add_argument("table")
    sw.add_argument("--x", required=True)
    sw.add_argument("--y", required=True)
    sw.add_argument("--series")
    sw.add_argument("--where", action="append", default=[])
    sw.add_argument("--band", choices=["minmax", "std"], default="minmax")
    sw.add_argument("--logx", action="store_true")
    sw.add_argument("--logy", action="store_true")
    sw.add_argument("--title")
    sw.add_argument("--out")
    sw.add_argument("--reference")
    sw.add_argument("--reference-x", default="x")
    sw.add_argument("--reference-y", default="y")
    sw.add_argument("--reference-where", action="append", default=[])
    sw.add_argument("--reference-label", default="reference")
    rn = sub.add_parser("run", help="per-flow throughput and latency, switch ports as a heat map")
    rn.add_argument("run")
    rn.add_argument("--out")
    ts = sub.add_parser("timeseries", help="a run's time series")
    ts.add_argument("series_file")
    ts.add_argument("--kind", choices=["port", "flow", "qp"], default="flow")
    ts.add_argument("--metric")
    ts.add_argument("--match")
    ts.add_argument("--top", type=int, default=8)
    ts.add_argument("--bin", type=int, default=0)
    ts.add_argument("--out")
    a = p.parse_args(argv)
    {"sweep": plot_sweep, "run": plot_run, "timeseries": plot_timeseries}[a.what](a)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BadInput as e:
        print(f"hcasim: plot: {e}", file=sys.stderr)
        sys.exit(2)
