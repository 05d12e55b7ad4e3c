# The session task list: plan, work, compact, resume.
echo "== session task list"
run task create "ログイン画面の改修" --description "既存の認証フローは変更しない"
run task create "Write the SQLite migration"
run task update 1 --status inprogress
run task list
run session compact --summary "Login screen in progress; migration next."
run task update 1 --status completed
run task history 1
run task list --as-of 3
run session check
