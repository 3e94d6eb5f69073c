#!/usr/bin/env bash
# bench/run.sh: build einvoice and bench, then for each engine start a fresh
# server on a free loopback port, time its start to the first 200 on
# /readyz, run the load scenarios with the demo key, stop it with SIGTERM,
# and print one markdown table with the engines side by side.
#
#   bench/run.sh                        # both engines, N=20000, C=16, 20s
#   BENCH_N=5000 BENCH_C=32 ENGINES=sqlite bench/run.sh
#   SMOKE=1 bench/run.sh                # a few seconds; exits 1 if any request failed
#   DOCS=1 bench/run.sh                 # seed 100000 invoices, then the invoice scenarios
#
# Environment:
#   ENGINES          engines to run (default "sqlite postgres"); "postgres-x3"
#                    runs three replicas of the service on one PostgreSQL
#                    database (any count: postgres-xN), the driver spreading
#                    requests round-robin over them; memory is the first's
#   BENCH_N          max requests per scenario (default 20000)
#   BENCH_C          concurrency (default 16)
#   BENCH_DURATION   max time per scenario (default 20s)
#   BENCH_WARMUP     uncounted warm-up requests per scenario (default 300)
#   BENCH_SCENARIOS  comma list (default buyers-create,buyers-get,buyers-list,states;
#                    with DOCS=1 invoices-create,invoices-list,invoices-search,invoices-get;
#                    with SMOKE=1 the buyer ones, states, invoices-create and invoices-search)
#   BENCH_SEED_INVOICES  invoices to create for the demo tenant before the
#                    scenarios, uncounted, with BENCH_C workers (default 0;
#                    100000 with DOCS=1; 50 with SMOKE=1). The invoice read
#                    scenarios pick from them.
#   DOCS=1           the documents benchmark: the defaults above for DOCS
#   SERVE_FLAGS      extra flags for einvoice serve, e.g. "--pprof-addr 127.0.0.1:6060"
#   SERVE_GOMAXPROCS GOMAXPROCS of each einvoice serve process (not of the driver),
#                    "share" for each its share of the machine's CPUs: nproc / replicas,
#                    at least 1 (one process all of them, three replicas on 2 CPUs 1 each),
#                    e.g. 1 when several replicas share the machine's cores
#   MIXED=1          run the scenarios mixed in one run of BENCH_DURATION (bench -soak,
#                    after MIXED_WARMUP, default 10s) instead of one by one: the
#                    mixed load on which one process and replicas are compared
#   BENCH_PROFILE    comma list of scenarios to profile: during each, take a 15 s
#                    CPU profile of the server (go tool pprof -top -nodecount=25)
#                    and print it to stderr. Adds --pprof-addr $BENCH_PPROF_ADDR
#                    (default 127.0.0.1:6060) unless SERVE_FLAGS has one.
#   BENCH_PG         PostgreSQL server URL without a database
#                    (default postgres://postgres@127.0.0.1:5432); a fresh
#                    database is created on it and dropped afterwards
#   BENCH_PG_ADMIN_DB an existing database to connect to for CREATE/DROP DATABASE (default test)
#   BENCH_PG_ANALYZE 1 (default) runs ANALYZE on the PostgreSQL database after
#                    each scenario, standing in for autovacuum (off on some test
#                    servers): without statistics, reading one buyer after
#                    buyers-create picks a tenant-wide index scan. 0 to disable.
#                    "vacuum" (the default with DOCS=1) runs VACUUM ANALYZE
#                    instead, after the seeding too, standing in for
#                    autovacuum's insert-triggered vacuum (PostgreSQL 13+):
#                    without it the visibility map is empty, so counting a
#                    tenant's invoices reads the whole table instead of an index.
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
DEFAULT_SCENARIOS=buyers-create,buyers-get,buyers-list,states SEED=0 DEFAULT_ANALYZE=1
if [[ ${DOCS:-} == 1 ]]; then
	DEFAULT_SCENARIOS=invoices-create,invoices-list,invoices-search,invoices-get SEED=100000 DEFAULT_ANALYZE=vacuum
fi
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
PG_ADMIN_DB=${BENCH_PG_ADMIN_DB:-test}
PG_ANALYZE=${BENCH_PG_ANALYZE:-$DEFAULT_ANALYZE}
case $PG_ANALYZE in
0 | 1 | vacuum) ;;
*) echo "run.sh: BENCH_PG_ANALYZE must be 0, 1 or vacuum" >&2 && exit 2 ;;
esac
if [[ ${SMOKE:-} == 1 ]]; then
	N=${BENCH_N:-50} C=${BENCH_C:-4} DURATION=${BENCH_DURATION:-2s} WARMUP=${BENCH_WARMUP:-10} SEED=50
	[[ ${DOCS:-} == 1 ]] || DEFAULT_SCENARIOS+=,invoices-create,invoices-search
fi
SCENARIOS=${BENCH_SCENARIOS:-$DEFAULT_SCENARIOS}
# MIXED=1 runs the scenarios mixed, in one run, instead of one by one.
SCENARIOS_RUN=$SCENARIOS
[[ ${MIXED:-} == 1 ]] && SCENARIOS_RUN=""
SEED=${BENCH_SEED_INVOICES:-$SEED}
PROFILE=${BENCH_PROFILE:-}
PPROF_ADDR=${BENCH_PPROF_ADDR:-127.0.0.1:6060}
read -r -a serve_flags <<<"${SERVE_FLAGS:-}"
if [[ -n $PROFILE ]]; then
	re='--pprof-addr[= ]+([^ ]+)'
	if [[ " ${SERVE_FLAGS:-} " =~ $re ]]; then
		PPROF_ADDR=${BASH_REMATCH[1]}
	else
		serve_flags+=(--pprof-addr "$PPROF_ADDR")
	fi
	case $PPROF_ADDR in
	127.0.0.1:* | localhost:*) ;;
	*) echo "run.sh: the pprof address must be 127.0.0.1:PORT" >&2 && exit 2 ;;
	esac
fi
case $PG in
postgres://*@127.0.0.1[:/]* | postgres://*@localhost[:/]* | postgres://127.0.0.1[:/]* | postgres://localhost[:/]*) ;;
*) echo "run.sh: BENCH_PG must point at 127.0.0.1 or localhost" >&2 && exit 2 ;;
esac
command -v jq >/dev/null || { echo "run.sh: needs jq" >&2; exit 2; }

work=$(mktemp -d)
server_pids=() pg_db=
cleanup() {
	local pid
	for pid in ${server_pids[@]+"${server_pids[@]}"}; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in ${server_pids[@]+"${server_pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
	if [[ -n $pg_db ]]; then psql -q "$PG/$PG_ADMIN_DB" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null || true; fi
	if [[ -n ${BENCH_OUT:-} ]]; then mkdir -p "$BENCH_OUT" && cp "$work"/*.json "$work"/*.log "$work"/*.pprof.txt "$work"/*.pb.gz "$BENCH_OUT"/ 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "run.sh: building" >&2
go build -o "$work/einvoice" ./cmd/einvoice
go build -o "$work/bench" ./bench

# free_port prints a loopback TCP port nothing listens on, below the
# kernel's ephemeral range (a port there can be taken at any moment as the
# source port of an outgoing connection, which a connect test cannot see)
# and not among its arguments (ports chosen already, maybe not yet bound).
free_port() {
	local port low
	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "$low" -gt 12000 ] 2>/dev/null || low=32768
	for _ in $(seq 100); do
		port=$((10000 + RANDOM % (low - 10000)))
		case " $* " in *" $port "*) continue ;; esac
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "run.sh: no free port" >&2
	return 1
}

# analyze ENGINE: on PostgreSQL, ANALYZE (or VACUUM ANALYZE) the database,
# unless BENCH_PG_ANALYZE=0.
analyze() {
	[[ $1 == postgres* ]] || return 0
	case $PG_ANALYZE in
	1) psql -q "$PG/$pg_db" -c ANALYZE >/dev/null ;;
	vacuum) psql -q "$PG/$pg_db" -c "VACUUM ANALYZE" >/dev/null ;;
	esac
}

# run_engine ENGINE: serve a fresh database of ENGINE, time its startup into
# $work/ENGINE.startup and write the results to $work/ENGINE.json.
run_engine() {
	local engine=$1 db port url urls=() start key status=0 replicas=1 i pid
	case $engine in
	sqlite)
		mkdir -p "$work/sqlite"
		db=$work/sqlite/einvoice.db
		;;
	postgres | postgres-x*)
		if [[ $engine == postgres-x* ]]; then
			replicas=${engine#postgres-x}
			[[ $replicas =~ ^[1-9][0-9]?$ ]] || { echo "run.sh: $engine: want postgres-xN, N from 1 to 99" >&2 && return 2; }
		fi
		pg_db=einvoice_bench_$$_$RANDOM
		psql -q "$PG/$PG_ADMIN_DB" -c "CREATE DATABASE $pg_db" >/dev/null || return 1
		db="$PG/$pg_db?sslmode=disable"
		EINVOICE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
		export EINVOICE_SECRET_KEY
		;;
	*) echo "run.sh: unknown engine $engine" >&2 && return 2 ;;
	esac
	local procs=${SERVE_GOMAXPROCS:-}
	if [[ $procs == share ]]; then
		procs=$(($(nproc) / replicas))
		((procs >= 1)) || procs=1
	fi
	# Replicas start together, as behind a load balancer: one migrates and
	# bootstraps, the others wait for it; startup is the slowest one's.
	start=$(date +%s%N)
	for ((i = 0; i < replicas; i++)); do
		port=$(free_port ${urls[@]+"${urls[@]##*:}"}) || return 1
		urls+=("http://127.0.0.1:$port")
		env ${procs:+GOMAXPROCS=$procs} "$work/einvoice" serve --addr "127.0.0.1:$port" --db "$db" --rate-limit 100000000 ${serve_flags[@]+"${serve_flags[@]}"} \
			>"$work/$engine.$i.out" 2>"$work/$engine.$i.log" &
		server_pids+=($!)
	done
	for ((i = 0; i < replicas; i++)); do
		if ! "$work/bench" -wait-ready -url "${urls[i]}" -started-at "$start" >"$work/$engine.startup"; then
			tail -20 "$work/$engine.$i.log" >&2
			return 1
		fi
	done
	url=$(IFS=,; echo "${urls[*]}")
	key=$(cat "$work/$engine".*.out | grep -Eo 'eik_[A-Za-z0-9_-]{20,}' | head -1)
	if [[ -z $key ]]; then
		echo "run.sh: $engine: no demo key on the serve output" >&2
		return 1
	fi
	echo "run.sh: $engine: ready in $(cat "$work/$engine.startup") ms on $url" >&2

	local s files=() inv=()
	# Seeding is a bench run of its own; it keeps the invoices it created
	# in a file, from which the scenario runs pick.
	if ((SEED > 0)); then
		files+=("$work/$engine.seed.json")
		"$work/bench" -url "$url" -key "$key" -scenario "" -seed-invoices "$SEED" -c "$C" \
			-invoices-file "$work/$engine.invoices" -json >"$work/$engine.seed.json" || status=1
		[[ -s $work/$engine.invoices ]] && inv=(-invoices-file "$work/$engine.invoices")
		analyze "$engine" || status=1
	fi

	# MIXED=1: one run of all the scenarios mixed (-soak), instead of one
	# run per scenario.
	if [[ ${MIXED:-} == 1 ]]; then
		files+=("$work/$engine.mixed.json")
		"$work/bench" -url "$url" -key "$key" -scenario "$SCENARIOS" -c "$C" -soak "$DURATION" -soak-warmup "${MIXED_WARMUP:-10s}" \
			${inv[@]+"${inv[@]}"} -json >"$work/$engine.mixed.json" || status=1
	fi
	# One bench run per scenario, so that PostgreSQL can be analyzed in between.
	local prof_pid
	for s in ${SCENARIOS_RUN//,/ }; do
		files+=("$work/$engine.$s.json")
		prof_pid=
		if [[ ,$PROFILE, == *,$s,* ]]; then
			# Skip the set-up and the warm-up, then profile 15 s of the run.
			(sleep 3 && PPROF_TMPDIR=$work/pprof.$engine.$s go tool pprof -top -nodecount=25 "http://$PPROF_ADDR/debug/pprof/profile?seconds=15" \
				>"$work/$engine.$s.pprof.txt" 2>&1) &
			prof_pid=$!
		fi
		"$work/bench" -url "$url" -key "$key" -scenario "$s" -c "$C" -n "$N" \
			-duration "$DURATION" -warmup "$WARMUP" ${inv[@]+"${inv[@]}"} -json >"$work/$engine.$s.json" || status=1
		if [[ -n $prof_pid ]]; then
			wait "$prof_pid" || true
			mv "$work/pprof.$engine.$s"/*.pb.gz "$work/$engine.$s.pprof.pb.gz" 2>/dev/null || true
			{ echo "run.sh: $engine: $s: CPU profile of the server:"; cat "$work/$engine.$s.pprof.txt"; } >&2
		fi
		analyze "$engine" || status=1
	done
	jq -s '{results: map(.results[]?), seed: (map(.seed // empty) | first), mixed: (map(select(.throughput_rps)) | first)}' "${files[@]}" >"$work/$engine.json" || status=1

	for pid in "${server_pids[@]}"; do kill -TERM "$pid"; done
	for pid in "${server_pids[@]}"; do
		wait "$pid" || { echo "run.sh: $engine: serve exited with status $?" >&2; status=1; }
	done
	server_pids=()
	if [[ $engine == postgres* ]]; then
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
name() { case $1 in sqlite) echo SQLite ;; postgres) echo PostgreSQL ;; postgres-x*) echo "PostgreSQL, ${1#postgres-x} replicas" ;; *) echo "$1" ;; esac; }
row() { # row LABEL JQ_EXPR
	local line="| $1 |"
	for e in $ENGINES; do line+=" $(cell "$e" "$2") |"; done
	echo "$line"
}

echo
echo "c=$C, n=$N per scenario, at most $DURATION per scenario, warm-up $WARMUP; $(nproc) CPUs"
((SEED > 0)) && echo "seeded $SEED invoices (10 lines, autoCalculate) for the demo tenant before the scenarios, c=$C"
echo
header="| |" rule="|---|"
for e in $ENGINES; do header+=" $(name "$e") |" rule+="--:|"; done
if [[ " $ENGINES " == *" postgres"* ]]; then
	after="each scenario"
	((SEED > 0)) && after="the seeding and each scenario"
	case $PG_ANALYZE in
	1) echo "PostgreSQL: ANALYZE after $after" ;;
	vacuum) echo "PostgreSQL: VACUUM ANALYZE after $after" ;;
	*) echo "PostgreSQL: no ANALYZE (BENCH_PG_ANALYZE=0)" ;;
	esac
	echo
fi
echo "$header"
echo "$rule"
line="| startup to first 200 on /readyz (ms) |"
for e in $ENGINES; do line+=" $(cat "$work/$e.startup" 2>/dev/null || echo -) |"; done
echo "$line"
if ((SEED > 0)); then
	row "seeding: invoices / seconds" ".seed | \"\(.invoices) / \(.duration_ms / 100 | round / 10)\""
	row "**seeding** invoices/s" ".seed.rate_per_s | round"
fi
if [[ ${MIXED:-} == 1 ]]; then
	row "**mixed** req/s ($SCENARIOS)" ".mixed.throughput_rps | round"
	row "mixed: requests / errors" ".mixed | \"\(.requests) / \(.errors)\""
	row "mixed: heap in use after warm-up / at the end (MB)" ".mixed | \"\(.warm_heap_mb * 10 | round / 10) / \(.end_heap_mb * 10 | round / 10)\""
	row "mixed: RSS after warm-up / at the end (MB)" ".mixed | \"\(.warm_rss_mb * 10 | round / 10) / \(.end_rss_mb * 10 | round / 10)\""
fi
for s in ${SCENARIOS_RUN//,/ }; do
	r=".results[] | select(.scenario == \"$s\")"
	row "**$s** req/s" "$r | .throughput_rps | round"
	row "$s p50 / p99 (ms)" "$r | \"\(.p50_ms * 100 | round / 100) / \(.p99_ms * 100 | round / 100)\""
	row "$s peak RSS (MB)" "$r | .peak_rss_mb * 10 | round / 10"
	if [[ $s == invoices-list ]]; then row "documents of the tenant at invoices-list" "$r | .tenant_docs"; fi
done
if [[ -n $SCENARIOS_RUN ]]; then
row "requests, all scenarios" "[.results[].requests] | add"
row "errors, all scenarios (and seeding)" "([.results[].errors] | add) + (.seed.errors // 0)"
row "peak RSS, whole run (MB)" "[.results[].peak_rss_mb] | max * 10 | round / 10"
fi

exit "$failed"
