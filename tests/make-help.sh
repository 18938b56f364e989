#!/usr/bin/env bash
# tests/make-help.sh: every target in the Makefile's .PHONY list has a line
# in `make help` (its `## text`), and make help lists nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
phony=$(sed -n '/^\.PHONY:/,/[^\\]$/p' Makefile | tr -d '\\' | sed 's/^\.PHONY://' | tr ' \t' '\n\n' |
	grep . | sort)
helped=$(make --no-print-directory help | awk '{ print $2 }' | sort)
if [[ $phony != "$helped" ]]; then
	echo "make-help: .PHONY and make help differ (< only in .PHONY, > only in help):" >&2
	diff <(echo "$phony") <(echo "$helped") >&2 || true
	exit 1
fi
echo "make-help: $(wc -l <<<"$phony") targets, each with a help line"
