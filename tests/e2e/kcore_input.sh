#!/bin/bash
# /proc/kcore as a full input (issue 28 item 5): a running system's memory
# filtered and written like a vmcore.  On synthetic kcore files (tests/gen
# "kcore": PT_LOADs with p_paddr -1 for vmalloc, modules and vmemmap, no
# CRASHTIME) made from the same spec as a plain ELF vmcore:
#  - -d 31 into -l, -E and -F (rebuilt with -R): the pages equal those of
#    the plain vmcore's dump; the ELF output is the same file;
#  - the output refilters with our binary, to the same pages again;
#  - one warning line that the memory changes under the copy, exactly once;
#  - the kdump header's timestamp is the time of the copy (no crash time);
#  - --dump-dmesg and --explain read it;
#  - bad input: a kcore without VMCOREINFO asked for -d 31.
# The run on a live /proc/kcore is in capture.sh (the kdump capture kernel).
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
TOOLS="$MDF_SRC/tests/tools"
WARN="the running system's memory changes while it is copied: the dump is not a consistent snapshot."

cat >"$T/vm.spec" <<'SPEC'
kernel 6.1
seed 11
ram 0x1000 0x9f000
ram 0x100000 +126M
pages 0x4000+1024 cache
pages 0x4400+256 cache_private
pages 0x4800+512 anon
pages 0x4a00+200 kernel
fill 0x4a00+200 random 3
fill 0x5000+256 random 7
dmesg Linux version 6.1.0-kcore-test
dmesg kcore-input: the first line
dmesg kcore-input: the last line
vmcore
vmcoreinfo del CRASHTIME
SPEC
sed 's/^vmcore$/kcore/' "$T/vm.spec" >"$T/kc.spec"
sed -i '/^vmcore$/d' "$T/vm.spec"
for f in vm kc; do
	if ! "$GEN" "$T/$f.spec" "$T/$f" >"$T/gen-$f.log" 2>&1; then
		notok "kcore-gen-$f" "mkvmcore: $(tail -n 1 "$T/gen-$f.log")"; exit 0
	fi
done
n=$(readelf -lW "$T/kc" | grep -c ' 0xffffffffffffffff ')
if [ "$n" = 3 ]; then ok "kcore-gen-shape"; else notok "kcore-gen-shape" "$n PT_LOADs with p_paddr -1, want 3"; fi

# -d 31 -l from both; the kcore run says once that the memory is live.
t0=$(date +%s)
if "$MDF" -l -d 31 "$T/kc" "$T/kc.l" >"$T/kc.l.log" 2>&1; then ok "kcore-l"
else notok "kcore-l" "exit $?: $(tail -n 2 "$T/kc.l.log" | tr '\n' ' ')"; exit 0; fi
t1=$(date +%s)
check "kcore-vm-l" "$MDF" -l -d 31 "$T/vm" "$T/vm.l"
n=$(grep -cxF "$T/kc: $WARN" "$T/kc.l.log")
if [ "$n" = 1 ] && [ "$(grep -c 'running system' "$T/kc.l.log")" = 1 ]; then ok "kcore-warns-once"
else notok "kcore-warns-once" "$n warning lines: $(grep 'running system' "$T/kc.l.log" | head -n 2 | tr '\n' ' ')"; fi
if grep -q 'running system' "$T/vm.l.log" 2>/dev/null; then notok "kcore-vmcore-no-warning" "a vmcore warned"
else ok "kcore-vmcore-no-warning"; fi
why=$(python3 "$TOOLS/kdump_same.py" --ignore-headers "$T/kc.l" "$T/vm.l" 2>&1) &&
	ok "kcore-l-pages-equal-vmcore (${why})" || notok "kcore-l-pages-equal-vmcore" "$why"
why=$(python3 "$TOOLS/kdump_pages.py" pages "$T/kc.l" "$T/vm" 2>&1) &&
	ok "kcore-l-pages-are-memory" || notok "kcore-l-pages-are-memory" "$why"
# No crash time: the header's timestamp is the time of the copy.
ts=$(python3 -c 'import struct,sys; print(struct.unpack_from("<q", open(sys.argv[1],"rb").read(416), 408)[0])' "$T/kc.l")
if [ "$ts" -ge "$t0" ] && [ "$ts" -le "$t1" ]; then ok "kcore-timestamp-of-copy"
else notok "kcore-timestamp-of-copy" "timestamp $ts not in [$t0, $t1]"; fi

# -E: the same ELF file as from the vmcore (kcore's p_paddr -1 segments
# are no physical memory and are not written).
check "kcore-E" "$MDF" -E -d 31 "$T/kc" "$T/kc.E"
check "kcore-vm-E" "$MDF" -E -d 31 "$T/vm" "$T/vm.E"
if cmp -s "$T/kc.E" "$T/vm.E"; then ok "kcore-E-equals-vmcore"
else notok "kcore-E-equals-vmcore" "$(cmp "$T/kc.E" "$T/vm.E" 2>&1 | head -n 1)"; fi
if readelf -lW "$T/kc.E" | grep -q ' 0xffffffffffffffff '; then notok "kcore-E-no-nophys" "a p_paddr -1 segment in the output"
else ok "kcore-E-no-nophys"; fi

# -F, rebuilt with -R: the -l dump's pages.
if "$MDF" -F -l -d 31 "$T/kc" >"$T/kc.F" 2>"$T/kc.F.log" &&
	"$MDF" -R "$T/kc.R" <"$T/kc.F" >"$T/kc.R.log" 2>&1; then ok "kcore-F"
else notok "kcore-F" "$(tail -n 2 "$T/kc.F.log" "$T/kc.R.log" | tr '\n' ' ')"; fi
why=$(python3 "$TOOLS/kdump_same.py" --ignore-headers "$T/kc.R" "$T/vm.l" 2>&1) &&
	ok "kcore-F-pages-equal-vmcore" || notok "kcore-F-pages-equal-vmcore" "$why"
[ "$(grep -c 'running system' "$T/kc.F.log")" = 1 ] && ok "kcore-F-warns-once" ||
	notok "kcore-F-warns-once" "$(grep -c 'running system' "$T/kc.F.log") lines"

# Other codecs, with scan threads and with read(2) only.
for opt in -c -z "--num-threads 2" "--non-mmap"; do
	name=$(echo "$opt" | tr -d ' -')
	# shellcheck disable=SC2086
	if "$MDF" $opt -d 31 "$T/kc" "$T/kc.$name" >"$T/kc.$name.log" 2>&1 &&
		why=$(python3 "$TOOLS/kdump_same.py" --ignore-headers "$T/kc.$name" "$T/vm.l" 2>&1); then
		ok "kcore-$name"
	else notok "kcore-$name" "$(tail -n 2 "$T/kc.$name.log" | tr '\n' ' ') $why"; fi
done

# The outputs refilter with our binary: the same pages as the vmcore's
# (-E output: as the vmcore's -E output refiltered, its zero pages are gone).
check "kcore-vm-E-refilter" "$MDF" -l -d 31 "$T/vm.E" "$T/vm.E.re"
for f in kc.l:vm.l kc.E:vm.E.re; do
	a=${f%%:*} b=${f#*:}
	if "$MDF" -l -d 31 "$T/$a" "$T/$a.re" >"$T/$a.re.log" 2>&1 &&
		why=$(python3 "$TOOLS/kdump_same.py" --ignore-headers "$T/$a.re" "$T/$b" 2>&1); then
		ok "kcore-refilter-$a"
	else notok "kcore-refilter-$a" "$(tail -n 2 "$T/$a.re.log" | tr '\n' ' ') $why"; fi
	# A copy is no live system: no warning when it is read again.
	if grep -q 'running system' "$T/$a.re.log"; then notok "kcore-refilter-$a-no-warning" "warned"
	else ok "kcore-refilter-$a-no-warning"; fi
done

# --dump-dmesg: the log of the kcore, that of the vmcore, and that of the dump.
if "$MDF" --dump-dmesg "$T/kc" "$T/kc.dmesg" >"$T/kc.dmesg.log" 2>&1 &&
	"$MDF" --dump-dmesg "$T/vm" "$T/vm.dmesg" >/dev/null 2>&1 &&
	"$MDF" --dump-dmesg "$T/kc.l" "$T/kc.l.dmesg" >/dev/null 2>&1 &&
	grep -q 'kcore-input: the last line' "$T/kc.dmesg" &&
	cmp -s "$T/kc.dmesg" "$T/vm.dmesg" && cmp -s "$T/kc.dmesg" "$T/kc.l.dmesg"; then
	ok "kcore-dump-dmesg"
else notok "kcore-dump-dmesg" "$(tail -n 2 "$T/kc.dmesg.log" | tr '\n' ' ')"; fi

# --explain: the same verdicts as on the vmcore (pfn 0x4000: a cache
# page), after the warning, with the input kind named.
"$MDF" --explain pfn:0x4000 "$T/kc" >"$T/kc.ex" 2>"$T/kc.ex.err"; rc1=$?
"$MDF" --explain pfn:0x4000 "$T/vm" >"$T/vm.ex" 2>/dev/null; rc2=$?
norm() { grep -vF "$WARN" "$1" | sed -e "s|$2|X|g" -e 's|(/proc/kcore)|(ELF)|'; }
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q '(/proc/kcore)' "$T/kc.ex" &&
	[ "$(grep -c 'running system' "$T/kc.ex")" = 1 ] &&
	diff -q <(norm "$T/kc.ex" "$T/kc") <(norm "$T/vm.ex" "$T/vm") >/dev/null; then
	ok "kcore-explain"
else notok "kcore-explain" "rc $rc1/$rc2: $(diff <(norm "$T/kc.ex" "$T/kc") <(norm "$T/vm.ex" "$T/vm") | head -n 3 | tr '\n' ' ') $(head -n 2 "$T/kc.ex.err" | tr '\n' ' ')"; fi

# Bad input: a kcore without VMCOREINFO at -d 31: one line, exit 1, no file.
sed 's/^kcore$/kcore\nbreak no_vmcoreinfo/' "$T/kc.spec" >"$T/nov.spec"
"$GEN" "$T/nov.spec" "$T/nov" >/dev/null 2>&1
"$MDF" -l -d 31 "$T/nov" "$T/nov.out" >"$T/nov.log" 2>&1; rc=$?
if [ $rc = 1 ] && [ ! -e "$T/nov.out" ] &&
	grep -qxF "makedumpfile: $T/nov: no VMCOREINFO note (/proc/kcore has one from Linux 4.19 on): dump level 31 needs -x VMLINUX or -i VMCOREINFO" "$T/nov.log"; then
	ok "kcore-no-vmcoreinfo"
else notok "kcore-no-vmcoreinfo" "rc $rc: $(head -n 2 "$T/nov.log" | tr '\n' ' ')"; fi
exit 0
