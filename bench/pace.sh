#!/usr/bin/env bash
# bench/pace.sh: documents end to end at the authority's pace (issue 21).
# Builds einvoice and bench, starts `einvoice serve` on a fresh SQLite file
# or PostgreSQL database with the built-in sandbox's rate limits on and its
# normal verdict delay, makes PACE_TENANTS tenants with a key each (the demo
# tenant and more made with `einvoice tenant create` and `einvoice key
# create`), and runs `bench -pace PACE_DOCS` over them: workers create and
# validate invoices, each tenant's ready documents are bulk-submitted 100 at
# a time, and the run ends when all are Valid. Prints Valid documents per
# minute (overall and per 60-s window), throttling, errors and the server's
# memory; exits non-zero on any error or any document not Valid in time.
#
#   bench/pace.sh                                  # 100000 documents, one tenant, SQLite
#   PACE_DOCS=2000 PACE_TENANTS=3 bench/pace.sh
#   ENGINE=postgres PACE_DOCS=2000 bench/pace.sh
#   PACE_SMOKE=1 bench/pace.sh                     # CI: 300 documents
#
# Environment:
#   ENGINE         sqlite (default) or postgres
#   PACE_DOCS      documents (default 100000; 300 with PACE_SMOKE=1)
#   PACE_TENANTS   tenants, one key each; documents are spread evenly (default 1)
#   PACE_C         driver workers creating and validating, and as many
#                  bulk-submitting (default 8)
#   PACE_TIMEOUT   how long until every document must be Valid
#                  (default 300 s + PACE_DOCS/30 s: 1 h for 100000)
#   PACE_JSON=1    print bench's JSON (with the memory series) instead of text
#   PACE_PROFILE=1 take a 30-s CPU profile of the server from 60 s into the
#                  run (20 s into a run of under 5000 documents) and print
#                  go tool pprof -top to stderr
#   SANDBOX_DELAY  the sandbox's verdict delay (default: serve's, 2s)
#   SERVE_FLAGS    extra flags for einvoice serve, e.g. "--workers 4"
#   BENCH_PG, BENCH_PG_ADMIN_DB   as for bench/run.sh
#   PACE_OUT       if set, a directory that receives the results and the server's log
#
# Needs go, and psql for the postgres engine. Talks to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

ENGINE=${ENGINE:-sqlite}
DOCS=${PACE_DOCS:-100000}
[[ ${PACE_SMOKE:-} == 1 ]] && DOCS=${PACE_DOCS:-300}
TENANTS=${PACE_TENANTS:-1}
C=${PACE_C:-8}
TIMEOUT=${PACE_TIMEOUT:-$((300 + DOCS / 30))s}
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
PG_ADMIN_DB=${BENCH_PG_ADMIN_DB:-test}
[[ $DOCS =~ ^[1-9][0-9]*$ ]] || { echo "pace.sh: PACE_DOCS must be a positive number" >&2 && exit 2; }
[[ $TENANTS =~ ^[1-9][0-9]?$ ]] || { echo "pace.sh: PACE_TENANTS must be from 1 to 99" >&2 && exit 2; }
case $PG in
postgres://*@127.0.0.1[:/]* | postgres://*@localhost[:/]* | postgres://127.0.0.1[:/]* | postgres://localhost[:/]*) ;;
*) echo "pace.sh: BENCH_PG must point at 127.0.0.1 or localhost" >&2 && exit 2 ;;
esac
read -r -a serve_flags <<<"${SERVE_FLAGS:-}"
[[ -n ${SANDBOX_DELAY:-} ]] && serve_flags+=(--sandbox-delay "$SANDBOX_DELAY")

work=$(mktemp -d)
server_pid= pg_db= prof_pid=
cleanup() {
	[[ -n $prof_pid ]] && kill "$prof_pid" 2>/dev/null || true
	if [[ -n $server_pid ]]; then
		kill -TERM "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	if [[ -n $pg_db ]]; then psql -q "$PG/$PG_ADMIN_DB" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null || true; fi
	if [[ -n ${PACE_OUT:-} ]]; then mkdir -p "$PACE_OUT" && cp "$work"/*.txt "$work"/*.log "$work"/*.json "$work"/*.pb.gz "$PACE_OUT"/ 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "pace.sh: building" >&2
go build -o "$work/einvoice" ./cmd/einvoice
go build -o "$work/bench" ./bench

# free_port: as in bench/run.sh, a loopback port below the ephemeral range.
free_port() {
	local port low
	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "$low" -gt 12000 ] 2>/dev/null || low=32768
	for _ in $(seq 100); do
		port=$((10000 + RANDOM % (low - 10000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "pace.sh: no free port" >&2
	return 1
}

case $ENGINE in
sqlite)
	db=$work/einvoice.db
	;;
postgres)
	pg_db=einvoice_pace_$$_$RANDOM
	psql -q "$PG/$PG_ADMIN_DB" -c "CREATE DATABASE $pg_db" >/dev/null
	db="$PG/$pg_db?sslmode=disable"
	;;
*) echo "pace.sh: ENGINE must be sqlite or postgres" >&2 && exit 2 ;;
esac
# One secret key for serve and the tenant commands, which seal the
# tenants' authority credentials with it.
EINVOICE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
export EINVOICE_SECRET_KEY

port=$(free_port)
url=http://127.0.0.1:$port
pprof_port=
if [[ ${PACE_PROFILE:-} == 1 ]]; then
	pprof_port=$(free_port)
	serve_flags+=(--pprof-addr "127.0.0.1:$pprof_port")
fi
# The sandbox's rate limits are on (serve's default, said again here); our
# own API's limit is raised so that it does not bound the run.
"$work/einvoice" serve --addr "127.0.0.1:$port" --db "$db" --rate-limit 100000000 --sandbox-rate-limits=true \
	${serve_flags[@]+"${serve_flags[@]}"} >"$work/serve.out" 2>"$work/serve.log" &
server_pid=$!
if ! "$work/bench" -wait-ready -url "$url" -ready-timeout 60s >/dev/null; then
	tail -20 "$work/serve.log" >&2
	exit 1
fi
key=$(grep -Eo 'eik_[A-Za-z0-9_-]{20,}' "$work/serve.out" | head -1)
[[ -n $key ]] || { echo "pace.sh: no demo key on the serve output" >&2 && exit 1; }
echo "$key" >"$work/keys"

# More tenants: each a separate client of the authority (its own TIN and
# sandbox client id), with a full profile like the demo tenant's.
for ((i = 2; i <= TENANTS; i++)); do
	tenant=$("$work/einvoice" tenant create --db "$db" --name "Pace Tenant $i Sdn. Bhd." --tin "$(printf 'C1%08d0' "$i")" \
		--id-type BRN --id-value "$(printf '2020010%05d' "$i")" --msic 46510 \
		--activity "Wholesale of computer hardware, software and peripherals" \
		--address "Lot $i, Bangunan Merdeka" --city "Kuala Lumpur" --state 14 --postcode 50480 \
		--phone +60312345678 --email "billing$i@pace.example")
	"$work/einvoice" key create --db "$db" --tenant "$tenant" | grep -Eo 'eik_[A-Za-z0-9_-]{20,}' | head -1 >>"$work/keys"
done
[[ $(wc -l <"$work/keys") == "$TENANTS" ]] || { echo "pace.sh: made $(wc -l <"$work/keys") keys, want $TENANTS" >&2 && exit 1; }
echo "pace.sh: $ENGINE on $url: $DOCS documents over $TENANTS tenant(s), c=$C, timeout $TIMEOUT; $(nproc) CPUs" >&2

if [[ -n $pprof_port ]]; then
	delay=60
	((DOCS < 5000)) && delay=20
	(sleep "$delay" && PPROF_TMPDIR=$work/pprof go tool pprof -top -nodecount=30 "http://127.0.0.1:$pprof_port/debug/pprof/profile?seconds=30" \
		>"$work/cpu.pprof.txt" 2>&1 && mv "$work"/pprof/*.pb.gz "$work/cpu.pb.gz" 2>/dev/null) &
	prof_pid=$!
fi

status=0
out=$work/pace.txt
[[ ${PACE_JSON:-} == 1 ]] && out=$work/pace.json
json=()
[[ ${PACE_JSON:-} == 1 ]] && json=(-json)
"$work/bench" -url "$url" -keys-file "$work/keys" -pace "$DOCS" -c "$C" -timeout "$TIMEOUT" ${json[@]+"${json[@]}"} >"$out" || status=1
cat "$out"

if [[ -n $prof_pid ]]; then
	wait "$prof_pid" || true
	prof_pid=
	{ echo "pace.sh: CPU profile of the server:"; cat "$work/cpu.pprof.txt"; } >&2
fi
kill -TERM "$server_pid"
wait "$server_pid" || { echo "pace.sh: serve exited with status $?" >&2; status=1; }
server_pid=
exit "$status"
