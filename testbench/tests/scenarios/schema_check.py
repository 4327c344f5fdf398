#!/usr/bin/python3
"""Checks scenario files against hcasim's JSON Schema with Debian's python3-jsonschema.

usage: schema_check.py SCHEMA [--check-schema] [FILE ...]

--check-schema: the schema is valid draft 2020-12 (its meta-schema), every "pattern" compiles,
every "default" is valid against the schema it sits in, and every parameter (a property
reached through properties and items) constrains its value (type, anyOf, enum or const).
Each FILE: one line, "ok FILE" or "invalid FILE PATH: MESSAGE" (PATH the JSON path of the
most relevant error, dot-separated). Exit 0 when the schema and every file are valid, 1 when
one is not, 2 for bad arguments.
"""
import json
import re
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


def subschemas(node):
    """Every schema object inside a schema (dicts that are schemas, not property maps)."""
    if isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from subschemas(sub)
            elif key in ("items", "not", "if", "then", "else", "additionalProperties"):
                yield from subschemas(value)
            elif key in ("anyOf", "oneOf", "allOf"):
                for sub in value:
                    yield from subschemas(sub)


def unconstrained(node, path):
    """Paths of the parameters whose schema states no type, alternatives or values."""
    for key, sub in node.get("properties", {}).items():
        if not any(k in sub for k in ("type", "anyOf", "enum", "const")):
            yield path + key
        yield from unconstrained(sub, path + key + ".")
    if isinstance(node.get("items"), dict):
        yield from unconstrained(node["items"], path + "[].")


def check_schema(schema):
    problems = ["%s states no constraint" % p for p in unconstrained(schema, "")]
    try:
        Draft202012Validator.check_schema(schema)
    except Exception as e:  # SchemaError
        problems.append("not valid draft 2020-12: %s" % e.message)
    for sub in subschemas(schema):
        if "pattern" in sub:
            try:
                re.compile(sub["pattern"])
            except re.error as e:
                problems.append("pattern %r does not compile: %s" % (sub["pattern"], e))
        if "default" in sub:
            error = best_match(Draft202012Validator(sub).iter_errors(sub["default"]))
            if error is not None:
                problems.append("default %s is invalid: %s" % (json.dumps(sub["default"]), error.message))
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    ok = True
    files = argv[2:]
    if files and files[0] == "--check-schema":
        files = files[1:]
        for problem in check_schema(schema):
            print("schema: " + problem)
            ok = False
    validator = Draft202012Validator(schema)
    for name in files:
        with open(name, encoding="utf-8") as f:
            scenario = json.load(f)
        error = best_match(validator.iter_errors(scenario))
        if error is None:
            print("ok " + name)
        else:
            path = ".".join(str(p) for p in error.absolute_path)
            print("invalid %s %s: %s" % (name, path, error.message))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
