# Space conversation search: an agent working on task 30 looks up what the other tasks of its
# space already asked and decided (SearchWorkspaceTasks).
echo
echo "== space conversation search"
run space import space.jsonl
run space search 認証 --user bob --task 30
run space search rate limit --kind result --user bob --task 30
run space search staging --user bob --task 30
run space search --around comment:184 --context 1 --user bob --task 30
run space search 迁移 --json --user bob --task 30
run space search 認証 --task 30
run space search 認証 --user bob --task 31
run space search 認証 --user mallory --task 30
