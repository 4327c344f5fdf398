#!/usr/bin/python3
"""Checks runs' results.db with Python's own sqlite3 module, without hcasim's code.

usage: results_db_check.py REFERENCE.md RUN_DIR ...

Each RUN_DIR is a run with outputs.details "both": stats.json, results.db and details.json.
For each: every table of results.db is documented in REFERENCE.md (docs/results-db.md) with
exactly its columns, in order; every documented table is there; each table's row count is
what details.json's objects give (and, for port_vls, the rows plus the ones stats.json says
were left out); and each row equals its object, value for value: every value of the object
(nested keys joined by "_", any character other than a-z, 0-9 and _ written as _) is the
column of that name, booleans as 0 or 1, lists as their JSON text; columns the object lacks
are NULL. pandas (Debian's python3-pandas) reads the flows table to the summary's totals.
Prints "ok RUN_DIR: ..." per run; exit 0 when every run passes, 1 when one does not,
2 for bad arguments.
"""
import json
import os
import re
import sqlite3
import sys

import pandas

# table -> (kind in details.json, the list inside each object its rows come from ("" = the
# object itself), the key columns taken from the object, by column name -> object key)
TABLES = {
    "ports": ("ports", "", {}),
    "port_vls": ("ports", "vls", {"port": "name"}),
    "switches": ("switches", "", {}),
    "flows": ("flows", "", {}),
    "qps": ("qps", "", {}),
    "engines": ("engines", "", {}),
    "hosts": ("hosts", "", {}),
    "swarm_machines": ("swarms", "machines", {"swarm": "name"}),
    "cc_hca_ports": ("cc_hca_ports", "", {"hca": "name"}),
    "cc_switch_vls": ("cc_switches", "vls", {"switch": "name"}),
    "sa_transfers": ("sa_servers", "transfers", {"server": "node"}),
}
# Object keys that are tables of their own (or, for caches, of their own rows).
NESTED = {"ports": {"vls", "faults"}, "hosts": {"caches"}, "swarms": {"machines"},
          "cc_hca_ports": {"cctis"}, "sa_servers": {"transfers"}, "cc_switches": {"vls"}}


def column(path):
    return re.sub(r"[^a-z0-9_]", "_", path)


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def documented(reference):
    """{table: [columns]} from the reference's "## `table`" headings and "| `column` |" rows."""
    tables, current = {}, None
    for line in open(reference):
        m = re.match(r"## `([a-z_0-9]+)`", line)
        if m:
            current = tables.setdefault(m.group(1), [])
            continue
        m = re.match(r"\| `([^`]+)` \|", line)
        if m and current is not None:
            current.append(m.group(1))
    return tables


def as_stored(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, list):
        return json.dumps(v, separators=(",", ":"))
    return v


def all_zero(row, keys):
    return all(v in (None, 0, 0.0) for k, v in row.items() if k not in keys)


def check_run(reference, run):
    problems = []
    tables_doc = documented(reference)
    db = sqlite3.connect(f"file:{os.path.join(run, 'results.db')}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    details = json.load(open(os.path.join(run, "details.json")))
    stats = json.load(open(os.path.join(run, "stats.json")))
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    for t in names:
        cols = [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')]
        if tables_doc.get(t) != cols:
            problems.append(f"table {t}: columns {cols} but the reference documents {tables_doc.get(t)}")
    for t in tables_doc:
        if t not in names:
            problems.append(f"table {t}: documented but not in results.db")
    checked = rows_seen = 0
    for table, (kind, each, keys) in TABLES.items():
        rows = [dict(r) for r in db.execute(f'SELECT * FROM "{table}" ORDER BY rowid')]
        rows_seen += len(rows)
        expected = []
        for obj in details.get(kind, []):
            sources = [obj] if not each else obj.get(each, [])
            for src in sources:
                values = flatten({k: v for k, v in src.items() if not (not each and k in NESTED.get(kind, ()))})
                for col, key in keys.items():
                    values[col] = obj[key]
                expected.append(values)
        omitted = stats["details"]["tables"][table]["omitted"]
        if table == "port_vls":  # rows all 0 are left out, and counted
            kept = []
            for e in expected:
                as_row = {column(k): as_stored(v) for k, v in e.items()}
                if not all_zero(as_row, {"port", "vl"}):
                    kept.append(e)
            if len(expected) - len(kept) != omitted:
                problems.append(f"{table}: {len(expected) - len(kept)} rows all 0, stats.json says {omitted} left out")
            expected = kept
        elif omitted != 0:
            problems.append(f"{table}: {omitted} rows left out, though no rule leaves any out")
        if len(rows) != len(expected):
            problems.append(f"{table}: {len(rows)} rows, {len(expected)} objects in details.json")
            continue
        if stats["details"]["tables"][table]["rows"] != len(rows):
            problems.append(f"{table}: stats.json counts {stats['details']['tables'][table]['rows']} rows, "
                            f"results.db has {len(rows)}")
        for i, (row, values) in enumerate(zip(rows, expected)):
            seen = set()
            for path, v in values.items():
                c = column(path)
                seen.add(c)
                if c not in row:
                    problems.append(f"{table} row {i}: no column {c} for {path}")
                elif row[c] != as_stored(v):
                    problems.append(f"{table} row {i}: {c} = {row[c]!r}, details.json {path} = {v!r}")
                checked += 1
            for c, v in row.items():
                if c not in seen and v is not None:
                    problems.append(f"{table} row {i}: {c} = {v!r} but the object has no such value")
    # pandas reads the same rows; the summary's totals are their sums.
    frame = pandas.read_sql_query("SELECT * FROM flows", sqlite3.connect(os.path.join(run, "results.db")))
    if len(frame) != stats["flows"]["count"]:
        problems.append(f"pandas reads {len(frame)} flows, stats.json counts {stats['flows']['count']}")
    elif len(frame) and int(frame["packets_delivered"].sum()) != stats["flows"]["totals"]["packets_delivered"]:
        problems.append("pandas: the flows' packets_delivered do not sum to stats.json's total")
    # The counts the summary gives are the tables'.
    for table, kind in (("ports", "ports"), ("flows", "flows"), ("qps", "qps"), ("hosts", "hosts")):
        if stats[kind]["count"] != db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]:
            problems.append(f"stats.json {kind}.count {stats[kind]['count']} is not the {table} table's rows")
    return problems, len(names), rows_seen, checked


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    failed = False
    for run in argv[2:]:
        problems, tables, rows, values = check_run(argv[1], run)
        for p in problems[:20]:
            print(f"{run}: {p}")
        if problems:
            failed = True
        else:
            print(f"ok {run}: {tables} tables, {rows} rows, {values} values as in details.json")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
