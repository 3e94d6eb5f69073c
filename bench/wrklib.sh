# bench/wrklib.sh: what bench/reads.sh and bench/writes.sh share, sourced
# by them from the repository's root: the tools they need, a work
# directory and the processes to stop (and the PostgreSQL database to drop)
# when the script ends, the binaries, a free port and a process's CPU time.
# Set NAME (the script's name for its messages) and PG before sourcing.

for c in wrk jq curl; do command -v $c >/dev/null || { echo "$NAME: needs $c (apt-get install $c)" >&2; exit 2; }; done

work=$(mktemp -d) pids=() pg_db=
cleanup() {
	for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
	for p in ${pids[@]+"${pids[@]}"}; do wait "$p" 2>/dev/null || true; done
	[[ -n $pg_db ]] && psql -q "$PG/test" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/einvoice" ./cmd/einvoice
go build -o "$work/bench" ./bench
go build -o "$work/ceiling" ./bench/ceiling

# port prints a loopback port nothing listens on.
port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 12000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	return 1
}

# cpu PID: the process's user+system CPU in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
