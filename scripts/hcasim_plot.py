#!/usr/bin/python3
"""hcasim plot: pictures of a sweep's table, a run's statistics and its time series.

Run as `hcasim plot sweep|run|timeseries ...` (the program starts this script
with Debian's /usr/bin/python3 and matplotlib); `hcasim plot KIND --help`
describes every option, docs/plots.md shows examples. Every picture is written
as PNG and SVG (OUT.png and OUT.svg; an OUT ending in .png or .svg writes that
one only; the SVG keeps its text as text), and beside it OUT.csv holds the
values drawn (in the units of their source: a rate in b/s even where the axis
shows Gb/s), one row per point of a series, so a script or a test can read
back what a picture shows.
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
import matplotlib.lines  # noqa: E402
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

# Tick labels say the numbers themselves ("1e7" offsets are what SI-scaled units replace), and an
# SVG's text stays text, so it can be searched and edited.
plt.rcParams.update({"axes.formatter.useoffset": False, "svg.fonttype": "none"})

MAX_LINES = 20
# Ten colours, solid then dashed: up to MAX_LINES lines that differ in colour or in line style.
LINE_STYLES = [{"color": c, "linestyle": ls} for ls in ("-", "--") for c in plt.get_cmap("tab10").colors]


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


def number_text(v):
    """A number as a person writes it on an axis: 0.2, 5, 2,000, 1,500,000 (no exponent)."""
    return format(v, ",.10g")


def rounded(v):
    """A number to three significant digits, as number_text writes it: 686.592 -> 687."""
    return number_text(float(f"{v:.3g}"))


def human_time(ps):
    """A duration in ps with the unit that keeps it short: 1 ms, 300 us, 2.5 ns."""
    ps = float(f"{ps:.3g}")  # rounded first, so 999.9 us is 1 ms, never 1e+03 us
    for unit, div in (("s", 1e12), ("ms", 1e9), ("us", 1e6), ("ns", 1e3)):
        if ps >= div:
            return f"{ps / div:g} {unit}"
    return f"{ps:g} ps"


RATE_UNITS = (("_bps", "b/s"), ("_per_s", " ops/s"))  # M ops/s, but Mb/s
OTHER_UNITS = (("_ns", "ns"), ("_ps", "ps"), ("_bytes", "bytes"), ("_gbps", "Gb/s"))
SI_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def names_unit(name, suffix):
    """True when a column name ends in suffix, or in suffix and a label: throughput_bps[bulk_sl0]."""
    return re.search(re.escape(suffix) + r"(\[|$)", name) is not None


def axis_unit(name, values, text=None):
    """(divisor, label) of an axis drawing the column name: a rate (a name ending in _bps or _per_s) in
    the SI prefix of its largest value (Gb/s, M ops/s), other units as the name says them. text, when
    given, replaces the name in the label (a rate per second then reads "TEXT (M/s)")."""
    for suffix, unit in RATE_UNITS:
        if names_unit(name, suffix):
            top = max((abs(v) for v in values), default=0.0)
            divisor, prefix = next(((d, p) for d, p in SI_PREFIXES if top >= d), (1.0, ""))
            if text and unit.strip() == "ops/s":
                unit = "/s"
            return divisor, f"{text or name} ({(prefix + unit).strip()})"
    for suffix, unit in OTHER_UNITS:
        if names_unit(name, suffix):
            return 1.0, f"{text or name} ({unit})"
    return 1.0, text or name


def log_ticks(lo, hi):
    """Ticks across [lo, hi] on a log axis: powers of ten, else 1-2-5 steps, else every digit, whichever
    first gives three; on a range narrower than that its ends and middle."""
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for mantissas in ((1,), (1, 2, 5), range(1, 10)):
        ticks = [m * 10.0 ** e for e in range(first, last + 1) for m in mantissas if lo <= m * 10.0 ** e <= hi]
        if len(ticks) >= 3:
            return ticks
    return sorted({float(f"{v:.3g}") for v in (lo, math.sqrt(lo * hi), hi)})


def label_log_axis(axis, values, at_values=False):
    """Labels a log axis where its data is: at the values themselves (at_values, when at most 12: a
    sweep's x values), or by log_ticks across their range; no labels between."""
    values = sorted({v for v in values if v > 0})
    if not values:
        return
    ticks = values if at_values and len(values) <= 12 else log_ticks(values[0], values[-1])
    axis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: number_text(v)))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def legend(ax, left_out="", **kwargs):
    """The legend of ax's lines, and as its last entry what was left out (when something was); of
    more than 8 entries beside the axes, where it hides no line."""
    handles, labels = ax.get_legend_handles_labels()
    if left_out:
        handles.append(matplotlib.lines.Line2D([], [], linestyle="none"))
        labels.append(left_out)
    if len(labels) > 8 and "loc" not in kwargs:
        kwargs.update(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.legend(handles, labels, handlelength=3, **kwargs)  # long enough to show a dash


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


def read_sweep(table):
    """(path, rows, axes, metrics): a sweep's table and, from results.json beside it, which of its
    columns are axes and which metrics (none known without it)."""
    path = os.path.join(table, "results.csv") if os.path.isdir(table) else table
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file; accepted: a sweep's folder, its results.csv or its results.db")
    rows = read_sweep_rows(path)
    if not rows:
        raise BadInput(f"{path}: no rows")
    meta_path = os.path.join(os.path.dirname(path), "results.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    return path, rows, meta.get("axes", []), meta.get("metrics", [])


def tied_to(rows, column, keys):
    """True when column has one value for each combination of the keys' values (as a zip sweep's
    axes have for each other's)."""
    seen = {}
    return all(seen.setdefault(tuple(r[k] for k in keys), r[column]) == r[column] for r in rows)


def point_axes(rows, axes, a, where, x_is_axis):
    """(key, tied): the axis whose values are the points of a line (--x when it is an axis; for a
    metric on x the first axis that varies) and the other varying axes, each tied to it. An axis
    that varies apart from the key (and is not the series or fixed by --where) is refused."""
    varying = [ax for ax in axes if ax != a.series and ax not in where and len({r[ax] for r in rows}) > 1]
    key = a.x if x_is_axis else next(iter(varying), None)
    by = [c for c in (a.series, key) if c]
    for ax in varying:
        if ax != key and not tied_to(rows, ax, by):
            values = ", ".join(sorted({r[ax] for r in rows}, key=sort_key))
            whose = key if x_is_axis else f"{key}, whose values set the points of --x {a.x}"
            raise BadInput(f"axis {ax} varies and is not plotted (it is not tied to {whose}); accepted: "
                           f"--series {ax} or --where {ax}=VALUE (values: {values})")
    return key, [ax for ax in varying if ax != key]


def band(values, kind):
    """(mean, low, high) of values: low and high their min and max, or one standard deviation about
    the mean."""
    m = statistics.fmean(values)
    if kind == "std":
        d = statistics.stdev(values) if len(values) > 1 else 0.0
        return m, m - d, m + d
    return m, min(values), max(values)


def sweep_points(rows, a, key, shown, x_is_axis):
    """{series: {key value: {"y": [...], "x": [...], "axes": [...]}}}: each point's runs' y values,
    x values (a metric on x) and the values of the axes shown beside it; failed runs (exit code not
    0) and runs without numbers left out."""
    points = collections.defaultdict(dict)
    for r in rows:
        y, x = number(r[a.y]), None if x_is_axis else number(r[a.x])
        if r.get("exit_code", "0") != "0" or y is None or (x is None and not x_is_axis):
            continue
        p = points[r[a.series] if a.series else ""].setdefault(r[key] if key else "", {
            "y": [], "x": [], "axes": [r[c] for c in shown]})
        p["y"].append(y)
        if x is not None:
            p["x"].append(x)
    return points


def x_placement(keys, logx):
    """(place, numeric): place maps an axis value to where it is drawn (None where it cannot):
    numbers and percentages at their values; quantities with units (8KiB, 100m) at their magnitudes
    on a log axis, else evenly in order. numeric: the values are numbers."""
    ordered = sorted(keys, key=sort_key)
    if all(axis_number(k) is not None for k in ordered):
        return axis_number, True
    if logx and all(sort_key(k)[0] == 0 for k in ordered):
        return lambda k: sort_key(k)[1] if sort_key(k)[0] == 0 else None, False
    return lambda k: ordered.index(k) if k in ordered else None, False


def sweep_line(points, a, place):
    """One series' points in x order, each (x, CSV row after the series, tick label): x is the axis
    value placed by place, or with no place (a metric on x) the mean of the point's x values."""
    line = []
    for k, p in points.items():
        m, lo, hi = band(p["y"], a.band)
        if place:
            x, row = place(k), [k, m, lo, hi, len(p["y"])] + p["axes"]
        else:
            x = statistics.fmean(p["x"])
            row = [x, m, lo, hi, len(p["y"]), min(p["x"]), max(p["x"])] + p["axes"]
        line.append((x, row, " / ".join([k] + p["axes"])))
    return sorted(line, key=lambda point: point[0])


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


def draw_reference(ax, a, place, accepted, scale):
    """The --reference points as black crosses, x placed as the sweep's (a number for a metric on x);
    their CSV rows (series "reference: LABEL", 0 runs). scale: the axes' (x, y) divisors."""
    points = reference_points(a)
    pos = []
    for x, _ in points:
        p = place(x)
        if p is None:
            raise BadInput(f"--reference {a.reference}: x {x} is not a value of --x {a.x}; accepted: {accepted}")
        pos.append(p / scale[0])
    ax.plot(pos, [y / scale[1] for _, y in points], linestyle="none", marker="x", color="black", markersize=8,
            label=a.reference_label)
    return [[f"reference: {a.reference_label}", x, y, y, y, 0] for x, y in points]


def plot_sweep(a):
    path, rows, axes, metrics = read_sweep(a.table)
    columns = list(rows[0].keys())
    for flag, col in (("--x", a.x), ("--y", a.y), ("--series", a.series)):
        if col is not None and col not in columns:
            raise BadInput(f"{flag} {col}: not a column of {path}; accepted: {', '.join(columns)}")
    where = parse_where(a.where, columns, "--where", "AXIS", axes or columns)
    rows = [r for r in rows if all(r[k] == v for k, v in where.items())]
    x_is_axis = a.x not in metrics
    key, tied = point_axes(rows, axes, a, where, x_is_axis)
    shown = tied if x_is_axis else [c for c in [key] + tied if c]
    points = sweep_points(rows, a, key, shown, x_is_axis)
    if not points:
        raise BadInput(f"--y {a.y}: no run has a number there" + ("" if x_is_axis else f" and at --x {a.x}"))
    series = sorted(points, key=sort_key)
    drawn, left = series[:MAX_LINES], series[MAX_LINES:]
    keys = sorted({k for s in drawn for k in points[s]}, key=sort_key)
    place, numeric = x_placement(keys, a.logx) if x_is_axis else (axis_number, True)
    lines = {s: sweep_line(points[s], a, place if x_is_axis else None) for s in drawn}
    ydiv, ylabel = axis_unit(a.y, [row[1] for line in lines.values() for _, row, _ in line], a.ylabel)
    xdiv, xlabel = (axis_unit(a.x, [x for line in lines.values() for x, _, _ in line], a.xlabel) if numeric
                    else (1.0, a.xlabel or a.x))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.set_xscale("log" if a.logx else "linear")
    ax.set_yscale("log" if a.logy else "linear")
    out_rows, ticks = draw_sweep_lines(ax, a, lines, (xdiv, ydiv))
    if a.reference:
        accepted = ", ".join(keys) if x_is_axis else "a number"
        out_rows += [row + [""] * (len(out_rows[0]) - len(row))
                     for row in draw_reference(ax, a, place, accepted, (xdiv, ydiv))]
    percent = x_is_axis and any(k.strip().endswith("%") for k in keys)
    label_x_axis(ax, ticks if x_is_axis and (tied or not numeric) else {}, list(ticks), a.logx, percent)
    if a.logy:
        label_log_axis(ax.yaxis, [row[j] / ydiv for s in drawn for _, row, _ in lines[s] for j in (2, 3)])
    ax.set_xlabel(" / ".join([xlabel] + tied) if x_is_axis else xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{a.title or f'{a.y} against {a.x}'}\n{sweep_note(a, points, rows, where)}", fontsize=10)
    ax.grid(True, alpha=0.3)
    if a.series or len(series) > 1 or a.reference:
        legend(ax, f"{len(left)} more {a.series} values left out ({left[0]} to {left[-1]})" if left else "",
               fontsize=8)
    out = a.out or os.path.join(os.path.dirname(path), "plots", re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{a.y}_vs_{a.x}"))
    extra = ([] if x_is_axis else ["x_low", "x_high"]) + shown
    save(fig, out, ["series", "x", "mean", "low", "high", "runs"] + extra, out_rows)


def draw_sweep_lines(ax, a, lines, scale):
    """Each series' line of means and its band, in its own style. scale: the axes' (x, y) divisors.
    Returns the CSV rows and the tick label of each x drawn."""
    out_rows, ticks = [], {}
    for (s, line), style in zip(lines.items(), LINE_STYLES):
        xs = [x / scale[0] for x, _, _ in line]
        mean, lo, hi = ([row[j] / scale[1] for _, row, _ in line] for j in (1, 2, 3))
        ax.plot(xs, mean, marker="o", label=f"{a.series} = {s}" if a.series else (a.label or a.y), **style)
        ax.fill_between(xs, lo, hi, alpha=0.2, color=style["color"])
        out_rows += [[s] + row for _, row, _ in line]
        ticks.update((x, label) for x, (_, _, label) in zip(xs, line))
    return out_rows, ticks


def label_x_axis(ax, texts, positions, logx, percent):
    """x ticks. texts {position: label} (axis values that are not numbers, or that other axes are tied
    to: the tied values after a slash): each at its point; else on a log axis at the data's positions;
    else percentages (percent) as such."""
    if texts:
        ax.set_xticks(sorted(texts), [texts[x] for x in sorted(texts)])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        if len(texts) > 8:
            ax.tick_params(axis="x", labelrotation=45)
    elif logx:
        label_log_axis(ax.xaxis, positions, at_values=True)
    elif percent:
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter())


def sweep_note(a, points, rows, where):
    """The title's second line: runs per point, the band, the --where filters, failed runs."""
    runs = max(len(p["y"]) for s in points.values() for p in s.values())
    kind = "min to max" if a.band == "minmax" else "one standard deviation"
    note = f"mean of {runs} run{'s' if runs > 1 else ''} per point, band: {kind}"
    if where:
        note += "; " + ", ".join(f"{k} = {v}" for k, v in where.items())
    failed = sum(r.get("exit_code", "0") != "0" for r in rows)
    if failed:
        note += f"; {failed} failed run{'s' if failed > 1 else ''} left out"
    return note


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


def fastest_and_slowest(flows):
    """At most MAX_LINES flows to draw: all of them, or the quarter of MAX_LINES fastest and the
    rest slowest at p99 (equal p99s by name); and the legend's line about the others ("" when none
    is left out)."""
    if len(flows) <= MAX_LINES:
        return flows, ""
    flows = sorted(flows, key=lambda f: (f["latency"].get("p99_ns", 0), f["name"]))
    fast = MAX_LINES // 4
    slow = MAX_LINES - fast
    left = [f["latency"].get("p99_ns", 0) for f in flows[fast:-slow]]
    return (flows[:fast] + flows[-slow:],
            f"{len(left)} flows left out: p99 {rounded(left[0])} to {rounded(left[-1])} ns")


def flow_latency(flows, prefix, name):
    flows = [f for f in flows if f.get("latency", {}).get("count", 0) > 0]
    if not flows:
        return
    flows, left_out = fastest_and_slowest(flows)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.set_xscale("log")
    rows = []
    for f, style in zip(flows, LINE_STYLES):
        pts = percentile_points(f["latency"])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=f["name"], **style)
        rows += [[f["name"], x, q] for x, q in pts]
    label_log_axis(ax.xaxis, [r[1] for r in rows])
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel("fraction of packets at or below")
    ax.set_title(f"{name}: latency CDF per flow\n(straight lines between the reported min, percentiles and max)",
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    legend(ax, left_out, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
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
    fig.suptitle(f"{name}: switch ports over {human_time(sim)}", fontsize=11)
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
    try:
        pattern = re.compile(a.match) if a.match else None
    except re.error as e:
        raise BadInput(f"--match {a.match}: accepted: a Python regular expression ({e})") from e
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
    for label, style in zip(sorted(chosen, key=sort_key), LINE_STYLES):
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
        ax.plot(xs, ys, label=label, marker="." if len(xs) <= 60 else None, **style)
    ax.set_xlabel("simulated time (us)")
    if rate:
        ax.set_ylim(bottom=0)
    per = "" if width == 1 else f" of {width} samples"
    ax.set_ylabel(f"{metric} as Gb/s over each interval{per}" if rate else metric)
    shown = f"{len(chosen)} of {len(lines)}" if len(lines) > len(chosen) else f"{len(lines)}"
    ax.set_title(f"{metric} per {a.kind} over time ({shown}, largest by total)", fontsize=10)
    ax.grid(True, alpha=0.3)
    left = len(lines) - len(chosen)
    legend(ax, f"{left} more left out, smaller by total" if left else "", fontsize=7, ncol=2)
    out = a.out or os.path.join(os.path.dirname(path), "plots", f"timeseries_{a.kind}_{metric}")
    save(fig, out, ["series", "time_ps", "gbps" if rate else metric], out_rows)


class Parser(argparse.ArgumentParser):
    """argparse's, with its errors on one line."""

    def error(self, message):
        raise BadInput(f"{message}; see {self.prog} --help")


def whole_number(flag, lo, hi):
    """An argparse type: a whole number from lo to hi; else one line naming flag and the range."""
    def parse(text):
        if not re.fullmatch(r"[0-9]+", text) or not lo <= int(text) <= hi:
            raise BadInput(f"{flag} {text}: accepted: a whole number from {lo} to {hi}")
        return int(text)
    return parse


OUT_HELP = ("the files' name: OUT.png, OUT.svg and OUT.csv, the values drawn (an OUT ending in .png or .svg: "
            "that picture and the CSV)")


def sweep_parser(sub):
    sw = sub.add_parser("sweep", help="a metric against an axis or another metric, from a sweep's table",
                        description="A metric's mean over the runs of each point, against an axis or another metric, "
                        f"one line per value of --series (at most {MAX_LINES}), the runs' range as a band. Every axis "
                        "that varies is plotted, tied to the one on x (as a zip sweep's axes are: their values are "
                        "written beside x's) or fixed with --where. Failed runs are left out and counted in the title.")
    sw.add_argument("table", metavar="DIR|results.csv|results.db",
                    help="a sweep's folder, its results.csv or results.db")
    sw.add_argument("--x", required=True, metavar="COLUMN",
                    help="on the x axis: an axis (the points at its values) or a metric (each point at the mean of "
                    "its runs' values, e.g. qps_per_machine; the sweep's first varying axis sets the points)")
    sw.add_argument("--y", required=True, metavar="METRIC",
                    help="on the y axis; a rate (a name ending in _bps or _per_s) in SI units: Gb/s, M ops/s")
    sw.add_argument("--series", metavar="AXIS",
                    help=f"one line per value of this axis; over {MAX_LINES} values the first {MAX_LINES} in order, "
                    "the legend says how many were left out")
    sw.add_argument("--where", action="append", default=[], metavar="AXIS=VALUE",
                    help="only the runs with this value of an axis (repeatable)")
    sw.add_argument("--band", choices=["minmax", "std"], default="minmax",
                    help="the band about each mean: the runs' min to max (minmax, the default) or one standard "
                    "deviation (std)")
    sw.add_argument("--logx", action="store_true",
                    help="a log x axis, labelled at the points; quantities with units placed at their magnitudes")
    sw.add_argument("--logy", action="store_true", help="a log y axis, labelled across the values drawn")
    sw.add_argument("--title", metavar="TEXT", help="the title's first line (default: Y against X)")
    sw.add_argument("--label", metavar="TEXT", help="the line's name in the legend without --series (default: Y)")
    sw.add_argument("--xlabel", metavar="TEXT",
                    help="the x axis's name in place of the column's (its unit is still added, e.g. 'QPs per machine')")
    sw.add_argument("--ylabel", metavar="TEXT",
                    help="the y axis's name in place of the column's (its unit is still added: 'READs per machine' "
                    "on a _per_s metric reads 'READs per machine (M/s)')")
    sw.add_argument("--out", metavar="OUT", help=OUT_HELP + "; default DIR/plots/Y_vs_X")
    sw.add_argument("--reference", metavar="FILE.csv",
                    help="published points drawn as black crosses: a CSV with a header ('#' lines are comments), x "
                    "a value of --x, y in the metric's units; in OUT.csv as the series 'reference: LABEL'")
    sw.add_argument("--reference-x", default="x", metavar="COL", help="the reference's x column (default: x)")
    sw.add_argument("--reference-y", default="y", metavar="COL", help="the reference's y column (default: y)")
    sw.add_argument("--reference-where", action="append", default=[], metavar="COL=VALUE",
                    help="only the reference rows with this value (repeatable)")
    sw.add_argument("--reference-label", default="reference", metavar="TEXT",
                    help="the reference's name in the legend (default: reference)")


def run_parser(sub):
    rn = sub.add_parser("run", help="per-flow throughput and latency, switch ports as a heat map",
                        description="From one run's results.db (or details.json): PREFIX_throughput (each flow's), "
                        "PREFIX_latency (each flow's CDF through the reported min, percentiles and max; over "
                        f"{MAX_LINES} flows the {MAX_LINES // 4} fastest and {MAX_LINES - MAX_LINES // 4} slowest at "
                        "p99, the legend says how many were left out) and, with switches, PREFIX_ports (every switch "
                        "port's utilisation and credit-stall share as heat maps, switches by level).")
    rn.add_argument("run", metavar="DIR", help="a run's output folder, or its stats.json")
    rn.add_argument("--out", metavar="PREFIX", help="the files' prefix (default: DIR/plots/SCENARIO)")


def timeseries_parser(sub):
    ts = sub.add_parser("timeseries", help="a run's time series",
                        description="One line per port and VL, flow or QP of timeseries.csv over time: byte counts as "
                        "Gb/s over their interval, other metrics as sampled.")
    ts.add_argument("series_file", metavar="DIR|timeseries.csv",
                    help="a run's folder with timeseries.csv (outputs.sample_interval), or the file")
    ts.add_argument("--kind", choices=["port", "flow", "qp"], default="flow",
                    help="whose lines: port (one per port and VL), flow (the default) or qp")
    ts.add_argument("--metric", metavar="METRIC", help="the metric drawn (default: the kind's first by name)")
    ts.add_argument("--match", metavar="REGEX", help="only the lines whose label (the name, VLn for ports) matches")
    ts.add_argument("--top", type=whole_number("--top", 1, MAX_LINES), default=8, metavar="N",
                    help=f"the N lines largest by their total, 1 to {MAX_LINES} (default 8); the legend says how "
                    "many more matched")
    ts.add_argument("--bin", type=whole_number("--bin", 0, 10**6), default=0, metavar="K",
                    help="byte counts summed over K intervals (default 0: enough for at most 60 points a line)")
    ts.add_argument("--out", metavar="OUT", help=OUT_HELP + "; default DIR/plots/timeseries_KIND_METRIC")


def main(argv):
    p = Parser(prog="hcasim plot", description=__doc__.split("\n")[0],
               epilog="hcasim plot KIND --help: its options; docs/plots.md: examples")
    sub = p.add_subparsers(dest="what", required=True, parser_class=Parser, metavar="sweep|run|timeseries")
    for add in (sweep_parser, run_parser, timeseries_parser):
        add(sub)
    a = p.parse_args(argv)
    {"sweep": plot_sweep, "run": plot_run, "timeseries": plot_timeseries}[a.what](a)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BadInput as e:
        print(f"hcasim: plot: {e}", file=sys.stderr)
        sys.exit(2)
