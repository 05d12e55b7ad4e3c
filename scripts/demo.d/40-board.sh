# Board search: people search every card, summary, note, workpad, idea, deliverable and project
# memory of the Tinylink board; an agent working on card tl-18 searches its own project.
echo
echo "== board search (board.json: Tinylink, Tinylink mobile and an archived project)"
run board import board.json
run board search 迁移
run board search 迁移 --project tinylink --sources summary,note,workpad
run board search 'rate limit' --sources note,workpad
run board search '#module/auth login' --all-projects
run board search '"Retry-After"' TL-47
run board search ＳＱＬｉｔｅ 端末
run board search TL-42 --json
echo
echo "# the agent view (flowly_search): card tl-18's project only, tl-18 itself excluded, no memory"
run board search 迁移 --card tl-18
run board search 回滚 --card tl-18 --json
echo
echo "# errors: an archived project, a bad limit"
run board search 迁移 --project old-dashboard
run board search 迁移 --limit 0
