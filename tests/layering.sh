#!/usr/bin/env bash
# tests/layering.sh [DIR]: the #include "..." edges of harness/src (or DIR,
# laid out the same) keep to the layers of docs/design.md ("Layers"):
#
#   cmd -> run -> {build, deploy, measure, analyze} -> {config, store} -> util
#
# A file may include its own folder and the folders of lower layers, and the
# agent's protocol header (harness/agent, shared with the DUT, includes
# nothing of the host). An include of a higher layer, of a sibling (two
# stages, or config and store), of a folder with no layer or of a file that
# is not there fails, naming file:line and the edge. The one sibling edge
# allowed is listed in ALLOWED with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-harness/src}
# folder:layer, lowest first
LAYERS="util:0 config:1 store:1 build:2 deploy:2 measure:2 analyze:2 run:3 cmd:4"
# from-folder:included-file. A run drives the booted DUT through its console
# (struct dut, the line protocol) and waits in the benchmark network
# namespace that deploy set up; both are deploy's, and measure needs no
# other part of it.
ALLOWED="measure:deploy/dut.h measure:deploy/netns.h"
mapfile -t files < <(find "$src" -name '*.[ch]' | sort)
awk -v src="$src" -v layers="$LAYERS" -v allowed="$ALLOWED" '
BEGIN {
	n = split(layers, l, " ")
	for (i = 1; i <= n; i++) { split(l[i], kv, ":"); rank[kv[1]] = kv[2] }
	n = split(allowed, a, " ")
	for (i = 1; i <= n; i++) ok[a[i]] = 1
	bad = 0
}
FNR == 1 {
	rel = substr(FILENAME, length(src) + 2)
	from = rel; sub(/\/.*/, "", from)
	if (!(from in rank)) {
		printf "%s: folder %s has no layer (add it to tests/layering.sh and docs/design.md)\n", FILENAME, from
		bad = 1
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	where = FILENAME ":" FNR
	if (inc !~ /\//) {
		dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
		if (system("test -f \"" dir "/" inc "\"") == 0 || system("test -f \"harness/agent/" inc "\"") == 0)
			next
		printf "%s: %s -> \"%s\": no such file beside it or in harness/agent\n", where, from, inc
		bad = 1; next
	}
	to = inc; sub(/\/.*/, "", to)
	if (system("test -f \"" src "/" inc "\"") != 0) {
		printf "%s: %s -> \"%s\": no such file in %s\n", where, from, inc, src
		bad = 1; next
	}
	if (to == from || !(from in rank))
		next
	if (!(to in rank)) {
		printf "%s: %s -> %s (\"%s\"): folder %s has no layer\n", where, from, to, inc, to
		bad = 1
	} else if (rank[to] > rank[from]) {
		printf "%s: %s -> %s (\"%s\"): goes up, from layer %d to %d\n", where, from, to, inc, rank[from], rank[to]
		bad = 1
	} else if (rank[to] == rank[from] && !((from ":" inc) in ok)) {
		printf "%s: %s -> %s (\"%s\"): between siblings of layer %d\n", where, from, to, inc, rank[from]
		bad = 1
	} else {
		edges++
	}
}
END {
	if (bad) {
		print "layering: the edges above break the layers of docs/design.md" > "/dev/stderr"
		exit 1
	}
	printf "layering: %d includes across folders, each to a lower layer or allowed\n", edges
}' "${files[@]}"
