#!/usr/bin/env python3
"""A Claude Code hook command that appends its JSON input to the file named by argv[1]."""
import json
import sys

data = sys.stdin.read()
try:
    rec = json.loads(data)
except ValueError:
    rec = {"_raw": data}
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(rec) + "\n")
