#!/usr/bin/env bash
# tests/lava/validate.sh HILBENCH: the LAVA jobs hilbench renders are jobs
# LAVA accepts, and they report what hilbench measures (docs/lava.md).
#
#  1. `hilbench lava job` for every board with a lava: section and every
#     strategy x workload of plans/default.yaml validates with LAVA's own
#     schema (lava_common.schemas.validate, strict), a strategy's runtime
#     settings and a profiled workload's functions in the job; a board with
#     a lab's artifact host (lava.artifact_url) has no file:// URL;
#  2. a job without its timeouts is rejected: the check above is live;
#  3. the report steps of a rendered job, run by BusyBox on recorded agent
#     output (tests/data/lava/), report the metrics hilbench's runner
#     computed from the same run;
#  4. every board's device type exists (LAVA's or lava/device-types/), and
#     the device dictionaries (the emulated board's, and a lab example for
#     each device type hilbench ships) render against LAVA's device types
#     the way lava-server renders them, validate with LAVA's device schema,
#     and boot with the job's kernel arguments and static addresses.
#
# Nothing is built: the jobs reference empty stand-in files. Needs root (3
# mounts a private /tmp) and `make deps` (lava-common, python3-jinja2,
# busybox); 4 downloads lava-server's .deb once for its device types
# (lava/device-types.sh).
set -euo pipefail

hb=$(realpath "${1:?usage: $0 path/to/hilbench}")
cd "$(dirname "$0")/../.."
export HILBENCH_HOME=$PWD
# Debian's python: a pyenv python on PATH lacks LAVA's modules.
PY=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/hb-lava.XXXXXX")
# Outside /tmp, which step 3 hides behind a private tmpfs.
run=$(mktemp -d /var/tmp/hb-lava-run.XXXXXX)
trap 'rm -rf "$work" "$run"' EXIT
failures=0
fail() { echo "check-lava: FAIL: $*" >&2; failures=$((failures + 1)); }

"$PY" -c 'import lava_common.schemas, jinja2, yaml' 2>/dev/null ||
	{ echo "check-lava: lava-common or python3-jinja2 is missing; run 'make deps'" >&2; exit 2; }

# The schema's verdict on one job: nothing, or its message.
schema_error() {
	"$PY" -c '
import sys, yaml
from lava_common.schemas import validate
try:
    validate(yaml.safe_load(open(sys.argv[1])), strict=True, extra_context_variables=[])
except Exception as exc:
    print("%s: %s" % (type(exc).__name__, exc))' "$1"
}

touch "$work/zImage" "$work/board.dtb" "$work/initramfs.cpio.gz"
render() {	# BOARD STRATEGY WORKLOAD OUT
	"$hb" lava job --board "$1" --strategy "$2" --workload "$3" --out "$4" \
		--kernel "$work/zImage" --dtb "$work/board.dtb" --ramdisk "$work/initramfs.cpio.gz"
}

# --- 1. every cell of the default plan, on every LAVA board -----------------
read -r -a strategies < <("$PY" -c 'import sys, yaml; print(*yaml.safe_load(open(sys.argv[1]))["strategies"])' plans/default.yaml)
read -r -a workloads < <("$PY" -c 'import sys, yaml; print(*yaml.safe_load(open(sys.argv[1]))["workloads"])' plans/default.yaml)
boards=()
for f in boards/*.yaml; do
	grep -q '^lava:' "$f" && boards+=("$(basename "$f" .yaml)")
done
((${#boards[@]})) || fail "no board file has a lava: section"
jobs=0 with_settings=0
for b in "${boards[@]}"; do
	for s in "${strategies[@]}"; do
		for w in "${workloads[@]}"; do
			job=$work/$b-$s-$w.yaml
			if ! render "$b" "$s" "$w" "$job"; then
				fail "hilbench lava job --board $b --strategy $s --workload $w"
				continue
			fi
			msg=$(schema_error "$job")
			[[ -z $msg ]] || fail "$job: $msg"
			jobs=$((jobs + 1))
			# a strategy's runtime settings: the job's agent applies
			# each (hbcmd set) and the job checks it before the run
			n=$(grep -c '^setting:' "driver-patches/6.1/$s/series" || true)
			if ((n)); then
				[[ $(grep -o "hbcmd set id=[^']*" "$job" | wc -l) == "$n" &&
					$(grep -c "lava-test-case 'hb-setting-" "$job") == "$n" ]] ||
					fail "$job: strategy $s has $n setting(s), the job does not apply them"
				with_settings=$((with_settings + 1))
			fi
		done
	done
done
echo "check-lava: $jobs jobs (${#boards[@]} board(s) x ${#strategies[@]} strategies x ${#workloads[@]} workloads) checked against LAVA's schema; $with_settings apply runtime settings"
# A profiled workload: the agent's one-shot run profiles with the functions
# of the strategy's driver (drivers/stmmac.yaml), as the runner asks.
job=$work/ftrace.yaml
render "${boards[0]}" baseline udp64-dut-tx-ftrace "$job" || fail "hilbench lava job for udp64-dut-tx-ftrace"
grep -q "hb-agent run .* profile=ftrace 'functions=[^']*stmmac_xmit[^']*'" "$job" ||
	fail "$job: the agent's run does not profile the driver's functions"
msg=$(schema_error "$job")
[[ -z $msg ]] || fail "$job: $msg"

# --- 1b. a board on a lab's workers: its artifact host, no file:// ----------
# The shipped lava-local board with the lab keys added (docs/lava.md, "The
# artifact host"), through --data-dir: the job names each image by its
# content-addressed URL under lava.artifact_url with its SHA-256, the
# files are published in lava.artifact_dir, and LAVA's schema takes it.
lab=$work/lab
mkdir -p "$lab/boards"
cp boards/qemu-orangepi-pc.config "$lab/boards/"
sed 's/^name: qemu-orangepi-pc-lava$/name: lab-remote/' boards/qemu-orangepi-pc-lava.yaml >"$lab/boards/lab-remote.yaml"
printf '  artifact_url: https://artifacts.lab.example/hilbench\n  artifact_dir: %s\n' "$lab/published" >>"$lab/boards/lab-remote.yaml"
job=$work/lab-remote.yaml
if "$hb" --data-dir "$lab" lava job --board lab-remote --strategy baseline --workload "${workloads[0]}" \
	--out "$job" --kernel "$work/zImage" --dtb "$work/board.dtb" --ramdisk "$work/initramfs.cpio.gz"; then
	msg=$(schema_error "$job")
	[[ -z $msg ]] || fail "$job: $msg"
	! grep -q 'file://' "$job" || fail "$job: a job for a lab's worker has a file:// URL"
	empty=$(sha256sum <"$work/zImage" | cut -d' ' -f1)
	grep -qx "      url: \"https://artifacts.lab.example/hilbench/sha256/$empty/zImage\"" "$job" &&
		grep -c "      sha256sum: \"$empty\"" "$job" | grep -qx 3 ||
		fail "$job: the images are not content-addressed under lava.artifact_url with their sha256sum"
	[[ -f $lab/published/sha256/$empty/initramfs.cpio.gz ]] || fail "the ramdisk was not published in lava.artifact_dir"
	echo "check-lava: a lab board's job fetches its files from lava.artifact_url, sha256sum under each image, no file://"
else
	fail "hilbench lava job for a board with lava.artifact_url"
fi

# --- 2. the schema check is live ---------------------------------------------
job=$work/${boards[0]}-${strategies[0]}-${workloads[0]}.yaml
"$PY" -c '
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
del job["timeouts"]
yaml.safe_dump(job, open(sys.argv[2], "w"))' "$job" "$work/no-timeouts.yaml"
msg=$(schema_error "$work/no-timeouts.yaml")
[[ $msg == *timeouts* ]] || fail "a job without timeouts was not rejected for it (got: '${msg:-accepted}')"

# --- 3. the DUT's report steps give the runner's metrics ---------------------
mkdir -p "$run/bin"
for applet in sh awk sed grep base64 tee cat; do ln -s "$(command -v busybox)" "$run/bin/$applet"; done
cat >"$run/bin/lava-test-case" <<'EOF'
#!/bin/sh
# Records what LAVA would be told: NAME RESULT MEASUREMENT UNITS
name=$1 result='' measurement='' units=''
shift
while [ $# -ge 2 ]; do
	case $1 in
	--result) result=$2 ;;
	--measurement) measurement=$2 ;;
	--units) units=$2 ;;
	esac
	shift 2
done
echo "$name $result $measurement $units" >>"$HB_CASES"
EOF
chmod +x "$run/bin/lava-test-case"
recorded=0
for out in tests/data/lava/*.out; do
	w=$(basename "$out" .out)
	recorded=$((recorded + 1))
	render "${boards[0]}" "${strategies[0]}" "$w" "$run/$w.yaml" || { fail "rendering $w"; continue; }
	# The steps after the agent's run, as LAVA's run.sh would run them.
	"$PY" -c '
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
test = next(a["test"] for a in job["actions"] if "test" in a)
steps = test["definitions"][0]["repository"]["run"]["steps"]
after = next(i for i, s in enumerate(steps) if s.startswith("/sbin/hb-agent run")) + 1
print("set -e")
print("\n".join(steps[after:]))' "$run/$w.yaml" >"$run/$w.sh"
	: >"$run/$w.cases"
	# A private /tmp, where the job keeps its files on the DUT; the inner
	# shell expands its own arguments.
	# shellcheck disable=SC2016
	if ! unshare --mount sh -c 'mount -t tmpfs tmpfs /tmp && cp "$1" /tmp/hb.out &&
			HB_CASES=$2 PATH=$3/bin exec "$3/bin/sh" "$4"' \
			sh "$out" "$run/$w.cases" "$run" "$run/$w.sh"; then
		fail "$w: the report steps failed"
		continue
	fi
	grep -q '^hb-agent-run pass' "$run/$w.cases" || fail "$w: no passed hb-agent-run test case"
	# Same names, values within 1e-6 (relative): the job prints 6 decimals.
	diffs=$(awk '
		FNR == NR { if ($1 !~ /^#/) { want[$1] = $2; wunit[$1] = $3 } next }
		$1 == "hb-agent-run" { next }
		{
			got[$1] = 1
			if (!($1 in want)) { print "unexpected " $1; next }
			d = $3 - want[$1]; if (d < 0) d = -d
			m = want[$1] < 0 ? -want[$1] : want[$1]
			if ($2 != "pass" || d > 1e-6 * (m > 1 ? m : 1) || $4 != wunit[$1])
				print $1 ": got " $2 " " $3 " " $4 ", want " want[$1] " " wunit[$1]
		}
		END { for (n in want) if (!(n in got)) print "missing " n }' \
		"tests/data/lava/$w.expected" "$run/$w.cases")
	[[ -z $diffs ]] || fail "$w: DUT report differs from the runner's metrics:"$'\n'"$diffs"
done
echo "check-lava: report steps checked on $recorded recorded runs"

# --- 4. the emulated board's device dictionary -------------------------------
version=$(dpkg-query -W -f '${Version}' lava-common)
types=$(bash lava/device-types.sh) || exit 2
for b in "${boards[@]}"; do
	t=$("$PY" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["device_type"])' "$work/$b-${strategies[0]}-${workloads[0]}.yaml")
	[[ -f lava/device-types/$t.jinja2 || -f $types/$t.jinja2 ]] ||
		fail "board $b: device type $t is neither LAVA's nor in lava/device-types/"
done
# hilbench's device dictionaries and the lab examples (one per device type
# hilbench ships), each with the job of a board of its type where one exists.
job_of_type() {	# DEVICE_TYPE: a rendered job for it, else the first board's
	local b t
	for b in "${boards[@]}"; do
		t=$("$PY" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["device_type"])' "$work/$b-${strategies[0]}-${workloads[0]}.yaml")
		[[ $t == "$1" ]] && { echo "$work/$b-${strategies[0]}-${workloads[0]}.yaml"; return; }
	done
	echo "$work/${boards[0]}-${strategies[0]}-${workloads[0]}.yaml"
}
dicts=0
for t in lava/device-types/*.jinja2; do
	t=$(basename "$t" .jinja2)
	[[ $t == hilbench-static-ip || -f lava/devices/$t-01.jinja2 || -f lava/devices/examples/$t-01.jinja2 ]] ||
		fail "device type $t has no device dictionary in lava/devices/ or lava/devices/examples/"
done
for dict in lava/devices/*.jinja2 lava/devices/examples/*.jinja2; do
	dicts=$((dicts + 1))
	type=$(sed -n "s/^{% extends '\(.*\)\.jinja2' %}$/\1/p" "$dict")
	job=$(job_of_type "$type")
	msg=$("$PY" -c '
import sys, yaml, jinja2, jinja2.sandbox
from lava_common.schemas.device import validate
dict_path, types, job_path = sys.argv[1:4]
job = yaml.safe_load(open(job_path))
# As lava-server renders a device for a job: the job context passed in.
env = jinja2.sandbox.SandboxedEnvironment(
    loader=jinja2.FileSystemLoader(["lava/devices", "lava/devices/examples", "lava/device-types", types]),
    trim_blocks=True, autoescape=False)
try:
    device = yaml.safe_load(env.get_template(dict_path.split("/")[-1]).render(**job["context"]))
    validate(device)
except Exception as exc:
    sys.exit("%s: %s" % (type(exc).__name__, exc))
cmds = device["actions"]["boot"]["methods"]["u-boot"]["ramdisk"]["commands"]
args = [c for c in cmds if c.startswith("setenv bootargs")]
if not args or job["context"]["extra_kernel_args"] not in args[0]:
    sys.exit("the ramdisk boot does not pass the job kernel arguments: %s" % args)
if any(c == "dhcp" or "ip=dhcp" in c for c in cmds):
    sys.exit("the ramdisk boot waits for DHCP, which hilbench links do not have")' \
		"$dict" "$types" "$job" 2>&1) || fail "$dict: $msg"
done
echo "check-lava: $dicts device dictionary(ies) rendered with LAVA $version device types"

((failures == 0)) || { echo "check-lava: $failures failure(s)" >&2; exit 1; }
echo "check-lava: ok"
