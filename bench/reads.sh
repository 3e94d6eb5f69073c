#!/usr/bin/env bash
# bench/reads.sh: the reads of issue 21 as ratios of a trivial Go JSON GET
# (bench/ceiling), in one sitting: one buyer, one 10-line invoice, and page
# 1 of the documents list among READS_DOCS documents, each with wrk at
# c=32 (throughput) and at c=4 (latency), on a fresh service.
#
#   bench/reads.sh                              # SQLite, 100,000 documents
#   ENGINE=postgres bench/reads.sh              # PostgreSQL (a fresh database, dropped after)
#   READS_DOCS=2000 READS_DURATION=2 bench/reads.sh   # a quick run
#   READS_SKIP_SEED=1 ...                       # (with READS_URL and READS_KEY, and READS_EMAIL and
#                                               # READS_PASSWORD for the dashboard) reuse a running server
#
# Then the web dashboard's pages (/app) as one signed-in user sees them
# (wrk -c1), with their 99th percentile (issue 22: under 50 ms).
#
# Besides req/s it prints the server's CPU time per request (utime+stime of
# the process over the run, from /proc), which is less blurred than
# throughput by whatever else the machine is doing: the ratio of the
# ceiling's CPU per request to the service's is the same comparison.
# Needs go, wrk, jq, curl (and psql for PostgreSQL). Talks to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE=${ENGINE:-sqlite}
DOCS=${READS_DOCS:-100000}
DUR=${READS_DURATION:-8}
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
NAME=reads.sh
# shellcheck source=bench/wrklib.sh
. bench/wrklib.sh
cport=$(port)
"$work/ceiling" -addr "127.0.0.1:$cport" & pids+=($!) cpid=$!
if [[ ${READS_SKIP_SEED:-} == 1 ]]; then
	url=$READS_URL key=$READS_KEY spid=$(pgrep -f "serve .*127.0.0.1:${url##*:}" | head -1)
else
	sport=$(port)
	case $ENGINE in
	sqlite) db=$work/einvoice.db ;;
	postgres)
		pg_db=einvoice_reads_$$
		psql -q "$PG/test" -c "CREATE DATABASE $pg_db" >/dev/null
		db="$PG/$pg_db?sslmode=disable"
		export EINVOICE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
		;;
	*) echo "reads.sh: ENGINE is sqlite or postgres" >&2; exit 2 ;;
	esac
	"$work/einvoice" serve --addr "127.0.0.1:$sport" --db "$db" --rate-limit 100000000 --sandbox-delay 0 >"$work/out" 2>"$work/log" &
	pids+=($!) spid=$!
	url=http://127.0.0.1:$sport
	"$work/bench" -wait-ready -url "$url" -started-at "$(date +%s%N)" >/dev/null
	key=$(grep -Eo 'eik_[A-Za-z0-9_-]{20,}' "$work/out" | head -1)
	"$work/bench" -url "$url" -key "$key" -scenario "" -seed-invoices "$DOCS" -c 16 -invoices-file "$work/inv.tsv" -json >"$work/seed.json"
	echo "seeded $DOCS invoices: $(jq -r '.seed.rate_per_s | round' "$work/seed.json")/s" >&2
	[[ $ENGINE == postgres ]] && psql -q "$PG/$pg_db" -c "VACUUM ANALYZE" >/dev/null
fi
H="Authorization: Bearer $key"
buyer=$(curl -sf -H "$H" "$url/api/v1/buyers?per_page=1" | jq -r '.data[0].id')
inv=$(curl -sf -H "$H" "$url/api/v1/invoices?per_page=1" | jq -r '.data[0].id')
total=$(curl -sf -H "$H" "$url/api/v1/invoices?per_page=1" | jq -r '.meta.total')

# run NAME PID URL: wrk at c=32 then c=4; prints one table row.
run() {
	local name=$1 pid=$2 u=$3 out c0 c1 rps reqs p99 errs
	wrk -t2 -c32 -d2s -H "$H" "$u" >/dev/null # warm-up
	c0=$(cpu "$pid")
	out=$(wrk -t2 -c32 -d"${DUR}s" -H "$H" "$u")
	c1=$(cpu "$pid")
	rps=$(awk '/Requests\/sec/{printf "%d", $2}' <<<"$out")
	reqs=$(awk '/requests in/{print $1}' <<<"$out")
	errs=$(awk '/Non-2xx/{print $NF}' <<<"$out")
	p99=$(wrk -t2 -c4 -d"${DUR}s" --latency -H "$H" "$u" | awk '/ 99%/{print $2}')
	local us=$(awk -v d=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v n="$reqs" 'BEGIN { printf "%.1f", d * 1e6 / t / n }')
	echo "$name|$rps|$us|$p99|${errs:-0}"
}
rows=$(
	run ceiling "$cpid" "http://127.0.0.1:$cport/"
	run "GET one buyer" "$spid" "$url/api/v1/buyers/$buyer"
	run "GET one 10-line invoice" "$spid" "$url/api/v1/invoices/$inv"
	run "GET /invoices page 1 ($total documents)" "$spid" "$url/api/v1/invoices?per_page=15&page=1"
)
echo
echo "$ENGINE, $(nproc) CPUs, wrk -t2 -c32 ${DUR}s (p99 at -c4), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| read | req/s | ratio | server CPU per request (µs) | CPU ratio | p99 at 4 clients | non-2xx |"
echo "|---|--:|--:|--:|--:|--:|--:|"
read -r cr cu < <(awk -F'|' 'NR==1{print $2, $3}' <<<"$rows")
while IFS='|' read -r name rps us p99 errs; do
	awk -v n="$name" -v r="$rps" -v u="$us" -v p="$p99" -v e="$errs" -v cr="$cr" -v cu="$cu" \
		'BEGIN { printf "| %s | %d | %.3f | %.1f | %.3f | %s | %s |\n", n, r, r / cr, u, cu / (u > 0 ? u : 1), p, e }'
done <<<"$rows"
failed=$(awk -F'|' '$5 > 0 { n++ } END { print n + 0 }' <<<"$rows")

# The dashboard, as one user: a session cookie from the demo owner's
# one-time link (a new database: the password set there signs in), or from
# signing in as READS_EMAIL with READS_PASSWORD. The forms' CSRF tokens are
# bound to the cookie their page sets.
jar=$(mktemp)
link=$(grep -Eo 'https?://[^ ]+/app/link/[A-Za-z0-9_-]{43}' "$work/out" 2>/dev/null | head -1 || true)
if [[ -n $link ]]; then
	form=${link#http*://*/}
	form=/$form
	READS_PASSWORD="reads owner password"
	csrf=$(curl -s -c "$jar" "$url$form" | grep -o 'name="csrf" value="[^"]*"' | sed 's/.*value="//; s/"$//')
	cookie=$(curl -s -o /dev/null -D - -b "$jar" -H "Origin: $url" --data-urlencode "csrf=$csrf" \
		--data-urlencode "password=$READS_PASSWORD" "$url$form" | grep -io 'einvoice_session=[^;]*' | head -1)
elif [[ -n ${READS_EMAIL:-} && -n ${READS_PASSWORD:-} ]]; then
	csrf=$(curl -s -c "$jar" "$url/app/signin" | grep -o 'name="csrf" value="[^"]*"' | sed 's/.*value="//; s/"$//')
	cookie=$(curl -s -o /dev/null -D - -b "$jar" -H "Origin: $url" --data-urlencode "csrf=$csrf" --data-urlencode "email=$READS_EMAIL" \
		--data-urlencode "password=$READS_PASSWORD" "$url/app/signin" | grep -io 'einvoice_session=[^;]*' | head -1)
else
	cookie=""
fi
rm -f "$jar"
if [[ -z $cookie ]]; then
	echo "reads.sh: could not sign in to the dashboard" >&2
	failed=$((failed + 1))
else
	serial=$(curl -sf -H "$H" "$url/api/v1/invoices?per_page=1" | jq -r '.data[0].invoiceSerialNumber')
	today=$(date -u +%F)
	echo
	echo "The dashboard, one user (wrk -t1 -c1 ${DUR}s, session cookie):"
	echo
	echo "| page | req/s | p50 | p99 | non-2xx |"
	echo "|---|--:|--:|--:|--:|"
	for page in "/app/documents" "/app/documents?status=draft" "/app/documents?search=$serial" \
		"/app/documents?from=$today&to=$today" "/app/documents/$inv" "/app/buyers" "/app/received" "/app/receipts" \
		"/app/consolidations" "/app/webhooks" "/app/profile"; do
		out=$(wrk -t1 -c1 -d"${DUR}s" --latency -H "Cookie: $cookie" "$url$page")
		awk -v p="$page" '/Requests\/sec/ { r = $2 } / 50%/ { a = $2 } / 99%/ { b = $2 } /Non-2xx/ { e = $NF }
			END { printf "| `%s` | %d | %s | %s | %d |\n", p, r, a, b, e }' <<<"$out"
		grep -q Non-2xx <<<"$out" && failed=$((failed + 1))
	done
fi
if ((failed > 0)); then
	echo "reads.sh: $failed reads answered other than 2xx" >&2
	exit 1
fi
