#!/bin/bash
# The callers' own capture scripts, run against our binary (issue 18 part 3).
# tests/e2e/callers.sh types their command lines by hand; here the vendored,
# unmodified scripts in tests/lab/callers/ (see each SOURCE) build and run
# them: Fedora/RHEL kdump-utils' kdump.sh (local target with
# --num-threads=$(nproc), ssh target with -F into ssh) and SUSE's kdump-save
# (local and ssh, flattened into a fifo; its -F --dump-dmesg step on the real
# fixture when present), plus the --split command line of
# SUSE's old C++ kdumptool, typed from its source (not buildable here).
# Every resulting file is rearranged with our -R where flattened, then read by
# tools/kdump.py (every page against the vmcore) and by libkdumpfile.
#
# The scripts run from copies in $T with these absolute paths substituted
# (sed, at run time; the vendored files stay verbatim):
#   all:        /proc/vmcore -> the case's vmcore (synthetic, cut, or fixture)
#   kdump.sh:   /lib/{dracut-lib,kdump-logger,kdump-lib-initramfs}.sh -> $R/lib/,
#               /etc/ -> $R/etc/, /tmp/ -> $R/tmp/, /run/initramfs/ -> $R/,
#               /dev/console -> $R/console, /sbin/vmcore-dmesg -> vmcore-dmesg
#               (stub), /var/lib/random-seed -> /dev/null
#   kdump-lib-initramfs.sh: /etc/ -> $R/etc/ (KDUMP_CONFIG_FILE),
#               /sbin/ip -> ip (stub)
#   kdump-logger.sh: /lib/dracut-lib.sh -> $R/lib/dracut-lib.sh
#   kdump-save: /etc/kdump.conf, /etc/hostname.kdump -> $R/, /kdump/mnt ->
#               $R/mnt, /tmp/ -> $R/tmp/, /sys/class/leds -> $R/leds,
#               /sys/kernel/fadump -> $R/fadump
# Only-in-the-initramfs commands are stubs on PATH: ssh (runs the remote
# command locally), scp, findmnt, mount, systemctl, logger, systemd-cat, ip,
# ping, umount, reboot, dmesg, journalctl, vmcore-dmesg; dracut-lib.sh is a
# stub (getarg, make_trace_mem).  "makedumpfile" is a wrapper that logs its
# argv and exit status and runs $MDF.
# shellcheck disable=SC1091,SC2012,SC2016
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genspec.sh"
KPY="$MDF_SHARED/tools/kdump.py"
LKC="$MDF_SRC/tests/tools/libkdumpfile_check.py"
KU="$MDF_SRC/tests/lab/callers/kdump-utils"
SK="$MDF_SRC/tests/lab/callers/suse-kdump"
for f in "$KU/kdump.sh" "$KU/kdump-lib-initramfs.sh" "$KU/kdump-logger.sh" \
	"$SK/kdump-save" "$SK/kdump-read-config.sh"; do
	[ -f "$f" ] || { skip "callerscripts" "missing $f"; exit 0; }
done
while read -r line; do echo "# kdump-utils: $line"; done < <(grep -E '^(Repository|Commit):' "$KU/SOURCE")
while read -r line; do echo "# suse-kdump: $line"; done < <(grep -E '^(Repository|Commit):' "$SK/SOURCE")

genspec_small >"$T/spec"
"$GEN" "$T/spec" "$T/vmcore" || { notok "callerscripts" "mkvmcore failed"; exit 0; }
V="$T/vmcore"
# A vmcore cut in half: our binary refuses it (PT_LOAD past end of file).
head -c $(($(stat -c %s "$V") / 2)) "$V" >"$T/badcore"
HAVE_LKF=0
/usr/bin/python3 -c 'import kdumpfile' 2>/dev/null && HAVE_LKF=1

# readable NAME FILE: kdump file with every page right (kdump.py) and opened
# and read page by page by libkdumpfile.
readable() {
	local name=$1 f=$2 out
	if [ -f "$KPY" ]; then
		if python3 "$KPY" pages "$f" "$V" 2>&1 | grep -q " 0 differ"; then ok "$name-kdumppy"
		else notok "$name-kdumppy" "$(python3 "$KPY" pages "$f" "$V" 2>&1 | tail -n1)"; fi
	else skip "$name-kdumppy" "no $KPY"; fi
	if [ $HAVE_LKF = 1 ]; then
		out=$(/usr/bin/python3 "$LKC" "$f" "$V" 2>&1)
		if [[ "$out" == pages* ]]; then ok "$name-libkdumpfile ($out)"
		else notok "$name-libkdumpfile" "$out"; fi
	else skip "$name-libkdumpfile" "python3-libkdumpfile not installed"; fi
}
# unflatten NAME FLAT OUT: our -R of a flattened stream.
unflatten() {
	if "$MDF" -R "$3" <"$2" >/dev/null 2>"$T/R.err"; then ok "$1-R"; return 0; fi
	notok "$1-R" "$(tail -n1 "$T/R.err")"; return 1
}
# flat_same NAME FLAT CHECK: -R, every page readable, and the result the
# same bytes as kdump-utils' local one-CPU dump (test CHECK).
flat_same() {
	unflatten "$1" "$2" "$T/$1.vmcore" || return
	readable "$1" "$T/$1.vmcore"
	if cmp -s "$T/$1.vmcore" "$KU_SER"; then ok "$3"
	else notok "$3" "differs from kdump-utils' local -l -d 31 dump (1 CPU)"; fi
}

# ---- stubs ------------------------------------------------------------------
BIN="$T/bin"
mkdir -p "$BIN"
REAL_NPROC=$(command -v nproc)
stub() { { echo '#!/bin/bash'; cat; } >"$BIN/$1"; chmod +x "$BIN/$1"; }
stub makedumpfile <<EOF
echo "argv \$*" >>"\$STUB_LOG"
"$MDF" "\$@"; rc=\$?
echo "rc \$rc" >>"\$STUB_LOG"
exit \$rc
EOF
# ssh [options] HOST COMMAND...: run COMMAND here, stdin passed on.  With
# SSH_FAIL set, a command containing it reads a little and dies like a lost
# connection.
stub ssh <<'EOF'
while [ $# -gt 0 ]; do
	case $1 in -i|-o|-p|-l) shift 2 ;; -*) shift ;; *) break ;; esac
done
host=$1; shift
echo "ssh $host $*" >>"$STUB_LOG"
if [ -n "${SSH_FAIL:-}" ] && [[ "$*" == *"$SSH_FAIL"* ]]; then
	head -c 65536 >/dev/null; exit 255
fi
exec sh -c "$*"
EOF
stub scp <<<'echo "scp $*" >>"$STUB_LOG"'
# findmnt: the dump target $KU_DEV is mounted (rw) on $KU_MNT.
stub findmnt <<'EOF'
case " $* " in
*" -o FSTYPE "*) echo xfs ;;
*" -o OPTIONS "*) echo rw,relatime ;;
*" --source "*) echo "$KU_MNT $KU_DEV" ;;
*) [ -d "${*: -1}" ] ;;
esac
EOF
stub systemctl <<'EOF'
echo "systemctl $*" >>"$STUB_LOG"
[[ " $* " != *" is-active "* ]]
EOF
stub logger <<<'echo "logger $*" >>"$STUB_LOG"'
stub systemd-cat <<<'exit 1'
stub ip <<'EOF'
case "$*" in
*route*) echo "192.0.2.1 dev kdump0 src 192.0.2.7 uid 0" ;;
*addr*) echo "    inet 192.0.2.7/24 brd 192.0.2.255 scope global kdump0" ;;
esac
EOF
stub vmcore-dmesg <<<'echo "[    0.000000] synthetic dmesg"'
for c in mount umount reboot ping dmesg journalctl; do
	stub $c <<<"echo \"$c \$*\" >>\"\$STUB_LOG\""
done
stub nproc <<EOF
[ -n "\${FAKE_NPROC:-}" ] && { echo "\$FAKE_NPROC"; exit 0; }
exec "$REAL_NPROC" "\$@"
EOF
export STUB_LOG
PATH="$BIN:$PATH"
NPROC=$(nproc)

# ---- Fedora/RHEL kdump-utils: dracut/99kdumpbase/kdump.sh -------------------
# ku_run NAME VMCORE CONFIG [ENV=VALUE...]: run kdump.sh from copies in
# $T/NAME with CONFIG as /etc/kdump.conf; sets R, RC.
ku_run() {
	local name=$1 vm=$2 conf=$3; shift 3
	R="$T/$name"
	mkdir -p "$R/lib" "$R/etc" "$R/tmp" "$R/mnt"
	# /tmp/ first: $T itself is under /tmp.
	sed -e "s#/tmp/#$R/tmp/#g" \
		-e "s#/lib/\(dracut-lib\|kdump-logger\|kdump-lib-initramfs\)\.sh#$R/lib/\1.sh#g" \
		-e "s#/proc/vmcore#$vm#g" -e "s#/etc/#$R/etc/#g" \
		-e "s#/run/initramfs/#$R/#g" -e "s#/dev/console#$R/console#g" \
		-e "s#/sbin/vmcore-dmesg#vmcore-dmesg#g" -e "s#/var/lib/random-seed#/dev/null#g" \
		"$KU/kdump.sh" >"$R/kdump.sh"
	sed -e "s#/etc/#$R/etc/#g" -e "s#/sbin/ip #ip #g" \
		"$KU/kdump-lib-initramfs.sh" >"$R/lib/kdump-lib-initramfs.sh"
	sed -e "s#/lib/dracut-lib.sh#$R/lib/dracut-lib.sh#g" -e "s#/proc/vmcore#$vm#g" \
		"$KU/kdump-logger.sh" >"$R/lib/kdump-logger.sh"
	cat >"$R/lib/dracut-lib.sh" <<-'EOF'
	# stub of dracut's dracut-lib.sh: the kernel command line has only
	# kdump_remote_ip= (for ssh targets).
	getarg() { case $1 in kdump_remote_ip=) [ -n "${KU_REMOTE_IP:-}" ] && echo "$KU_REMOTE_IP" ;; esac; return 0; }
	isdigit() { case $1 in *[!0-9]* | "") return 1 ;; esac; }
	make_trace_mem() { :; }
	source_conf() { :; }
	source_hook() { :; }
	EOF
	printf '%s\n' "$conf" >"$R/etc/kdump.conf"
	STUB_LOG="$R/stub.log"
	: >"$STUB_LOG"
	env KU_MNT="$R/mnt" KU_DEV="LABEL=kdumptest" "$@" \
		timeout 120 bash "$R/kdump.sh" >"$R/out" 2>&1
	RC=$?
}
# logsays PATTERN: kdump.sh logged PATTERN.  kdump-logger.sh sends its
# messages to syslog (the logger stub) only when run as root; unchecked else.
logsays() { [ "$(id -u)" != 0 ] || grep -q "$1" "$R/stub.log"; }
# argv NAME: the makedumpfile argv the script ran for the vmcore (not dmesg).
argv() { grep '^argv ' "$R/stub.log" | tail -n1 | sed 's/^argv //'; }

KUCONF_LOCAL="xfs LABEL=kdumptest
path /var/crash
core_collector makedumpfile -l --message-level 7 -d 31
final_action reboot"

# Local target, nproc CPUs: dump_fs writes vmcore-incomplete, renames it.
THR=$NPROC FAKE=()
[ "$NPROC" -gt 1 ] || { THR=2; FAKE=(FAKE_NPROC=2); }
ku_run ku-local "$V" "$KUCONF_LOCAL" "${FAKE[@]}"
d=("$R"/mnt/var/crash/127.0.0.1-*)
if [ $RC -eq 0 ] && [ ${#d[@]} = 1 ] && [ -f "${d[0]}/vmcore" ] && [ ! -e "${d[0]}/vmcore-incomplete" ] &&
	grep -q "^rc 0$" "$R/stub.log" && logsays "saving vmcore complete" &&
	grep -q "makedumpfile Completed." "$R/console" && grep -q "systemctl reboot -f" "$R/stub.log"; then
	ok "ku-local (vmcore-incomplete renamed to ${d[0]#"$R"/mnt}/vmcore)"
	KU_THR="${d[0]}/vmcore"
	readable ku-local "$KU_THR"
else notok "ku-local" "rc=$RC $(tail -n3 "$R/out" "$R/stub.log" "$R/console" 2>&1 | tr '\n' ' ')"; KU_THR=""; fi
a=$(argv)
# (dump_fs's path ends in "/", hence the "//")
if [ "$a" = "-l --message-level 7 -d 31 --num-threads=$THR $V ${d[0]}//vmcore-incomplete" ]; then
	ok "ku-local-num-threads (kdump.sh added --num-threads=$THR${FAKE[*]:+, nproc stubbed to 2 on this 1-CPU host})"
else notok "ku-local-num-threads" "argv: $a"; fi

# Local target, one CPU: no --num-threads; same file as with threads.
ku_run ku-serial "$V" "$KUCONF_LOCAL" FAKE_NPROC=1
d=("$R"/mnt/var/crash/127.0.0.1-*)
KU_SER="${d[0]}/vmcore"
a=$(argv)
if [ $RC -eq 0 ] && [ "$a" = "-l --message-level 7 -d 31 $V ${d[0]}//vmcore-incomplete" ] &&
	[ -n "$KU_THR" ] && cmp -s "$KU_SER" "$KU_THR"; then
	ok "ku-local-1cpu-equals-threaded"
else notok "ku-local-1cpu-equals-threaded" "rc=$RC argv: $a"; fi

# ssh target: makedumpfile -F | ssh HOST "dd of=DIR/vmcore-incomplete", then
# ssh HOST mv ... vmcore.flat; no --num-threads with -F.
REMOTE="$T/remote"
KUCONF_SSH="ssh root@dumphost.example
path $REMOTE/var/crash
core_collector makedumpfile -l --message-level 7 -d 31
final_action reboot"
ku_run ku-ssh "$V" "$KUCONF_SSH" KU_REMOTE_IP=192.0.2.1
d=("$REMOTE"/var/crash/192.0.2.7-*)
a=$(argv)
if [ $RC -eq 0 ] && [ ${#d[@]} = 1 ] && [ -f "${d[0]}/vmcore.flat" ] && [ ! -e "${d[0]}/vmcore-incomplete" ] &&
	[ -f "${d[0]}/vmcore-dmesg.txt" ] && [ "$a" = "-l --message-level 7 -d 31 -F $V" ] &&
	grep -q "^ssh root@dumphost.example umask 0077 && dd bs=512 of=" "$R/stub.log"; then
	ok "ku-ssh (-F into ssh dd, renamed ${d[0]#"$REMOTE"}/vmcore.flat)"
	flat_same ku-ssh "${d[0]}/vmcore.flat" ku-ssh-R-equals-local
else notok "ku-ssh" "rc=$RC argv: $a; $(tail -n3 "$R/stub.log" | tr '\n' ' ')"; fi
rm -rf "$REMOTE"

# Failures: our non-zero status reaches the script, which leaves no vmcore
# (local) / vmcore.flat (ssh) and exits 1.
ku_run ku-local-fail "$T/badcore" "$KUCONF_LOCAL"
d=("$R"/mnt/var/crash/127.0.0.1-*)
ours=$(grep '^rc ' "$R/stub.log" | tail -n1 | cut -d' ' -f2)
if [ $RC -eq 1 ] && [ "${ours:-0}" != 0 ] && [ -d "${d[0]}" ] && [ ! -e "${d[0]}/vmcore" ] &&
	logsays "saving vmcore failed, exitcode:$ours"; then
	ok "ku-local-fail (our rc $ours seen, no vmcore)"
else notok "ku-local-fail" "rc=$RC ours=$ours $(ls "${d[0]}" 2>&1 | tr '\n' ' ')"; fi
ku_run ku-ssh-fail "$T/badcore" "$KUCONF_SSH" KU_REMOTE_IP=192.0.2.1
d=("$REMOTE"/var/crash/192.0.2.7-*)
ours=$(grep '^rc ' "$R/stub.log" | tail -n1 | cut -d' ' -f2)
if [ $RC -eq 1 ] && [ "${ours:-0}" != 0 ] && [ -d "${d[0]}" ] && [ ! -e "${d[0]}/vmcore.flat" ] &&
	logsays "saving vmcore failed, exitcode:$ours"; then
	ok "ku-ssh-fail (our rc $ours seen through the pipe, no vmcore.flat)"
else notok "ku-ssh-fail" "rc=$RC ours=$ours $(ls "${d[0]}" 2>&1 | tr '\n' ' ')"; fi
rm -rf "$REMOTE"
ku_run ku-ssh-lost "$V" "$KUCONF_SSH" KU_REMOTE_IP=192.0.2.1 SSH_FAIL="vmcore-incomplete'"
d=("$REMOTE"/var/crash/192.0.2.7-*)
ours=$(grep '^rc ' "$R/stub.log" | tail -n1 | cut -d' ' -f2)
if [ $RC -eq 1 ] && [ "${ours:-0}" != 0 ] && [ -d "${d[0]}" ] && [ ! -e "${d[0]}/vmcore.flat" ]; then
	ok "ku-ssh-lost (connection lost: we exit $ours, no hang, no vmcore.flat)"
else notok "ku-ssh-lost" "rc=$RC ours=$ours $(ls "${d[0]}" 2>&1 | tr '\n' ' ')"; fi
rm -rf "$REMOTE"

# ---- SUSE kdump: dracut/kdump-save ------------------------------------------
# sk_run NAME VMCORE SYSCONFIG: /etc/kdump.conf from kdump-read-config.sh
# --print (as dracut/module-setup.sh:149 makes it), then kdump-save; sets R, RC.
sk_run() {
	local name=$1 vm=$2 conf=$3
	R="$T/$name"
	mkdir -p "$R/tmp" "$R/mnt"
	printf '%s\n' "$conf" >"$R/sysconfig.kdump"
	KDUMP_CONF="$R/sysconfig.kdump" bash "$SK/kdump-read-config.sh" --print >"$R/kdump.conf" 2>"$R/conf.err"
	echo testhost >"$R/hostname.kdump"
	sed -e "s#/tmp/#$R/tmp/#g" -e "s#/proc/vmcore#$vm#g" -e "s#/etc/kdump.conf#$R/kdump.conf#g" \
		-e "s#/etc/hostname.kdump#$R/hostname.kdump#g" -e "s#/kdump/mnt#$R/mnt#g" \
		-e "s#/sys/class/leds#$R/leds#g" \
		-e "s#/sys/kernel/fadump#$R/fadump#g" "$SK/kdump-save" >"$R/kdump-save"
	STUB_LOG="$R/stub.log"
	: >"$STUB_LOG"
	timeout 120 bash "$R/kdump-save" >"$R/out" 2>&1
	RC=$?
}
# kdump-save's own nproc(): "processor" lines of /proc/cpuinfo.
SCPU=$(grep -c '^processor' /proc/cpuinfo)
SKTHR=""
[ "$SCPU" -gt 1 ] && SKTHR="--num-threads $SCPU "

sk_run sk-local "$V" "KDUMP_SAVEDIR=/var/crash
KDUMP_DUMPFORMAT=lzo
KDUMP_FREE_DISK_SIZE=0"
d=("$R"/mnt/var/crash/????-??-??-??-??)
a=$(argv)
if [ $RC -eq 0 ] && [ ${#d[@]} = 1 ] && [ -f "${d[0]}/vmcore" ] &&
	grep -q "vmcore status: saved successfully" "${d[0]}/README.txt" && grep -q "Saved vmcore" "$R/out" &&
	grep -q "^reboot -f" "$R/stub.log"; then
	ok "sk-local (flattened ${d[0]#"$R"/mnt}/vmcore, README says saved)"
	flat_same sk-local "${d[0]}/vmcore" sk-local-equals-ku-local
else notok "sk-local" "rc=$RC $(tail -n4 "$R/out" | tr '\n' ' ')"; fi
if [ "$a" = "-F -l ${SKTHR}--message-level 6 -d 31 $V" ]; then
	ok "sk-local-num-threads (${SKTHR:-no threads on 1 CPU}added by kdump-save)"
else notok "sk-local-num-threads" "argv: $a"; fi

REMOTE="$T/remote"
sk_run sk-ssh "$V" "KDUMP_SAVEDIR=ssh://root@dumphost.example$REMOTE/crash
KDUMP_CPUS=1
KDUMP_FREE_DISK_SIZE=0"
d=("$REMOTE"/crash/testhost-????-??-??-??-??)
a=$(argv)
if [ $RC -eq 0 ] && [ ${#d[@]} = 1 ] && [ -f "${d[0]}/vmcore" ] && [ "$a" = "-F -c --message-level 6 -d 31 $V" ] &&
	grep -q "vmcore status: saved successfully" "${d[0]}/README.txt" &&
	grep -q "^ssh ssh://root@dumphost.example umask 077; mkdir -p .* && cat > .*/vmcore$" "$R/stub.log"; then
	ok "sk-ssh (-F -c into ssh cat, ${d[0]#"$REMOTE"}/vmcore)"
	unflatten sk-ssh "${d[0]}/vmcore" "$T/sk-ssh.vmcore" && readable sk-ssh "$T/sk-ssh.vmcore"
else notok "sk-ssh" "rc=$RC argv: $a; $(tail -n4 "$R/out" | tr '\n' ' ')"; fi
rm -rf "$REMOTE"

sk_run sk-fail "$T/badcore" "KDUMP_SAVEDIR=/var/crash
KDUMP_FREE_DISK_SIZE=0"
d=("$R"/mnt/var/crash/????-??-??-??-??)
ours=$(grep '^rc ' "$R/stub.log" | tail -n1 | cut -d' ' -f2)
if [ "${ours:-0}" != 0 ] && grep -q "Failed saving vmcore" "$R/out" &&
	grep -q "vmcore status: error while saving" "${d[0]}/README.txt" &&
	! timeout 30 "$MDF" -R "$T/sk-fail.vmcore" <"${d[0]}/vmcore" >/dev/null 2>&1; then
	ok "sk-fail (our rc $ours seen, README says error, vmcore not a dump)"
else notok "sk-fail" "ours=$ours $(tail -n3 "$R/out" | tr '\n' ' ')"; fi

# ---- SUSE kdumptool (<= 2023-06) --split ------------------------------------
# Typed from tests/lab/callers/suse-kdump/savedump.cc:265-290 (KDUMPTOOL_FLAGS
# =SPLIT, m_split = min(KDUMP_CPUS, online CPUs)), :303-328 (the command line,
# MAKEDUMPFILE_OPTIONS empty), :346-353 (targets vmcore1..N) and
# transfer.cc:112-135 / dataprovider.cc:256-270 (absolute targets appended,
# run by system()).  At least 3 parts even on small hosts.
N=$NPROC
[ "$N" -ge 3 ] || N=3
DIR="$T/sk-split/var/crash/2026-01-01-00-00"
mkdir -p "$DIR"
cmd="makedumpfile --split  -d 31 -l $V"
parts=()
for i in $(seq 1 "$N"); do cmd+=" $DIR/vmcore$i"; parts+=("$DIR/vmcore$i"); done
STUB_LOG="$T/sk-split/stub.log"
if sh -c "$cmd" >"$T/sk-split/out" 2>&1; then
	good=1
	for p in "${parts[@]}"; do [ -s "$p" ] || good=0; done
	if [ $good = 1 ]; then ok "sk-split ($N parts)"; else notok "sk-split" "a part is missing"; fi
	if [ $HAVE_LKF = 1 ]; then
		bad=""
		for p in "${parts[@]}"; do
			/usr/bin/python3 -c 'import sys, kdumpfile; kdumpfile.kdumpfile(sys.argv[1])' "$p" 2>/dev/null || bad+=" ${p##*/}"
		done
		if [ -z "$bad" ]; then ok "sk-split-parts-libkdumpfile-open"
		else notok "sk-split-parts-libkdumpfile-open" "$bad"; fi
	else skip "sk-split-parts-libkdumpfile-open" "python3-libkdumpfile not installed"; fi
	if "$MDF" --reassemble "${parts[@]}" "$T/sk-split.vmcore" >/dev/null 2>"$T/re.err"; then
		ok "sk-split-reassemble"
		readable sk-split "$T/sk-split.vmcore"
		if cmp -s "$T/sk-split.vmcore" "$KU_SER"; then ok "sk-split-reassembled-equals-direct"
		else notok "sk-split-reassembled-equals-direct" "differs from the -l -d 31 dump"; fi
	else notok "sk-split-reassemble" "$(tail -n1 "$T/re.err")"; fi
else notok "sk-split" "$(tail -n2 "$T/sk-split/out" | tr '\n' ' ')"; fi

# ---- SUSE kdump-save's dmesg step on a real vmcore ----------------------------
# kdump-save runs "makedumpfile -F --message-level 8 --dump-dmesg /proc/vmcore
# > fifo" (kdump-save:220): makedumpfile 1.7.2 writes the plain log text to
# stdout, and kdump-save reads "OSRELEASE=" and "CRASHTIME=" lines from its
# stderr (kdump-save:226-233) for README.txt.  The synthetic kernel has no
# printk ring buffer, so this needs the real fixture; KDUMP_DUMPFORMAT=none
# skips the vmcore itself.
if vm=$(vmcore fx-v61-512m); then
	sk_run sk-dmesg "$vm" "KDUMP_SAVEDIR=/var/crash
KDUMP_DUMPFORMAT=none
KDUMP_FREE_DISK_SIZE=0"
	d=("$R"/mnt/var/crash/????-??-??-??-??)
	a=$(argv)
	if [ "$a" = "-F --message-level 8 --dump-dmesg $vm" ] && grep -q LAB-MARKER "${d[0]}/dmesg" 2>/dev/null &&
		grep -q "dmesg status: saved successfully" "${d[0]}/README.txt"; then
		ok "sk-dmesg (-F --dump-dmesg text saved)"
	else notok "sk-dmesg" "argv: $a; $(grep -v '^argv' "$R/stub.log" | tail -n1) $(grep -i 'dmesg' "$R/out" | tr '\n' ' ')"; fi
	if grep -q "^Kernel version: [0-9]" "${d[0]}/README.txt" 2>/dev/null &&
		grep -q "^Crash time: [0-9]" "${d[0]}/README.txt"; then
		ok "sk-dmesg-readme (OSRELEASE and CRASHTIME read from our stderr)"
	else notok "sk-dmesg-readme" "README.txt lacks Kernel version/Crash time (no OSRELEASE=/CRASHTIME= lines on stderr at --message-level 8)"; fi
else
	skip "sk-dmesg" "no ../shared/vmcores fixture"
fi
