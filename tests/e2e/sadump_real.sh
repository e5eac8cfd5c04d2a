#!/bin/bash
# sadump of a real kernel (issue 28 item 3, crash's half): the 6.1
# fixture's machine rewritten as the sadump file its firmware would have
# written (mkvmcore --from-elf: its RAM, its NT_PRSTATUS registers, CR3 at
# init_top_pgt, IDTR at the IDT's cpu-entry-area alias; gen_fromelf.c), in
# all three formats, read with the fixture's debug vmlinux:
#  - crash opens the raw file (a single partition, a media backup, a disk
#    set of three given as three files): "sys", linux_banner and the end of
#    the log are the ELF's, but for the two warnings of a file without
#    the crash kernel's reservation (the ELF lacks it: crash finds neither
#    the kexec elfcorehdr nor vmcoreinfo_data, both in it);
#  - crash opens our -l -d 31, -c -d 1 and -E -d 31 of it alike (as of
#    the ELF, but for "[PARTIAL DUMP]"); the -E file has the program
#    headers and the pages of our -E -d 31 of the ELF;
#  - makedumpfile 1.7.2 -l -d 31 and -d 1 of it give our bytes (but for
#    its stack byte per "CORE" note: tests/tools/sadump_same.py), and our
#    three formats one file;
#  - --dump-dmesg of it, ours and 1.7.2's, equals ours of the ELF;
#  - 1.7.2's -d 1 output refilters to -d 31 without -x (its notes and its
#    VMCOREINFO suffice) to our direct -d 31.
# Needs the debug vmlinux (tests/lab/debug_vmlinux.sh, 859 MB once): runs
# with MDF_CRASH_TEST=1 (then a missing piece fails) or when it is cached.
# A sanitizer build runs our program's parts only: crash and 1.7.2 do not
# change with our build, and under ASan their part doubles the test's time.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
SAME="$MDF_SRC/tests/tools/sadump_same.py"
UP=/usr/bin/makedumpfile
export TZ=UTC
need() { if [ "${MDF_CRASH_TEST:-0}" = 1 ]; then needfail "$@"; else skip "$@"; fi; }
vm=$(vmcore fx-v61-512m) || { need "sadump-real" "no ../shared/vmcores (or zstd)"; exit 0; }
VMLINUX=${MDF_DEBUG_VMLINUX:-${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}/vmlinux-6.1.0-57-amd64}
if [ ! -s "$VMLINUX" ] && [ "${MDF_CRASH_TEST:-0}" = 1 ]; then
	VMLINUX=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh") || VMLINUX=""
fi
if [ ! -s "$VMLINUX" ]; then
	need "sadump-real" "no debug vmlinux (MDF_CRASH_TEST=1 fetches it: tests/lab/debug_vmlinux.sh)"
	exit 0
fi

# The three files: the container comes from the spec, the machine from
# the ELF (the spec's ram line is not used).
S="$T/fx.single" M="$T/fx.media" D="$T/fx.set"
for f in "$S single" "$M media" "$D diskset 3"; do
	printf 'ram 0x0 0x100000\nformat sadump %s\n' "${f#* }" |
		"$GEN" - "${f%% *}" --from-elf "$vm" 2>"$T/gen.log" ||
		{ notok "sadump-real-gen-${f#* }" "$(cat "$T/gen.log")"; exit 0; }
done
ok "sadump-real-gen (single $(stat -c %s "$S") bytes, disk set of 3)"

# Ours, of each format: one dump.
run() { "$MDF" --message-level 0 "$@" >"$T/run.log" 2>&1 || { tail -n 2 "$T/run.log"; return 1; }; }
check "sadump-real-ours-single" run -l -d 31 -x "$VMLINUX" "$S" "$T/s.l"
check "sadump-real-ours-media-same" eval 'run -l -d 31 -x "$VMLINUX" "$M" "$T/m.l" && cmp "$T/m.l" "$T/s.l"'
check "sadump-real-ours-set-same" eval 'run -l -d 31 -x "$VMLINUX" --diskset="$D" --diskset="$D.2" --diskset="$D.3" "$T/d.l" && cmp "$T/d.l" "$T/s.l"'
check "sadump-real-ours-c1" run -c -d 1 -x "$VMLINUX" "$M" "$T/m.c1"
# -E (1.7.2 refuses it): the program headers and pages of our -E of the ELF
check "sadump-real-ours-E" eval 'run -E -d 31 -x "$VMLINUX" "$S" "$T/s.E" &&
	run -E -d 31 "$vm" "$T/e.E" && python3 "$MDF_SRC/tests/tools/elf_segments_same.py" "$T/e.E" "$T/s.E"'
rm -f "$T/e.E"

others=1
case "${MDF_FLAVOUR:-default}" in san-*) others=0
	skip "sadump-real-readers" "sanitizer build: crash and 1.7.2 run in the plain suite" ;;
esac

# crash: the ELF is the reference.
crash_say() { # OUT FILE...
	local out=$1; shift
	printf 'sys\nrd -a linux_banner\nlog | tail -n 5\nquit\n' |
		timeout 600 crash -s "$VMLINUX" "$@" 2>&1 | grep -vE 'DUMPFILES?:|^ {14}[^ ]' >"$out"
}
if [ $others = 0 ]; then :
elif ! command -v crash >/dev/null; then
	need "sadump-real-crash" "crash not installed"
else
	crash_say "$T/crash.elf" "$vm"
	if grep -q 'Linux version 6.1.0-57-amd64' "$T/crash.elf"; then
		ok "sadump-real-crash-elf (the reference)"
	else notok "sadump-real-crash-elf" "$(head -n 3 "$T/crash.elf" | tr '\n' ' ')"; fi
	# The two warnings of a machine without the crash kernel's memory.
	hole='^(WARNING: failed to init kexec backup region|crash: cannot read vmcoreinfo_data)$'
	for f in "single $S" "media $M" "set $D $D.2 $D.3"; do
		name=${f%% *}
		# shellcheck disable=SC2086 # the disks are words
		crash_say "$T/crash.$name" ${f#* }
		if [ "$(grep -cE "$hole" "$T/crash.$name")" = 2 ] &&
			diff "$T/crash.elf" <(grep -vE "$hole" "$T/crash.$name") >/dev/null; then
			ok "sadump-real-crash-raw-$name (sys, linux_banner and the log as from the ELF)"
		else notok "sadump-real-crash-raw-$name" "$(diff "$T/crash.elf" "$T/crash.$name" | head -n 6 | tr '\n' ' ')"; fi
	done
	for f in s.l m.c1 s.E; do
		crash_say "$T/crash.$f" "$T/$f"
		if diff <(sed 's/  \[PARTIAL DUMP\]//' "$T/crash.$f") "$T/crash.elf" >/dev/null; then
			ok "sadump-real-crash-ours-$f (as from the ELF)"
		else notok "sadump-real-crash-ours-$f" "$(diff "$T/crash.elf" "$T/crash.$f" | head -n 6 | tr '\n' ' ')"; fi
	done
fi

# 1.7.2: the same bytes.
if [ $others = 0 ]; then :
elif [ ! -x "$UP" ]; then
	need "sadump-real-1.7.2" "no $UP"
else
	for l in 31 1; do
		"$UP" --message-level 1 -l -d $l -x "$VMLINUX" "$S" "$T/up$l.l" >"$T/up.log" 2>&1
		[ $l = 1 ] && run -l -d 1 -x "$VMLINUX" "$S" "$T/s1.l"
		ours=$T/s.l; [ $l = 1 ] && ours=$T/s1.l
		if [ -s "$T/up$l.l" ] && why=$(python3 "$SAME" "$T/up$l.l" "$ours" 2>&1); then
			ok "sadump-real-1.7.2-d$l ($why)"
		else notok "sadump-real-1.7.2-d$l" "$(tail -n 2 "$T/up.log") $why"; fi
	done
	# 1.7.2's output refilters without -x, to our direct dump.
	check "sadump-real-refilter-1.7.2" eval 'run -l -d 31 "$T/up1.l" "$T/re.l" &&
		python3 "$SAME" "$T/re.l" "$T/s.l" >/dev/null'
	"$UP" --dump-dmesg -x "$VMLINUX" "$S" "$T/dm.up" >/dev/null 2>&1
fi

# dmesg: the sadump file's log is the ELF's, the fixture's marker in it.
run --dump-dmesg "$vm" "$T/dm.elf"
check "sadump-real-dmesg" eval 'run --dump-dmesg -x "$VMLINUX" "$S" "$T/dm.s" &&
	cmp "$T/dm.s" "$T/dm.elf" && grep -q LAB-MARKER "$T/dm.s"'
if [ $others = 1 ] && [ -x "$UP" ]; then check "sadump-real-dmesg-1.7.2" cmp "$T/dm.up" "$T/dm.elf"; fi
exit 0
