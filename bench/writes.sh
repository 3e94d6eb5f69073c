#!/usr/bin/env bash
# bench/writes.sh: durable invoice creation against the machine's
# one-transaction write ceiling, in one sitting (issue 21, goal 2): first
# the ceiling (bench/ceiling -fsync-dir / -fsync-pg: one 3 KB INSERT per
# transaction, each committed before the next), then wrk POSTing the
# 10-line invoice with autoCalculate (bench/create.lua) to a fresh service
# at c=16 and c=64, with the server's CPU time per creation.
#
#   bench/writes.sh                     # SQLite
#   ENGINE=postgres bench/writes.sh     # PostgreSQL (a fresh database, dropped after)
#   WRITES_DURATION=5 bench/writes.sh
#
# Needs go, wrk, jq, curl (and psql for PostgreSQL). Talks to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE=${ENGINE:-sqlite}
DUR=${WRITES_DURATION:-10}
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
NAME=writes.sh
# shellcheck source=bench/wrklib.sh
. bench/wrklib.sh
case $ENGINE in
sqlite)
	mkdir "$work/fsync"
	ceiling=$("$work/ceiling" -fsync-dir "$work/fsync" -fsync-time "${DUR}s")
	db=$work/einvoice.db
	;;
postgres)
	pg_db=einvoice_writes_$$
	psql -q "$PG/test" -c "CREATE DATABASE $pg_db" >/dev/null
	ceiling=$("$work/ceiling" -fsync-pg "$PG/$pg_db?sslmode=disable" -fsync-time "${DUR}s")
	db="$PG/$pg_db?sslmode=disable"
	export EINVOICE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
	;;
*) echo "writes.sh: ENGINE is sqlite or postgres" >&2; exit 2 ;;
esac
ceil=$(grep -Eo '[0-9]+/s' <<<"$ceiling" | tr -d /s)
sport=$(port)
"$work/einvoice" serve --addr "127.0.0.1:$sport" --db "$db" --rate-limit 100000000 --sandbox-delay 0 >"$work/out" 2>"$work/log" &
pids+=($!) spid=$!
url=http://127.0.0.1:$sport
"$work/bench" -wait-ready -url "$url" -started-at "$(date +%s%N)" >/dev/null
key=$(grep -Eo 'eik_[A-Za-z0-9_-]{20,}' "$work/out" | head -1)
buyer=$(curl -sf -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$url/api/v1/buyers" \
	-d '{"name":"Hebat Group","tin":"C21638015020","idType":"BRN","idValue":"201901234567","address":{"line1":"Lot 66","city":"Kuala Lumpur","state":"14","postCode":"50480","countryCode":"MYS"},"contact":{"phone":"+60123456789","email":"ap@hebat.example"}}' | jq -r .data.id)
run=$(date +%s)
wrk -t2 -c16 -d2s -s bench/create.lua "$url/api/v1/invoices" -- "$key" "$buyer" "${run}w" >/dev/null # warm-up
echo
echo "$ENGINE, $(nproc) CPUs; $ceiling; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
failed=0
echo "| clients | creations/s | of the ceiling | server CPU per creation (µs) | p50 / p99 (ms) | non-2xx |"
echo "|--:|--:|--:|--:|--:|--:|"
for c in 16 64; do
	c0=$(cpu "$spid")
	out=$(wrk -t2 -c$c -d"${DUR}s" --latency -s bench/create.lua "$url/api/v1/invoices" -- "$key" "$buyer" "${run}c$c")
	c1=$(cpu "$spid")
	awk -v c=$c -v d=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v ceil="$ceil" '
		/Requests\/sec/ { rps = $2 } / 50%/ { p50 = $2 } / 99%/ { p99 = $2 } /requests in/ { n = $1 } /Non-2xx/ { e = $NF }
		END { printf "| %d | %d | %.2f | %.0f | %s / %s | %d |\n", c, rps, rps / ceil, d * 1e6 / t / n, p50, p99, e }' <<<"$out"
	grep -q Non-2xx <<<"$out" && failed=1
done
total=$(curl -sf -H "Authorization: Bearer $key" "$url/api/v1/invoices?per_page=1" | jq -r .meta.total)
echo
echo "documents stored: $total"
if ((failed)); then
	echo "writes.sh: some creations answered other than 2xx" >&2
	exit 1
fi
