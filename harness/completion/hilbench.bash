# bash completion for hilbench: commands, their options, and the names of
# boards, strategies, workloads, plans and metrics. Names and options come
# from the hilbench being completed (`hilbench list`, `hilbench CMD
# --help`), with the command line's --data-dir, so they are the ones it
# would use and cannot drift from it. Installed as
# /usr/share/bash-completion/completions/hilbench; in a clone:
# `source harness/completion/hilbench.bash`.

_hilbench_names() { # KIND: the names `hilbench list KIND` prints
	"${_hb_cmd[@]}" list "$1" 2>/dev/null | awk '!/^#/ && NF { print $1 }' | sort -u
}

# a,b,c lists: complete the last item, keep what is before it
_hilbench_words() {
	local prefix=""
	if [[ $cur == *,* ]]; then prefix=${cur%,*},; fi
	COMPREPLY=($(compgen -P "$prefix" -W "$*" -- "${cur##*,}"))
}

_hilbench() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local _hb_cmd=("${COMP_WORDS[0]}") cmd="" i
	# the command: the first word that is not a global option or its value
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--data-dir) _hb_cmd+=(--data-dir "${COMP_WORDS[i+1]}"); ((i++)) ;;
		--data-dir=*) _hb_cmd+=("${COMP_WORDS[i]}") ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $prev == --data-dir ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
			return
		fi
		local cmds
		cmds=$("${_hb_cmd[@]}" --help 2>/dev/null | awk '/^commands:/ { on = 1; next }
			on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
		COMPREPLY=($(compgen -W "$cmds --data-dir --version --help" -- "$cur"))
		return
	fi
	case $prev in
	--board) _hilbench_words "$(_hilbench_names boards)"; return ;;
	--strategy | --strategies) _hilbench_words "$(_hilbench_names strategies)"; return ;;
	--reference | --candidate) _hilbench_words "$(_hilbench_names strategies)"; return ;;
	--workload | --workloads) _hilbench_words "$(_hilbench_names workloads)"; return ;;
	--plan) _hilbench_words "$(_hilbench_names plans)"; return ;;
	--metric) _hilbench_words "$(_hilbench_names metrics)"; return ;;
	--timing) _hilbench_words "realtime virtual"; return ;;
	--points) _hilbench_words "run session"; return ;;
	--kind) _hilbench_words "board workload plan setting emulator driver"; return ;;
	--format)
		# the formats the command's --help lists
		_hilbench_words "$("${_hb_cmd[@]}" "$cmd" --help 2>/dev/null |
			sed -n 's/.*--format \[*\([a-z|]*\).*/\1/p' | head -n1 | tr '|' ' ')"
		return ;;
	--patch | --series | --out | --junit | --kernel-src | --objects-only | --kernel | --dtb | --ramdisk)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--kernel-git) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("${_hb_cmd[@]}" "$cmd" --help 2>&1 |
			grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
		return
	fi
	case $cmd in
	list) _hilbench_words "boards strategies workloads plans metrics" ;;
	run | compare | nightly) _hilbench_words "$(_hilbench_names plans)"
		COMPREPLY+=($(compgen -f -X '!*.yaml' -- "$cur")) ;;
	help) _hilbench_words "$("${_hb_cmd[@]}" --help 2>/dev/null | awk '/^commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }') files" ;;
	lava) _hilbench_words "job submit" ;;
	check) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -o filenames -F _hilbench hilbench
