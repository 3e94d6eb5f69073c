#!/usr/bin/env bash
# bench/run.sh: build einvoice and bench, then for each engine start a fresh
# server on a free loopback port, time its start to the first 200 on
# /readyz, run the load scenarios with the demo key, stop it with SIGTERM,
# and print one markdown table with the engines side by side.
#
#   bench/run.sh                        # both engines, N=20000, C=16, 20s
#   BENCH_N=5000 BENCH_C=32 ENGINES=sqlite bench/run.sh
#   SMOKE=1 bench/run.sh                # a few seconds; exits 1 if any request failed
#
# Environment:
#   ENGINES          engines to run (default "sqlite postgres")
#   BENCH_N          max requests per scenario (default 20000)
#   BENCH_C          concurrency (default 16)
#   BENCH_DURATION   max time per scenario (default 20s)
#   BENCH_WARMUP     uncounted warm-up requests per scenario (default 300)
#   BENCH_SCENARIOS  comma list (default buyers-create,buyers-get,buyers-list,states)
#   BENCH_PG         PostgreSQL server URL without a database
#                    (default postgres://postgres@127.0.0.1:5432); a fresh
#                    database is created on it and dropped afterwards
#   BENCH_PG_ADMIN_DB an existing database to connect to for CREATE/DROP DATABASE (default test)
#   BENCH_PG_ANALYZE 1 (default) runs ANALYZE on the PostgreSQL database after
#                    each scenario, standing in for autovacuum (off on some test
#                    servers): without statistics, reading one buyer after
#                    buyers-create picks a tenant-wide index scan. 0 to disable.
#   BENCH_OUT        if set, a directory that receives the JSON results and server logs
#
# Needs go, jq, and psql for the postgres engine. Talks to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BENCH_N:-20000}
C=${BENCH_C:-16}
DURATION=${BENCH_DURATION:-20s}
WARMUP=${BENCH_WARMUP:-300}
ENGINES=${ENGINES:-"sqlite postgres"}
SCENARIOS=${BENCH_SCENARIOS:-buyers-create,buyers-get,buyers-list,states}
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
PG_ADMIN_DB=${BENCH_PG_ADMIN_DB:-test}
PG_ANALYZE=${BENCH_PG_ANALYZE:-1}
if [[ ${SMOKE:-} == 1 ]]; then
	N=${BENCH_N:-50} C=${BENCH_C:-4} DURATION=${BENCH_DURATION:-2s} WARMUP=${BENCH_WARMUP:-10}
fi
case $PG in
postgres://*@127.0.0.1[:/]* | postgres://*@localhost[:/]* | postgres://127.0.0.1[:/]* | postgres://localhost[:/]*) ;;
*) echo "run.sh: BENCH_PG must point at 127.0.0.1 or localhost" >&2 && exit 2 ;;
esac
command -v jq >/dev/null || { echo "run.sh: needs jq" >&2; exit 2; }

work=$(mktemp -d)
server_pid= pg_db=
cleanup() {
	if [[ -n $server_pid ]]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	if [[ -n $pg_db ]]; then psql -q "$PG/$PG_ADMIN_DB" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null || true; fi
	if [[ -n ${BENCH_OUT:-} ]]; then mkdir -p "$BENCH_OUT" && cp "$work"/*.json "$work"/*.log "$BENCH_OUT"/ 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "run.sh: building" >&2
go build -o "$work/einvoice" ./cmd/einvoice
go build -o "$work/bench" ./bench

# free_port prints a loopback TCP port nothing listens on.
free_port() {
	local port
	for _ in $(seq 100); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "run.sh: no free port" >&2
	return 1
}

# run_engine ENGINE: serve a fresh database of ENGINE, time its startup into
# $work/ENGINE.startup and write the results to $work/ENGINE.json.
run_engine() {
	local engine=$1 db port url start key status=0
	case $engine in
	sqlite)
		mkdir -p "$work/sqlite"
		db=$work/sqlite/einvoice.db
		;;
	postgres)
		pg_db=einvoice_bench_$$_$RANDOM
		psql -q "$PG/$PG_ADMIN_DB" -c "CREATE DATABASE $pg_db" >/dev/null || return 1
		db="$PG/$pg_db?sslmode=disable"
		EINVOICE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
		export EINVOICE_SECRET_KEY
		;;
	*) echo "run.sh: unknown engine $engine" >&2 && return 2 ;;
	esac
	port=$(free_port) || return 1
	url=http://127.0.0.1:$port

	start=$(date +%s%N)
	"$work/einvoice" serve --addr "127.0.0.1:$port" --db "$db" --rate-limit 100000000 \
		>"$work/$engine.out" 2>"$work/$engine.log" &
	server_pid=$!
	if ! "$work/bench" -wait-ready -url "$url" -started-at "$start" >"$work/$engine.startup"; then
		tail -20 "$work/$engine.log" >&2
		return 1
	fi
	key=$(grep -Eo 'eik_[A-Za-z0-9_-]{20,}' "$work/$engine.out" | head -1)
	if [[ -z $key ]]; then
		echo "run.sh: $engine: no demo key on the serve output" >&2
		return 1
	fi
	echo "run.sh: $engine: ready in $(cat "$work/$engine.startup") ms on $url" >&2

	# One bench run per scenario, so that PostgreSQL can be analyzed in between.
	local s files=()
	for s in ${SCENARIOS//,/ }; do
		files+=("$work/$engine.$s.json")
		"$work/bench" -url "$url" -key "$key" -scenario "$s" -c "$C" -n "$N" \
			-duration "$DURATION" -warmup "$WARMUP" -json >"$work/$engine.$s.json" || status=1
		if [[ $engine == postgres && $PG_ANALYZE == 1 ]]; then
			psql -q "$PG/$pg_db" -c ANALYZE >/dev/null || status=1
		fi
	done
	jq -s '{results: map(.results[]?)}' "${files[@]}" >"$work/$engine.json" || status=1

	kill -TERM "$server_pid"
	wait "$server_pid" || { echo "run.sh: $engine: serve exited with status $?" >&2; status=1; }
	server_pid=
	if [[ $engine == postgres ]]; then
		psql -q "$PG/$PG_ADMIN_DB" -c "DROP DATABASE $pg_db WITH (FORCE)" >/dev/null
		pg_db=
	fi
	return "$status"
}

failed=0
for engine in $ENGINES; do
	run_engine "$engine" || failed=1
done

# cell ENGINE JQ_EXPR: one value of one engine's results ("-" if missing).
cell() {
	jq -r "$2 // \"-\"" "$work/$1.json" 2>/dev/null || echo -
}
name() { case $1 in sqlite) echo SQLite ;; postgres) echo PostgreSQL ;; *) echo "$1" ;; esac; }
row() { # row LABEL JQ_EXPR
	local line="| $1 |"
	for e in $ENGINES; do line+=" $(cell "$e" "$2") |"; done
	echo "$line"
}

echo
echo "c=$C, n=$N per scenario, at most $DURATION per scenario, warm-up $WARMUP; $(nproc) CPUs"
echo
header="| |" rule="|---|"
for e in $ENGINES; do header+=" $(name "$e") |" rule+="--:|"; done
[[ " $ENGINES " == *" postgres "* ]] && echo "PostgreSQL: ANALYZE after each scenario: $([[ $PG_ANALYZE == 1 ]] && echo yes || echo no)" && echo
echo "$header"
echo "$rule"
line="| startup to first 200 on /readyz (ms) |"
for e in $ENGINES; do line+=" $(cat "$work/$e.startup" 2>/dev/null || echo -) |"; done
echo "$line"
for s in ${SCENARIOS//,/ }; do
	r=".results[] | select(.scenario == \"$s\")"
	row "**$s** req/s" "$r | .throughput_rps | round"
	row "$s p50 / p99 (ms)" "$r | \"\(.p50_ms * 100 | round / 100) / \(.p99_ms * 100 | round / 100)\""
	row "$s peak RSS (MB)" "$r | .peak_rss_mb * 10 | round / 10"
done
row "requests, all scenarios" "[.results[].requests] | add"
row "errors, all scenarios" "[.results[].errors] | add"
row "peak RSS, whole run (MB)" "[.results[].peak_rss_mb] | max * 10 | round / 10"

exit "$failed"
