#!/bin/bash
# tests/agent/run.sh: test hb-agent without a board.
#
#   tests/agent/run.sh [INITRAMFS.cpio.gz]
#
# 1. The agent's pure logic: tests/unit/test_agent_proto.c under ASan/UBSan.
# 2. The agent built for the host (build/host-agent/hb-agent) in one-shot
#    mode against the host's iperf3, in a private network namespace
#    (loopback only): DUT-TX, DUT-RX, and a refused connection.
# 3. Given an initramfs from mkinitramfs.sh: its armhf agent serving hbcmd
#    lines (from a FIFO) under qemu-arm-static, chrooted into the initramfs
#    so it runs the initramfs's own busybox ip and iperf3, with eth0 a veth
#    in a private network namespace and the host side at 198.18.0.1.
# Parts 2 and 3 run in user namespaces; part 3 also needs qemu-user-static
# and a kernel that allows binfmt_misc in a user namespace (6.7+). `make
# check-agent` (part of make check-integration) runs parts 1 and 2; part 3
# runs when an initramfs is given (every integration boot runs that agent
# too, on the real kernel). A missing tool (iperf3, qemu-user-static) or no
# user namespaces fails the test: a skip would pass it unseen. Only a
# kernel without binfmt_misc in user namespaces skips part 3, saying so.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/host-agent
CFLAGS=(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2)

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; }
# need TOOL WHAT: fail unless TOOL is on PATH
need() { command -v "$1" >/dev/null || fail "$2: $1 is not installed (make deps installs it)"; }

# Poll a file for a line matching an ERE; 1 after about $2 s.
wait_line() {
	local file=$1 seconds=$2 pattern=$3 i
	for ((i = 0; i < seconds * 10; i++)); do
		grep -Eq "$pattern" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no line /$pattern/ in $file after $seconds s" >&2
	return 1
}

# Every HB FILE block in $1 decodes to its announced size and CRC-32 (the
# CRC of zlib is also the one in a gzip trailer).
check_files() {
	local out=$1 id size crc n=0
	while read -r id size crc; do
		awk -v id="id=$id" '$2 == "FILE" && $3 == id { on = 1; next }
			on && $2 == "EOF" { exit } on { print $3 }' "$out" | base64 -d >"$T/file"
		[[ $(stat -c %s "$T/file") == "$size" ]] || fail "$out: HB FILE $id: size"
		[[ $(gzip -c "$T/file" | tail -c8 | od -An -tx4 -N4 | tr -d ' ') == "$crc" ]] ||
			fail "$out: HB FILE $id: crc32"
		n=$((n + 1))
	done < <(sed -n 's/^HB FILE id=\([^ ]*\) name=iperf.json size=\([0-9]*\) crc32=\([0-9a-f]\{8\}\)$/\1 \2 \3/p' "$out")
	((n)) || fail "$out: no HB FILE"
	awk '$1 == "HB" && $2 == "B64" && length($3) > 76 { bad = 1 } END { exit bad }' "$out" ||
		fail "$out: HB B64 line longer than 76"
}

# A complete run: 17 counters per phase (clock_ns, the interface's 8, the
# 7 /proc/stat fields, profile_clock_ns: docs/agent-protocol.md), the file,
# HB END with status $3.
check_run() {
	local out=$1 id=$2 status=$3 phase n
	for phase in before after; do
		n=$(grep -c "^HB COUNTER id=$id phase=$phase name=[a-z_]* value=[0-9]*$" "$out")
		[[ $n == 17 ]] || fail "$out: $id: $n $phase counters, not 17: $(grep "^HB COUNTER id=$id phase=$phase" "$out" | cut -d' ' -f5 | tr '\n' ' ')"
	done
	grep -q "^HB END id=$id status=$status" "$out" || fail "$out: $id: no END status=$status"
}

# --- part 2, inside: unshare --user --map-root-user --net --mount --pid ------------
if [[ ${1-} == --in-host-netns ]]; then
	T=$2
	mount -t sysfs sysfs /sys	# this namespace's interfaces, no tracefs
	ip link set lo up
	echo "hb.iface=lo hb.addr=127.0.0.1/8 hb.peer=127.0.0.1" >"$T/cmdline"
	export HB_CMDLINE_FILE=$T/cmdline
	iperf3 -s -1 -B 127.0.0.1 -p 5201 >/dev/null 2>&1 &
	wait_line /proc/net/tcp 5 ':1451 00000000:0000 0A'
	$B/hb-agent run id=t1 proto=udp dir=tx len=64 rate=0 time=2 omit=0 streams=1 port=5201 >"$T/t1.out"
	# DUT-RX: the agent is the client too, with -R (the host sends)
	iperf3 -s -1 -B 127.0.0.1 -p 5202 >/dev/null 2>&1 &
	wait_line /proc/net/tcp 5 ':1452 00000000:0000 0A'
	$B/hb-agent run id=r1 proto=tcp dir=rx len=0 rate=0 time=2 omit=0 streams=1 port=5202 >"$T/r1.out"
	rc=0
	$B/hb-agent run id=e1 proto=tcp dir=tx len=0 rate=0 time=1 omit=0 streams=1 port=5999 >"$T/e1.out" || rc=$?
	echo $rc >"$T/e1.rc"
	exit 0
fi

# --- part 3, inside: unshare --user --map-root-user --net --mount --pid ------------
if [[ ${1-} == --in-dut-netns ]]; then
	T=$2 R=$2/root
	if ! mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null; then
		echo "this kernel has no binfmt_misc for user namespaces" >"$T/skip"
		exit 0
	fi
	magic=$(sed -n 's/^magic //p' /usr/share/binfmts/qemu-arm)
	mask=$(sed -n 's/^mask //p' /usr/share/binfmts/qemu-arm)
	printf '%s' ":hb-arm:M::$magic:$mask:$(command -v qemu-arm-static):F" \
		>/proc/sys/fs/binfmt_misc/register
	ip link set lo up
	ip link add hbhost type veth peer name hbdut
	ip addr add 198.18.0.1/24 dev hbhost
	ip link set hbhost up
	mkfifo "$T/cmd"
	# The DUT: its own network namespace, the agent reading the FIFO like
	# a console. Its interface arrives after it starts, like a late probe.
	# shellcheck disable=SC2016 # expanded by the inner shell
	R=$R unshare --net --mount bash -c '
		mount -t proc proc "$R/proc"
		mount -t sysfs sysfs "$R/sys"
		mount -t tmpfs tmpfs "$R/tmp"
		mount --rbind /dev "$R/dev"
		echo "console=ttyS0 hb.iface=eth0 hb.addr=198.18.0.2/24 hb.peer=198.18.0.1" >"$R/tmp/cmdline"
		HB_CMDLINE_FILE=/tmp/cmdline exec chroot "$R" /sbin/hb-agent' <"$T/cmd" >"$T/dut.out" 2>&1 &
	dut=$!
	exec 3>"$T/cmd"
	sleep 1
	ip link set hbdut netns $dut name eth0
	wait_line "$T/dut.out" 30 '^HB (READY|ERROR)'
	iperf3 -s -1 -B 198.18.0.1 -p 5201 >/dev/null 2>&1 &
	wait_line /proc/net/tcp 5 ':1451 00000000:0000 0A'
	echo "hbcmd run id=t1 proto=udp dir=tx len=64 rate=0 time=2 omit=1 streams=1 port=5201" >&3
	wait_line "$T/dut.out" 60 '^HB END id=t1 '
	iperf3 -s -1 -B 198.18.0.1 -p 5202 >/dev/null 2>&1 &
	wait_line /proc/net/tcp 5 ':1452 00000000:0000 0A'
	echo "hbcmd run id=r1 proto=tcp dir=rx len=0 rate=0 time=2 omit=0 streams=1 port=5202" >&3
	wait_line "$T/dut.out" 60 '^HB END id=r1 '
	echo "hbcmd run id=e1 proto=tcp dir=tx len=0 rate=0 time=1 omit=0 streams=1 port=5999" >&3
	wait_line "$T/dut.out" 60 '^HB END id=e1 '
	printf 'hbcmd frobnicate\n\nhbcmd run id=x\n' >&3
	wait_line "$T/dut.out" 10 '^HB END id=\? .*missing'
	exec 3>&-
	wait $dut
	exit 0
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p $B

# --- part 1 ------------------------------------------------------------------------
gcc "${CFLAGS[@]}" -static -o $B/hb-agent harness/agent/*.c
gcc "${CFLAGS[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all -Iharness/agent \
	-o $B/test_agent_proto tests/unit/test_agent_proto.c harness/agent/agent_proto.c -lcmocka
$B/test_agent_proto

# One-shot argument handling needs no network.
rc=0; $B/hb-agent run proto=tcp 2>/dev/null || rc=$?
((rc == 2)) || fail "bad run arguments: exit $rc, want 2"
rc=0; $B/hb-agent serve 2>/dev/null || rc=$?
((rc == 2)) || fail "unknown mode: exit $rc, want 2"
# one-shot has nobody to say stop: the host's deadline is refused
rc=0; $B/hb-agent run id=h proto=tcp dir=tx len=0 rate=0 time=1 omit=0 streams=1 port=5201 \
	deadline=host 2>/dev/null || rc=$?
((rc == 2)) || fail "one-shot deadline=host: exit $rc, want 2"
rc=0
out=$(HB_CMDLINE_FILE=/nonexistent $B/hb-agent run id=n proto=tcp dir=tx len=0 rate=0 time=1 \
	omit=0 streams=1 port=5201) || rc=$?
if ((rc != 1)) || [[ $out != "HB END id=n status=error msg=cannot read /nonexistent: "* ]]; then
	fail "missing cmdline file: exit $rc, '$out'"
fi
echo "PASS: agent unit tests and argument handling"

# --- part 2 ------------------------------------------------------------------------
need iperf3 "host agent against iperf3"
unshare --user --map-root-user --net --mount true 2>/dev/null ||
	fail "host agent against iperf3: no user namespaces here (unshare --user failed)"
unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
	"$0" --in-host-netns "$T"
check_run "$T/t1.out" t1 ok
check_files "$T/t1.out"
grep -q '^HB HIST' "$T/t1.out" && fail "HB HIST without tracefs"
check_run "$T/r1.out" r1 ok
check_files "$T/r1.out"
check_run "$T/e1.out" e1 error
grep -q '^HB END id=e1 status=error msg=iperf3: unable to connect' "$T/e1.out" ||
	fail "refused connection not reported"
[[ $(cat "$T/e1.rc") == 1 ]] || fail "refused connection: exit $(cat "$T/e1.rc"), want 1"
for f in "$T"/{t1,r1,e1}.out; do
	! grep -qv '^HB ' "$f" || fail "$f: a line not starting with 'HB '"
done
echo "PASS: host agent, one-shot, DUT-TX/DUT-RX/refused on loopback"

# --- part 3 ------------------------------------------------------------------------
if [[ -z ${1-} ]]; then
	echo "armhf agent under qemu-arm-static: not run (no initramfs given)"
else
	need qemu-arm-static "armhf agent"
	[[ -f /usr/share/binfmts/qemu-arm ]] ||
		fail "armhf agent: /usr/share/binfmts/qemu-arm missing (qemu-user-static is not installed)"
	mkdir "$T/root"
	(cd "$T/root" && gzip -dc | cpio -id --quiet --no-preserve-owner) <"$1"
	unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
		"$0" --in-dut-netns "$T"
	if [[ -f $T/skip ]]; then
		skip "armhf agent: $(cat "$T/skip")"
	else
		out=$T/dut.out
		grep -q '^HB HELLO agent=1 kernel=[^ ]* machine=armv7l$' "$out" || fail "$out: no HELLO"
		grep -q '^HB READY iface=eth0 addr=198.18.0.2/24 driver=none speed=10000$' "$out" ||
			fail "$out: no READY"
		check_run "$out" t1 ok
		check_run "$out" r1 ok
		check_files "$out"
		grep -q '^HB END id=e1 status=error msg=iperf3: unable to connect' "$out" ||
			fail "$out: refused connection not reported"
		grep -q "^HB END id=? status=error msg=unknown command 'frobnicate'$" "$out" ||
			fail "$out: bad command not rejected"
		echo "PASS: armhf agent from $1 under qemu-arm-static, DUT-TX/DUT-RX/refused over a veth"
	fi
fi
