# Team space (issue 25, point 6): one generated space of $TEAM_N comments (2,000,000; SCALE=0.05
# for 100,000) loaded into two `cairn serve` team servers, the SQLite store (the default) and the
# PostgreSQL store (--store postgres://...), then searched by $TEAM_CLIENTS (200) concurrent
# clients. Push: `cairn space import` of the generated file into a fresh workspace (the local
# import), then `cairn space push` of that workspace to one server; again for the other, so each
# push stands beside an import of the same data in the same run. Search: scripts/loadgen -space
# (POST /team/v1/search with the member's token) cycling through queries scripts/gen-terms
# sampled from the pushed space (frequency bands 0 to 10k+ matches, ASCII and CJK, 1 to 6
# characters, single terms and pairs; $TEAM_PER_CELL per band x script x shape), one warm-up of
# 5 s per server, then $TEAM_ROUNDS rounds of $TEAM_SECONDS s per server (SQLite first in odd
# rounds, PostgreSQL first in even ones) after one 1-client run each. Writes the team section of
# docs/benchmarks.md.
#
# PostgreSQL: a throwaway cluster started by scripts/pg-test.sh (initdb in a temporary folder, a
# unix socket, fsync off, max_connections 200, stopped and removed afterwards), in which this
# section runs itself again; or, when CAIRN_TEST_POSTGRES is already set (scripts/pg-test.sh
# scripts/bench.sh team, or a server of your own), that server, in a database
# cairn_team_bench made afresh. Without PostgreSQL the SQLite server alone is measured.
#
#   scripts/bench.sh team                    # 2,000,000 comments (about 25 minutes on 2 cores)
#   SCALE=0.05 scripts/bench.sh team         # 100,000 comments, a quick run
#   TEAM_SECONDS=10 TEAM_ROUNDS=1 ...        # shorter search runs
# The generated file stays in $BENCH_DIR (team-N.jsonl); everything else is made afresh.
if [ "${TEAM_CHILD:-}" != 1 ]; then
  # the body runs in its own shell: errexit, and its servers stopped on any exit
  if [ -n "${CAIRN_TEST_POSTGRES:-}" ]; then
    TEAM_CHILD=1 bash scripts/bench.d/team.sh || echo "  the team section failed" >&2
  else
    TEAM_CHILD=1 scripts/pg-test.sh bash scripts/bench.d/team.sh || echo "  the team section failed" >&2
  fi
  return 0 2>/dev/null || exit 0
fi
set -euo pipefail
team_t0=$(date +%s)
SCALE=${SCALE:-1}
TEAM_N=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 2000000 * s + 0.5 }')
TEAM_CLIENTS=${TEAM_CLIENTS:-200}
TEAM_SECONDS=${TEAM_SECONDS:-20}
TEAM_ROUNDS=${TEAM_ROUNDS:-2}
TEAM_PER_CELL=${TEAM_PER_CELL:-20}
TEAM_ONE_SECONDS=${TEAM_ONE_SECONDS:-10}
dir="$BENCH_DIR/team"
src="$BENCH_DIR/team-$TEAM_N.jsonl"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
rm -rf "$dir"
mkdir -p "$dir"
gen_note=" (it was there already)"
if [ ! -f "$src" ]; then
  go run ./scripts/gen-space -comments "$TEAM_N" -out "$src"
  gen_note=""
fi
go build -o "$BENCH_DIR/loadgen" ./scripts/loadgen
load() { cut -d' ' -f1 /proc/loadavg; }
now() { date +%s.%N; }
# cpu PID...: the CPU seconds (user + system) the processes have used
cpu() {
  local p t=0
  for p in "$@"; do
    t=$(awk -v t="$t" -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", t + ($14 + $15) / hz }' "/proc/$p/stat" 2>/dev/null || echo "$t")
  done
  echo "$t"
}
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
field() { printf '%s\n' "$2" | head -1 | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }

stores=sqlite
pg_url=""
psql_bin=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1 || true)
if [ -n "${CAIRN_TEST_POSTGRES:-}" ] && [ -n "$psql_bin" ]; then
  db=cairn_team_bench
  "$psql_bin" "$CAIRN_TEST_POSTGRES" -qAtX -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
    -c "CREATE DATABASE $db TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8'" >/dev/null
  case "$CAIRN_TEST_POSTGRES" in
    postgres://* | postgresql://*)
      pg_url=$(printf '%s' "$CAIRN_TEST_POSTGRES" | sed -E 's|^(postgres(ql)?://[^/]*)/[^?]*|\1/'"$db"'|') ;;
    *) # key=value, as scripts/pg-test.sh gives it: host, port and user into a URL
      kv() { printf '%s\n' "$CAIRN_TEST_POSTGRES" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
      pg_url="postgres://$(kv user)@/$db?host=$(kv host)&port=$(kv port)&sslmode=disable" ;;
  esac
  pg_version=$("$psql_bin" "$pg_url" -qAtX -c "SHOW server_version")
  stores="sqlite postgres"
  # the cluster's processes, for their CPU time: the postmaster's children alive and, in the
  # postmaster's own counts, those it reaped (pgx closes a connection whose search was cancelled)
  pg_datadir=$("$psql_bin" "$pg_url" -qAtX -c "SHOW data_directory" 2>/dev/null || true)
  pg_pm=$(head -1 "$pg_datadir/postmaster.pid" 2>/dev/null || true)
else
  echo "  no PostgreSQL (no initdb, or CAIRN_TEST_POSTGRES without psql): the SQLite server alone" >&2
fi
label() { [ "$1" = sqlite ] && echo SQLite || echo PostgreSQL; }

# serve_start STORE: a server workspace with one member (its token in a 0600 file) and its
# server on a free port; sets URL_<store>, PID_<store>
declare -A URL PID
serve_start() {
  local s=$1 sw="$dir/server-$1" args=()
  [ "$s" = postgres ] && args=(--store "$pg_url")
  "$CAIRN" init "$sw" >/dev/null
  (umask 077 && "$CAIRN" -C "$sw" --json serve member add bench --space team "${args[@]}" |
    sed -n 's/^ *"token": "\(.*\)".*/\1/p' >"$dir/token-$s")
  "$CAIRN" -C "$sw" serve --addr 127.0.0.1:0 "${args[@]}" 2>"$dir/server-$s.log" &
  PID[$s]=$!
  pids+=("${PID[$s]}")
  for _ in $(seq 300); do
    URL[$s]=$(grep -o 'http://[^/ ]*' "$dir/server-$s.log" | head -1 || true)
    [ -n "${URL[$s]}" ] && return 0
    sleep 0.1
  done
  echo "  the $s server did not start:" >&2
  cat "$dir/server-$s.log" >&2
  return 1
}
# store_cpu STORE: CPU seconds of the server and, for PostgreSQL, of the cluster's processes
# (when the cluster runs here: its postmaster.pid readable)
store_cpu() {
  if [ "$1" = postgres ] && [ -n "$pg_pm" ] && [ -r "/proc/$pg_pm/stat" ]; then
    local reaped
    reaped=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($16 + $17) / hz }' "/proc/$pg_pm/stat")
    # shellcheck disable=SC2046
    awk -v a="$reaped" -v b="$(cpu "${PID[$1]}" "$pg_pm" $(ps -o pid= --ppid "$pg_pm"))" 'BEGIN { printf "%.2f", a + b }'
  else
    cpu "${PID[$1]}"
  fi
}
store_size() {
  if [ "$1" = postgres ]; then
    "$psql_bin" "$pg_url" -qAtX -c "SELECT round(pg_database_size(current_database()) / 1048576.0)"
  else
    du -cm "$dir/server-sqlite"/spaces.db* | tail -1 | cut -f1
  fi
}

echo "  $TEAM_N comments ($(du -m "$src" | cut -f1) MB of JSON Lines); stores: $stores${pg_version:+ (PostgreSQL $pg_version)}"
push_rows="$dir/push.tsv"
: >"$push_rows"
for s in $stores; do
  serve_start "$s"
  cw="$dir/client-$s"
  "$CAIRN" init "$cw" >/dev/null
  l=$(load); t0=$(now)
  /usr/bin/time -o "$dir/.time" -f "%M" "$CAIRN" -C "$cw" space import "$src" >/dev/null
  t1=$(now)
  rss=$(awk '{ printf "%.0f", $1 / 1024 }' "$dir/.time")
  local_mb=$(du -cm "$cw"/spaces.db* | tail -1 | cut -f1)
  printf 'import\t%s\t%s\t%s\t-\t%s\t%s\n' "$s" "$(sub "$t1" "$t0")" "$rss" "$local_mb" "$l" >>"$push_rows"
  echo "  cairn space import (local, before the $(label "$s") push): $(sub "$t1" "$t0") s, load $l"
  sed -i 's|^\[space\]$|[space]\nserver = "'"${URL[$s]}"'"\nteam = "team"|' "$cw/cairn.toml"
  l=$(load); c0=$(store_cpu "$s"); t0=$(now)
  CAIRN_TOKEN_FILE="$dir/token-$s" /usr/bin/time -o "$dir/.time" -f "%M" "$CAIRN" -C "$cw" space push >"$dir/push-$s.out"
  t1=$(now); c1=$(store_cpu "$s")
  rss=$(awk '{ printf "%.0f", $1 / 1024 }' "$dir/.time")
  # statistics for the planner now, as autovacuum gives them a minute or so after a write
  [ "$s" = postgres ] && "$psql_bin" "$pg_url" -qAtX -c "ANALYZE"
  printf 'push\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$(sub "$t1" "$t0")" "$rss" "$(sub "$c1" "$c0")" "$(store_size "$s")" "$l" >>"$push_rows"
  echo "  cairn space push to the $(label "$s") server: $(sub "$t1" "$t0") s ($(cat "$dir/push-$s.out")), load $l"
done

# the queries: sampled from the pushed space (the SQLite server's spaces.db holds it)
go run ./scripts/gen-terms -db "$dir/server-sqlite/spaces.db" -space team -per-cell "$TEAM_PER_CELL" -out "$dir/terms.tsv" 2>"$dir/terms.log"
tail -1 "$dir/terms.log" | sed 's/^/  /'

# loadgen_run STORE CLIENTS SECONDS: one run, its output in LG; CPU of the store and of loadgen
loadgen_run() {
  local s=$1 c0 c1
  c0=$(store_cpu "$s")
  LG=$(/usr/bin/time -o "$dir/.lgtime" -f "%U %S" "$BENCH_DIR/loadgen" -url "${URL[$s]}" -token-file "$dir/token-$s" \
    -space team -terms "$dir/terms.tsv" -c "$2" -d "${3}s" 2>"$dir/loadgen-$s.err" || true)
  c1=$(store_cpu "$s")
  LG_CPU=$(sub "$c1" "$c0")
  LG_SELF=$(tail -1 "$dir/.lgtime" | awk '{ printf "%.1f", $1 + $2 }') # after "Command exited with non-zero status"
  LG_ERR=$(head -c 300 "$dir/loadgen-$s.err" | tr '\n\t' '  ')
}
search_rows="$dir/search.tsv"
: >"$search_rows"
for s in $stores; do loadgen_run "$s" "$TEAM_CLIENTS" 5; done # warm-up, not recorded
for s in $stores; do
  l=$(load)
  loadgen_run "$s" 1 "$TEAM_ONE_SECONDS"
  printf '%s\n' "$LG" | grep '^band=' | sed "s/^/$s\t1\t/" >>"$dir/bands.tsv"
  printf '%s\t1 client\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$(field requests "$LG")" "$(field rps "$LG")" \
    "$(field p50_ms "$LG")" "$(field p99_ms "$LG")" "$(field errors "$LG")" "$LG_CPU" "$LG_SELF" "$l" "$(field seconds "$LG")" "$LG_ERR" >>"$search_rows"
  echo "  $(label "$s"), 1 client: $(head -1 <<<"$LG"), load $l"
done
for r in $(seq "$TEAM_ROUNDS"); do
  order=$stores
  [ $((r % 2)) = 0 ] && order=$(printf '%s\n' $stores | tac | tr '\n' ' ')
  for s in $order; do
    l=$(load)
    loadgen_run "$s" "$TEAM_CLIENTS" "$TEAM_SECONDS"
    printf '%s\tround %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$r" "$(field requests "$LG")" "$(field rps "$LG")" \
      "$(field p50_ms "$LG")" "$(field p99_ms "$LG")" "$(field errors "$LG")" "$LG_CPU" "$LG_SELF" "$l" "$(field seconds "$LG")" "$LG_ERR" >>"$search_rows"
    printf '%s\n' "$LG" | grep '^band=' | sed "s/^/$s\t$TEAM_CLIENTS\t/" >>"$dir/bands.tsv"
    echo "  $(label "$s"), $TEAM_CLIENTS clients, round $r: $(head -1 <<<"$LG"), load $l"
  done
done
rss_of() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/${PID[$1]}/status" 2>/dev/null || echo -; }
declare -A RSS
for s in $stores; do RSS[$s]=$(rss_of "$s"); done
cleanup
pids=()

# the section
md="$dir/team.md"
machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)"
{
  echo "## Team space"
  echo
  echo "Written by \`scripts/bench.sh team\` on $(date -u +%F) at $(git rev-parse --short HEAD), $TEAM_N comments (SCALE=$SCALE of 2,000,000)"
  echo "pushed to one team space; $machine${pg_version:+, PostgreSQL $pg_version}. The machine is shared: the load"
  echo "average (1 minute) is given beside each figure, and cairn, PostgreSQL, the clients and the"
  echo "load generator share its $(nproc) cores. Regenerate with \`scripts/bench.sh team\` (\`SCALE=0.05\` for 100,000"
  echo "comments); it rewrites only this section. This run took $(( ($(date +%s) - team_t0 + 30) / 60 )) minutes, generating the file included$gen_note."
  echo
  echo "The data: \`scripts/gen-space\` (tasks of 100 comments of 8 to 37 words, Japanese, Chinese and English,"
  echo "every kind; a tool call's body never leaves a machine, so a fifth of the comments arrive with only their"
  echo "tool name). The SQLite server is \`cairn serve\` on its workspace's spaces.db; the PostgreSQL server is"
  echo "\`cairn serve --store postgres://…\` on a throwaway cluster of \`scripts/pg-test.sh\` (defaults but fsync"
  echo "off and 200 connections; shared_buffers 128 MB), both on loopback."
  echo
  echo "### Push"
  echo
  echo "Each push is of a fresh workspace into which the same file was just imported (the local import"
  echo "row above it), so every push sends all $TEAM_N comments, in batches of 500 records each"
  echo "acknowledged before the next. Server CPU is the \`cairn serve\` process's and, for PostgreSQL, its"
  echo "backends', over the push. Size is the store's after the push (spaces.db and its WAL; the"
  echo "database); local size is the client's spaces.db. After the PostgreSQL push the section runs"
  echo "\`ANALYZE\` (autovacuum would within a minute or so), so the searches do not depend on when it ran."
  echo
  echo "| step | store | seconds | comments/s | client peak MiB | server CPU s | size MiB | load |"
  echo "|---|---|--:|--:|--:|--:|--:|--:|"
  while IFS=$'\t' read -r step s secs rss scpu size l; do
    rate=$(awk -v n="$TEAM_N" -v t="$secs" 'BEGIN { printf "%.0f", n / t }')
    if [ "$step" = import ]; then
      echo "| \`cairn space import\` (local, before the $(label "$s") push) | local spaces.db | $secs | $rate | $rss | – | $size | $l |"
    else
      echo "| \`cairn space push\` | $(label "$s") server | $secs | $rate | $rss | $scpu | $size | $l |"
    fi
  done <"$push_rows"
  echo
  echo "### Search, $TEAM_CLIENTS clients"
  echo
  echo "\`scripts/loadgen -space team -terms terms.tsv -c $TEAM_CLIENTS -d ${TEAM_SECONDS}s\`: each client keeps one"
  echo "connection and sends \`POST /team/v1/search\` back to back with the member's bearer token, cycling"
  echo "through $(wc -l <"$dir/terms.tsv") queries \`scripts/gen-terms\` sampled from the pushed space (shuffled, each client"
  echo "starting elsewhere); default limit 10. Back to back, $TEAM_CLIENTS clients always have $TEAM_CLIENTS searches in"
  echo "flight, so the mean latency is $TEAM_CLIENTS divided by the rate: p50 is mostly the queue; the 1-client"
  echo "row is a search with nothing queued. An error is any answer but 200 (a search past its 2 s budget is"
  echo "STORAGE_BUSY) or a broken connection. Server CPU is per search (\`cairn serve\`, plus the cluster's"
  echo "PostgreSQL processes); loadgen's own CPU is given for the run. A 5 s warm-up of each server came"
  echo "first; the rounds alternate which server goes first."
  echo
  echo "How each server takes $TEAM_CLIENTS searches at once: a search's 2 s budget counts from when it starts"
  echo "running, and a search that waited longer than the server's wait (5 s) for its turn is answered 503"
  echo "(STORAGE_BUSY) without having run. The SQLite store runs one search per processor (\`GOMAXPROCS\`, at"
  echo "least 2) at once, each on a kept spaces.db connection of its own, the"
  echo "others in the order they came. The PostgreSQL store's pool (\`DefaultMaxConns\`: 4 per processor, at"
  echo "least 8; the DSN's \`pool_max_conns\` when given) is its queue: a request takes one connection for its"
  echo "token's lookup and its search (the team key is read once per process)."
  echo
  echo "| store | run | searches | searches/s | p50 ms | p99 ms | errors | server CPU ms/search | loadgen CPU s | load |"
  echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
  while IFS=$'\t' read -r s run n rps p50 p99 errs scpu lcpu l secs err; do
    per=$(awk -v c="$scpu" -v n="$n" 'BEGIN { if (n > 0) printf "%.2f", 1000 * c / n; else printf "–" }')
    echo "| $(label "$s") | $run | $n | $rps | $p50 | $p99 | $errs | $per | $lcpu | $l |"
  done <"$search_rows"
  echo
  for s in $stores; do
    # the failed searches in the server's log (route, status, duration): how long each took
    grep -o 'team search [0-9]* [^ ]*' "$dir/server-$s.log" | awk '$3 != 200 {
      d = $4; v = d + 0; if (d ~ /ms$/) v /= 1000; else if (d ~ /µs$/) v /= 1e6; print $3, v }' | sort -k1,1 -k2,2g >"$dir/failed-$s"
    logged=$(grep -c 'team search ' "$dir/server-$s.log" || true)
    for st in $(cut -d' ' -f1 "$dir/failed-$s" | uniq); do
      awk -v st="$st" '$1 == st { print $2 }' "$dir/failed-$s" | awk -v who="$(label "$s")" -v st="$st" -v all="$logged" '
        { t[NR] = $1 } END { printf "%s server: %d of the %d searches it logged answered %s, after %.2f s to %.2f s (median %.2f s).\n\n", who, NR, all, st, t[1], t[NR], t[int((NR + 1) / 2)] }'
    done
  done
  echo "By frequency band (how many comments of the space hold the query): p50 and p99 of the searches of"
  echo "that band, alone (the 1-client run: what a search costs) and under $TEAM_CLIENTS clients (every round; the"
  echo "median of the rounds' p50s and the largest p99)."
  echo
  head=""; rule=""
  for c in 1 "$TEAM_CLIENTS"; do
    for s in $stores; do
      head="$head $(label "$s") $c p50 ms | p99 ms |"; rule="$rule--:|--:|"
    done
  done
  echo "| band | queries |$head"
  echo "|---|--:|$rule"
  for b in 0 1-10 11-100 101-1k 1k-10k 10k+; do
    q=$(awk -F'\t' -v b="$b" '$1 == b' "$dir/terms.tsv" | wc -l)
    [ "$q" = 0 ] && continue
    row="| $b | $q |"
    for c in 1 "$TEAM_CLIENTS"; do
      for s in $stores; do
        figs=$(awk -F'\t' -v s="$s" -v c="$c" -v b="band=$b" '$1 == s && $2 == c { split($3, f, " "); if (f[1] == b) { split(f[3], x, "="); split(f[4], y, "="); print x[2], y[2] } }' "$dir/bands.tsv")
        if [ -z "$figs" ]; then
          row="$row – | – |"
          continue
        fi
        p50=$(printf '%s\n' "$figs" | cut -d' ' -f1 | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
        p99=$(printf '%s\n' "$figs" | cut -d' ' -f2 | sort -g | tail -1)
        row="$row $p50 | $p99 |"
      done
    done
    echo "$row"
  done
  echo
  echo "Server peak RSS (\`cairn serve\`): $(for s in $stores; do printf '%s %s MiB; ' "$(label "$s")" "${RSS[$s]}"; done | sed 's/; $//')."
} >"$md"
go run ./scripts/benchreport -team "$md" -md docs/benchmarks.md
echo "  wrote the team section of docs/benchmarks.md"
