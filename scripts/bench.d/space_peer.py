#!/usr/bin/env python3
"""The naive peer of `cairn space import`: Python's stdlib sqlite3 (the C SQLite) reading the same
JSON Lines file, one INSERT per comment into a content table and one into an FTS5 trigram table,
in one transaction. No folding, no redaction, no upserts by id.
Usage: space_peer.py FILE.jsonl OUT.db"""
import json
import sqlite3
import sys

src, out = sys.argv[1], sys.argv[2]
db = sqlite3.connect(out)
db.execute("PRAGMA journal_mode=wal")
db.execute("PRAGMA synchronous=normal")
db.execute("CREATE TABLE comments (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, "
           "kind TEXT NOT NULL, author TEXT NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL)")
db.execute("CREATE VIRTUAL TABLE comments_fts USING fts5(body, tokenize='trigram')")
n = 0
with open(src, encoding="utf-8") as f, db:
    for line in f:
        rec = json.loads(line)
        if rec.get("type") != "comment":
            continue
        cur = db.execute("INSERT INTO comments(id, task, kind, author, created_at, body) VALUES (?, ?, ?, ?, ?, ?)",
                         (str(rec["id"]), str(rec["task"]), rec["kind"], rec.get("author", ""), rec["created_at"], rec.get("body", "")))
        db.execute("INSERT INTO comments_fts(rowid, body) VALUES (?, ?)", (cur.lastrowid, rec.get("body", "")))
        n += 1
db.close()
print(n)
