#!/usr/bin/env bash
# tests/lava/lab-job.sh: the job `hilbench lava job` prints for a lab
# (docs/lava.md), run by LAVA's own dispatcher the way a lab's worker runs
# it: the board names the lab's artifact host (lava.artifact_url), here a
# lighttpd this script starts as a lab would, serving lava.artifact_dir on
# 198.18.0.1 in a network namespace of its own; lava-run fetches kernel,
# dtb and initramfs from it over HTTP and checks their SHA-256, boots the
# emulated board through U-Boot and TFTP, and the job's agent applies the
# strategy's runtime setting (knob-tx-usecs-5000: tx-usecs 5000), reads it
# back, runs the workload by itself against an iperf3 server here and
# reports to LAVA. Real LAVA, lighttpd, QEMU and kernel; nothing is faked,
# and hilbench takes no part once the job is rendered. Asserts behaviour,
# never speed; prints the time it took.
#
# Needs root and `make deps` (lava-dispatcher, tftpd-hpa, lighttpd, the
# armhf U-Boot); the kernel and initramfs come from hilbench's cache
# (built if missing).
set -uo pipefail
cd "$(dirname "$0")/../.."
t0=$SECONDS
if [[ ${HB_IN_NETNS:-} != 1 ]]; then
	[[ $(id -u) == 0 ]] || { echo "lab-job.sh: needs root" >&2; exit 2; }
	HB_IN_NETNS=1 exec unshare --net --fork "$0" "$@"
fi

# --- inside a network namespace of our own ---------------------------------------
HB=$PWD/build/hilbench
export HILBENCH_HOME=$PWD HILBENCH_STORE
work=$(mktemp -d /var/tmp/hb-lava-lab.XXXXXX)
HILBENCH_STORE=$work/store
UBOOT=/usr/local/lib/u-boot/nanopi_neo/u-boot-sunxi-with-spl.bin
PORT=8088
pids=()
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
cleanup() {
	local p ns
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	# QEMU under lava-run: anything still in this namespace is ours.
	ns=$(readlink /proc/$$/ns/net)
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[[ $p != "$$" && $p != "$PPID" && $(readlink "/proc/$p/ns/net" 2>/dev/null) == "$ns" ]] && kill -9 "$p" 2>/dev/null
	done
	[[ $fail == 0 && ${KEEP:-} != 1 ]] && rm -rf "$work" || echo "lab-job.sh: kept $work"
}
trap cleanup EXIT

ip link set lo up
ip tuntap add dev hb0 mode tap
ip addr add 198.18.0.1/24 dev hb0
ip link set hb0 up
echo 1 >/proc/sys/net/ipv6/conf/hb0/disable_ipv6

# A lab's board: the shipped lava-local board with the lab's artifact host.
mkdir -p "$work/data/boards" "$work/artifacts"
cp boards/qemu-orangepi-pc.config "$work/data/boards/"
sed 's/^name: qemu-orangepi-pc-lava$/name: lab-opi/' boards/qemu-orangepi-pc-lava.yaml >"$work/data/boards/lab-opi.yaml"
printf '  artifact_url: http://198.18.0.1:%d/hilbench\n  artifact_dir: %s/artifacts\n' "$PORT" "$work" \
	>>"$work/data/boards/lab-opi.yaml"
job=$work/job.yaml
"$HB" --data-dir "$work/data" lava job --board lab-opi --strategy knob-tx-usecs-5000 \
	--workload udp64-dut-tx --out "$job"
check "hilbench lava job renders the lab job (exit $?)" test -s "$job"
check "the lab job has no file:// URL" bash -c '! grep -q "file://" "$1"' _ "$job"

# The lab's web server: lighttpd over the artifact directory at the URL's
# path, on the lab network's address only.
mkdir -p "$work/www"
ln -s "$work/artifacts" "$work/www/hilbench"
cat >"$work/lighttpd.conf" <<EOF
server.document-root = "$work/www"
server.bind = "198.18.0.1"
server.port = $PORT
mimetype.assign = ( "" => "application/octet-stream" )
EOF
lighttpd -D -f "$work/lighttpd.conf" >"$work/lighttpd.log" 2>&1 &
pids+=($!)
# TFTP for U-Boot, and the iperf3 server the job's agent sends to.
tftp_dir=$(sed -n 's/^TFTP_DIRECTORY="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/default/tftpd-hpa)
tftp_dir=${tftp_dir:-/srv/tftp}
mkdir -p "$tftp_dir"
/usr/sbin/in.tftpd --foreground --listen --address 198.18.0.1:69 --secure "$tftp_dir" &
pids+=($!)
iperf3 -s -B 198.18.0.1 -p 5201 -1 >"$work/iperf3.log" 2>&1 &
pids+=($!)

# The device as lava-server renders it for this job, and the SD card.
truncate -s 64M "$work/sd.img" && dd if="$UBOOT" of="$work/sd.img" bs=1k seek=8 conv=notrunc status=none
args=$(/usr/bin/python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["context"]["extra_kernel_args"])' "$job")
types=$(bash lava/device-types.sh)
/usr/bin/python3 lava/render-device.py hilbench-qemu-orangepi-pc-01 "$types" "$work/device.yaml" \
	"extra_kernel_args=$args" hb_qemu=qemu-system-arm "hb_sd_image=$work/sd.img" hb_tap=hb0 \
	hb_dut_ip=198.18.0.2 hb_host_ip=198.18.0.1 hb_netmask=255.255.255.0 ||
	not_ok "the device dictionary renders"
printf 'dispatcher_ip: 198.18.0.1\n' >"$work/dispatcher.yaml"
for _ in $(seq 100); do
	grep -q ":$(printf '%04X' $PORT) 00000000:0000 0A" /proc/net/tcp && break
	sleep 0.05
done

t1=$SECONDS
PATH=/usr/bin:/usr/sbin:/bin:/sbin PYTHONUNBUFFERED=1 no_proxy='*' timeout 600 \
	lava-run --job-id "$((900000 + $$ % 90000))" --output-dir "$work/out" \
	--device "$work/device.yaml" --dispatcher "$work/dispatcher.yaml" "$job" >"$work/lava.log" 2>&1
rc=$?
echo "# lab-job: lava-run took $((SECONDS - t1)) s"
check "lava-run exits 0" [ "$rc" = 0 ]
verdicts=$(/usr/bin/python3 -c '
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
def entries(path):	# one YAML mapping a line, as lava-run prints them
    for line in open(path):
        try:
            e = yaml.safe_load(line)
        except yaml.YAMLError:
            continue
        if isinstance(e, dict):
            yield e
log = list(entries(sys.argv[2]))
res = [e["msg"] for e in log if e.get("lvl") == "results"]
case = lambda c: next((r for r in res if r.get("case") == c), {})
deploy = job["actions"][0]["deploy"]
fetched = sum(1 for k in ("kernel", "dtb", "ramdisk")
              if deploy[k]["url"].startswith("http://198.18.0.1:")
              and any(r.get("case") == "http-download" and r.get("result") == "pass"
                      and str(r.get("extra")).find(deploy[k]["sha256sum"]) >= 0 for r in res))
print(fetched)
print(case("job").get("result"))
print(case("hb-setting-tx-usecs").get("result"))
print(case("hb-agent-run").get("result"))
print(float(case("pps").get("measurement", 0)) > 0)' "$job" "$work/lava.log")
mapfile -t v <<<"$verdicts"
check "LAVA fetched kernel, dtb and ramdisk from the lab's artifact host, sha256 checked (${v[0]:-?} of 3)" [ "${v[0]:-}" = 3 ]
check "LAVA's job result is pass" [ "${v[1]:-}" = pass ]
check "the job's agent applied tx-usecs 5000 and read it back (hb-setting-tx-usecs: ${v[2]:-none})" [ "${v[2]:-}" = pass ]
check "the agent's run passed and reported pps to LAVA" [ "${v[3]:-}/${v[4]:-}" = pass/True ]
check "the setting's read-back is on the console" \
	grep -q 'HB SETTING id=udp64-dut-tx-s1 key=tx-usecs value=5000' "$work/lava.log"

echo "# lab-job: $pass passed, $fail failed, $((SECONDS - t0)) s in all"
[ "$fail" = 0 ]
