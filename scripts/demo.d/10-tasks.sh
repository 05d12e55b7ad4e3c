# The session task list: a week of an agent's work in sessions/default.jsonl, with a compaction.
echo "== session task list (sessions/default.jsonl: a week of work, compacted on Wednesday)"
run task list
run session check
run session brief
run task history 2
run task list --as-of 2026-11-24T12:00:00Z
run task update 6 --status inprogress
run task create 'Tag v0.4.0' --description 'after the release note is merged'
run session compact-context
echo
echo "# the same log read by an agent through the tool interface"
run tools call TaskGet --input '{"taskid":3}'
echo
echo "# a Claude Code transcript, read-only: the live branch after a rewind and a compaction"
run task list --session "$OLDPWD/fixtures/claude/transcript.jsonl"
