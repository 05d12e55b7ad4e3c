# Memory and knowledge: search, read by ref, write, edit with a guard against stale writes.
echo; echo "== memory and knowledge"
run memory search sqlite --context 1
run memory search 'ログイン画面' --context 0
run knowledge search 'api/session' --context 0
run knowledge search cookie --kind reference --json
run memory read decision:short-code-length
run memory read '#缓存策略' --json

echo; echo "\$ cairn memory write decision link-expiry <<'EOF' ..."
"$CAIRN" memory write decision link-expiry <<'EOT'
---
title: Links expire after 90 days without clicks
status: proposed
---
# Decision: expire idle links

Links with no clicks for 90 days are disabled, not deleted; the owner can revive them.
Paid accounts keep their links forever.
EOT
sha=$("$CAIRN" memory read decision link-expiry --json | sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p')
echo; echo "\$ sha=\$(cairn memory read decision link-expiry --json | jq -r .sha256)   # $sha"
run memory edit decision link-expiry --old 'status: proposed' --new 'status: accepted' --expect-sha256 "$sha"
run memory edit decision link-expiry --old 'links' --new 'URLs'
run memory edit decision link-expiry --old '90 days' --new '180 days' --expect-sha256 "$sha"
run memory edit decision link-expiry --old '90 days' --new '180 days' --all
run memory read decision link-expiry
run memory read decision link-expire
