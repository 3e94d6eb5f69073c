# One command each for the usual jobs. CI runs .ci/run.
PG ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable

.PHONY: run test-short test test-pg bench load pace chaos chaos-short lint fuzz generate
run:            ## start the service on ./einvoice.db with the built-in sandbox
	go run ./cmd/einvoice serve
test-short:     ## the inner loop before each commit: no PostgreSQL, no browser, no binary builds, no kills or replicas
	go test -short ./...
test:           ## the whole suite, race detector on (scripts/test; PostgreSQL tests skip unless EINVOICE_TEST_POSTGRES_URL is set)
	scripts/test
test-pg:        ## the whole suite with the PostgreSQL tests against the local server
	EINVOICE_TEST_POSTGRES_URL='$(PG)' scripts/test
bench:          ## Go benchmarks: the calculation, and the whole service over loopback HTTP
	go test -run '^$$' -bench . ./internal/einvoice/
	EINVOICE_TEST_POSTGRES_URL='$(PG)' go test -run '^$$' -bench . -benchtime 3s ./internal/e2e/benchmarks/ ./internal/e2e/lifecycle/
load:           ## the load harness against a freshly started binary, SQLite and PostgreSQL
	bench/run.sh
pace:           ## 100,000 documents to Valid at the authority's pace, on SQLite then PostgreSQL, one tenant then 10 (bench/README.md)
	ENGINE=sqlite PACE_TENANTS=1 bench/pace.sh
	ENGINE=postgres PACE_TENANTS=1 bench/pace.sh
	ENGINE=sqlite PACE_TENANTS=10 bench/pace.sh
	ENGINE=postgres PACE_TENANTS=10 bench/pace.sh
chaos:          ## the chaos test at the issue's size: 600 documents, 15 kills, SQLite, PostgreSQL, two replicas (bench/README.md)
	go run ./bench/chaos -engine sqlite,postgres,postgres-x2 -docs 600 -kills 15 -pg '$(PG)'
chaos-short:    ## the chaos test at CI's size: 200 documents, 5 kills, the same three engines
	go run ./bench/chaos -engine sqlite,postgres,postgres-x2 -pg '$(PG)'
lint:           ## gofmt, go vet, staticcheck
	scripts/lint
fuzz:           ## fuzz the parsers (requests, money, UBL, signatures, the sandbox's submit, receipts, the request page's form) and the calculation and consolidation, a minute each
	go test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 60s ./internal/httpapi/
	go test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60s ./internal/money/
	go test -run '^$$' -fuzz '^FuzzCalculate$$' -fuzztime 60s ./internal/einvoice/
	go test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60s -fuzzminimizetime 5s ./internal/ubl/
	go test -run '^$$' -fuzz '^FuzzVerify$$' -fuzztime 60s -fuzzminimizetime 5s ./internal/dsig/
	go test -run '^$$' -fuzz '^FuzzSubmit$$' -fuzztime 60s -fuzzminimizetime 0 ./internal/sandbox/
	go test -run '^$$' -fuzz '^FuzzReceipt$$' -fuzztime 60s -fuzzminimizetime 0 ./internal/httpapi/
	go test -run '^$$' -fuzz '^FuzzRequestForm$$' -fuzztime 60s -fuzzminimizetime 0 ./internal/requestpage/
	go test -run '^$$' -fuzz '^FuzzConsolidation$$' -fuzztime 60s ./internal/einvoice/
generate:       ## regenerate the reference lists (see internal/refdata/gen)
	go generate ./internal/refdata/
