#!/usr/bin/env python3
"""validate_json.py SCHEMA FILE...: each FILE (a JSON document, or JSON lines for *.jsonl)
validated against SCHEMA (JSON Schema 2020-12, with python3-jsonschema); exit 1 naming the
first file, line and path that does not conform."""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    checked = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            docs = ([(i + 1, json.loads(l)) for i, l in enumerate(f) if l.strip()]
                    if path.endswith(".jsonl") else [(1, json.load(f))])
        for line, doc in docs:
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            if errors:
                e = errors[0]
                print("%s:%d: %s: %s" % (path, line, "/".join(map(str, e.path)) or "(top)",
                                         e.message[:300]), file=sys.stderr)
                return 1
            checked += 1
    print("validate_json: %d documents conform to %s" % (checked, sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
