#!/usr/bin/env bash
# tests/lava/local.sh: one UDP cell of the emulated board through the
# lava-local backend (docs/lava.md): LAVA's own dispatcher (lava-run)
# downloads the kernel, dtb and initramfs over HTTP from the lighttpd
# hilbench starts (content-addressed, SHA-256 checked), deploys them over
# TFTP and boots through U-Boot, inside hilbench's network namespace, and
# hilbench drives the host side. Real LAVA, real lighttpd, real QEMU, real
# kernel; nothing is faked. Asserts behaviour, never speed.
#
# Needs root and `make deps` (lava-dispatcher, tftpd-hpa, lighttpd,
# u-boot-sunxi).
# The kernel and initramfs come from hilbench's cache (built if missing).
set -uo pipefail
cd "$(dirname "$0")/../.."
HB=$PWD/build/hilbench
export HILBENCH_STORE HILBENCH_HOME=$PWD
HILBENCH_STORE=$(mktemp -d /tmp/hb-lava-local.XXXXXX)
trap 'rm -rf "$HILBENCH_STORE"' EXIT
source tests/integration/lib.sh

# Processes this test started (their environment carries our store): QEMU
# under lava-run, lava-run itself, in.tftpd, lighttpd. Other helpers' runs do
# not count.
ours() {
	local pid
	for pid in $(pgrep -f 'qemu-system-arm|lava-run|in.tftpd|lighttpd'); do
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
			grep -qx "HILBENCH_STORE=$HILBENCH_STORE" && echo "$pid"
	done
}

start=$SECONDS
"$HB" run --board qemu-orangepi-pc-lava --strategy baseline --workload udp64-dut-tx \
	--timing realtime
rc=$?
echo "# lava-local: one UDP run took $((SECONDS - start)) s (build cached)"
check "hilbench run through lava-local exits 0" [ "$rc" = 0 ]
# A boot that stalls (docs/lava.md, "Not done yet") is stored as an
# attempt of class error and tried again on a fresh job: the checks read the
# last attempt, and any before it must be the infrastructure's, not a fail.
last="order by attempt desc limit 1"
check "one run passed, at its last attempt; any attempt before it an error" \
	[ "$(sql "select class from runs $last") $(sql "select count(*) from runs
		where attempt < (select max(attempt) from runs) and class != 'error'")" = "pass 0" ]
run=$(sql "select id from runs $last")
boot=$(sql "select boot_id from runs $last")
check "the run's metrics are stored (pps, DUT counters, host netlink count)" \
	[ "$(sql "select count(*) from metrics where run_id='$run' and name in
		('pps', 'dut_tx_packets', 'netlink_dut_tx_frames', 'hrtimer_start.stmmac_tx_timer')")" = 4 ]
check "pps is a positive measurement" \
	[ "$(sql "select value > 0 from metrics where run_id='$run' and name='pps'")" = 1 ]
check "the boot path is recorded with the run" \
	grep -q '^lava-run .*U-Boot from SD' <<<"$(sql "select emulator from runs $last")"
dir=$HILBENCH_STORE/boots/$boot
check "LAVA's job, device and log are kept with the boot" \
	test -s "$dir/lava-job.yaml" -a -s "$dir/lava-device.yaml" -a -s "$dir/lava.log"
# LAVA's own verdicts, from its results lines: the job passed, and the DUT
# reported the agent's run and the same metric names to LAVA.
verdicts=$(/usr/bin/python3 -c '
import sys, yaml
res = [r["msg"] for r in yaml.safe_load(open(sys.argv[1]))]
by = {(r["definition"], r["case"]): r for r in res}
print(by[("lava", "job")]["result"])
print(next(r["result"] for r in res if r["case"] == "hb-agent-run"))
print(float(next(r["measurement"] for r in res if r["case"] == "pps")) > 0)
# the TX timer named by drivers/stmmac.yaml: baseline re-arms it every packet
print(abs(float(next(r["measurement"] for r in res
		       if r["case"] == "hrtimer_starts_per_pkt")) - 1) < 0.01)' \
	"$dir/lava-results.yaml")
check "LAVA's results: job pass, hb-agent-run pass, pps measured, hrtimer starts per packet 1" \
	[ "$verdicts" = $'pass\npass\nTrue\nTrue' ]
check "the console (LAVA's target lines) has the agent's READY and END" \
	grep -q "^HB END id=$run status=ok" "$dir/console.log"
# The artifacts went over HTTP: the job names each image by a
# content-addressed URL on the lighttpd hilbench started in its namespace
# (198.18.0.1), with its SHA-256; LAVA downloaded each from there and its
# check of the sum passed; the published file is read-only and has that sum.
check "the job has no file:// URL" bash -c '! grep -q "file://" "$1"' _ "$dir/lava-job.yaml"
arts=$(/usr/bin/python3 -c '
import hashlib, os, re, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
results = [r["msg"] for r in yaml.safe_load(open(sys.argv[2]))]
log = open(sys.argv[3]).read()
cache = sys.argv[4]
deploy = job["actions"][0]["deploy"]
ok = 0
for key in ("kernel", "dtb", "ramdisk"):
    url, sha = deploy[key]["url"], deploy[key]["sha256sum"]
    m = re.fullmatch(r"http://198\.18\.0\.1:[0-9]+/sha256/([0-9a-f]{64})/[A-Za-z0-9._+-]+", url)
    path = os.path.join(cache, "artifacts", url.split("/", 3)[3])
    data = open(path, "rb").read()
    checked = any(r.get("case") == "http-download" and r.get("result") == "pass"
                  and str(r.get("extra", {})).find(sha) >= 0 for r in results)
    if (m and m.group(1) == sha and hashlib.sha256(data).hexdigest() == sha
            and os.stat(path).st_mode & 0o777 == 0o444
            and ("downloading " + url) in log and checked):
        ok += 1
    else:
        print(key, url, bool(m), checked, ("downloading " + url) in log, file=sys.stderr)
print(ok)' "$dir/lava-job.yaml" "$dir/lava-results.yaml" "$dir/lava.log" \
	"${HILBENCH_CACHE:-$HOME/.cache/hilbench}")
check "LAVA downloaded kernel, dtb and ramdisk over HTTP from hilbench's lighttpd, sha256 checked ($arts of 3)" \
	[ "$arts" = 3 ]
check "the lighttpd bound the namespace's benchmark address only" \
	grep -qx 'server.bind = "198.18.0.1"' "$dir/lighttpd.conf"
# A runtime setting goes to the agent in the job before the run, on the
# same control connection, and is read back as on the qemu backend.
"$HB" run --board qemu-orangepi-pc-lava --strategy knob-tx-usecs-5000 --workload udp64-dut-tx \
	--timing realtime
# its last attempt: a boot that stalls is an infrastructure error, retried
# on a fresh boot (docs/faults.md), as it was once in make check
check "a strategy with a runtime setting runs through lava-local (exit $?)" \
	[ "$(sql "select class from runs where strategy = 'knob-tx-usecs-5000'
		order by attempt desc limit 1")" = pass ]
check "... its setting was applied and read back in the LAVA job" eval \
	'sql "select settings from runs where strategy = '"'knob-tx-usecs-5000'"'" |
		grep -q "\"requested\":\"5000\",\"read_back\":\"5000\",\"status\":\"ok\""'
check "nothing of ours is left running, none in a network namespace (a tap) of its own" \
	eval '[ -z "$(ours)" ] && host_is_clean'

echo "# lava-local: $pass passed, $fail failed"
[ "$fail" = 0 ]
