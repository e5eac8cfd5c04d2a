#!/bin/bash
# Kernel information from outside the dump (issue 15): -i FILE gives the
# VMCOREINFO of a dump that has none (or fills in the keys its note
# lacks; the note wins for the keys it has), with the same bitmaps as the
# note would give.  A bad line is named with its file and line.
# -x VMLINUX and -g FILE on the synthetic kernel object (tests/gen/kobj):
# -g writes the generator's 6.1 numbers, -x on a dump whose note lost
# every key DWARF can answer gives the full note's bitmaps, and a vmlinux
# of another release or build is refused with exit status 2.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

spec="kernel 6.1
ram 0x100000 0x4000000
pages 0x2000+64 anon random
pages 0x3000+64 cache random"
printf '%s\n' "$spec" >"$T/full.spec"
printf '%s\nbreak no_vmcoreinfo\n' "$spec" >"$T/none.spec"
"$GEN" "$T/full.spec" "$T/full" >/dev/null 2>&1 && "$GEN" "$T/none.spec" "$T/none" >/dev/null 2>&1 ||
	{ notok "debuginfo-gen" "mkvmcore failed"; exit 0; }
# The note's text, as a VMCOREINFO file (what -g writes, or a saved
# /sys/kernel/vmcoreinfo's note).
python3 - "$T/full" "$T/vi.txt" <<'PY'
import sys
d = open(sys.argv[1], "rb").read(1 << 16)
i = d.find(b"OSRELEASE="); j = d.find(b"\0", i)
open(sys.argv[2], "wb").write(d[i:j])
PY

for l in 1 31; do
	"$MDF" --message-level 0 -l -d $l "$T/full" "$T/ref.$l"
	# The same pages and both bitmaps; the headers differ (no note to copy).
	if "$MDF" --message-level 0 -l -d $l -i "$T/vi.txt" "$T/none" "$T/i.$l" &&
		why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/ref.$l" "$T/i.$l" 2>&1); then
		ok "debuginfo-i-no-note-d$l ($why)"
	else notok "debuginfo-i-no-note-d$l" "$why"; fi
done
# Without -i, -d 31 on that dump names what is missing.
"$MDF" -l -d 31 "$T/none" "$T/x" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "no VMCOREINFO note" "$T/err"; then ok "debuginfo-no-note-d31-refused"
else notok "debuginfo-no-note-d31-refused" "rc=$rc $(cat "$T/err")"; fi
# The note wins: a file that says otherwise changes nothing.
sed 's/^SIZE(page)=.*/SIZE(page)=72/' "$T/vi.txt" >"$T/other.txt"
"$MDF" --message-level 0 -l -d 31 -i "$T/other.txt" "$T/full" "$T/w.31"
check "debuginfo-note-wins" cmp "$T/w.31" "$T/ref.31"
# A malformed file: its name and line.
printf 'SIZE(page)=64\nOFFSET(page.flags)=zz\n' >"$T/bad.txt"
"$MDF" -l -d 31 -i "$T/bad.txt" "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $T/bad.txt: VMCOREINFO line 2: OFFSET(page.flags): bad number 'zz'$" "$T/err" &&
	[ ! -e "$T/y" ]; then ok "debuginfo-i-bad-line"
else notok "debuginfo-i-bad-line" "rc=$rc $(cat "$T/err")"; fi
"$MDF" -l -d 31 -i "$T/missing.txt" "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "cannot open $T/missing.txt" "$T/err"; then ok "debuginfo-i-missing-file"
else notok "debuginfo-i-missing-file" "rc=$rc $(cat "$T/err")"; fi
"$MDF" -l -d 31 -i "$T" "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "$T: not a VMCOREINFO file" "$T/err"; then ok "debuginfo-i-directory"
else notok "debuginfo-i-directory" "rc=$rc $(cat "$T/err")"; fi

# --vtop VADDR: the translation before the dump, as upstream prints it;
# init_uts_ns lies in the kernel image: pa = va - __START_KERNEL_map + phys_base.
read -r va pb <<<"$(sed -n 's/^SYMBOL(init_uts_ns)=//p; s/^NUMBER(phys_base)=//p' "$T/vi.txt" | tr '\n' ' ')"
want=$(printf '%16x  %x' $((0x$va)) $((0x$va - 0xffffffff80000000 + pb)))
"$MDF" --dry-run -d 31 --vtop 0x$va "$T/full" >"$T/vtop.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^Translating virtual address $va to physical address.$" "$T/vtop.out" &&
	grep -qx "$want" "$T/vtop.out"; then ok "debuginfo-vtop ($want)"
else notok "debuginfo-vtop" "rc=$rc want '$want' $(head -5 "$T/vtop.out")"; fi
"$MDF" --dry-run -d 31 --vtop 0x1000 "$T/full" >"$T/vtop.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^            1000  not translated: x86_64: virtual address 0x1000 not mapped" "$T/vtop.out"
then ok "debuginfo-vtop-unmapped"
else notok "debuginfo-vtop-unmapped" "rc=$rc $(head -5 "$T/vtop.out")"; fi
"$MDF" --dry-run --vtop zz "$T/full" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "invalid value 'zz' for option --vtop" "$T/err"; then ok "debuginfo-vtop-bad-value"
else notok "debuginfo-vtop-bad-value" "rc=$rc $(cat "$T/err")"; fi

# ---- -g and -x on the synthetic kernel object ----
KOBJ="$MDF_BUILD/tests/gen/kobj"
OTHER="$MDF_BUILD/tests/gen/kobj-other"
if [ ! -x "$KOBJ" ]; then skip "debuginfo-kobj" "no $KOBJ"; exit 0; fi
"$MDF" -g "$T/kobj.txt" -x "$KOBJ" >"$T/g.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^The vmcoreinfo is saved to $T/kobj.txt.$" "$T/g.out"; then
	ok "debuginfo-g-runs"
else notok "debuginfo-g-runs" "rc=$rc $(cat "$T/g.out")"; fi
# Every SIZE/OFFSET/LENGTH/NUMBER line equals the generator's 6.1 note,
# every SYMBOL the object's own symbol table; and the keys are the ones
# the object's types answer (no PG_buddy from enum pagetype: a mask).
why=$(python3 - "$T/kobj.txt" "$T/vi.txt" "$KOBJ" <<'PY'
import subprocess, sys
g = dict(l.split("=", 1) for l in open(sys.argv[1]).read().splitlines())
n = dict(l.split("=", 1) for l in open(sys.argv[2]).read().splitlines() if "=" in l)
syms = {}
for l in subprocess.run(["nm", sys.argv[3]], capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 3: syms[p[2]] = int(p[0], 16)
bad = []
for k, v in g.items():
    if k.startswith("SYMBOL("):
        if syms.get(k[7:-1]) != int(v, 16): bad.append(f"{k}={v} nm={syms.get(k[7:-1])}")
    elif k.startswith(("SIZE(", "OFFSET(", "LENGTH(", "NUMBER(")) and k != "NUMBER(PG_head)" \
            and k != "NUMBER(N_ONLINE)" and k != "SIZE(pageflags)":
        if n.get(k) != v: bad.append(f"{k}={v} note={n.get(k)}")
want = {"OSRELEASE": "6.1.0-57-amd64", "PAGESIZE": "4096", "NUMBER(PG_head)": "16",
        "NUMBER(N_ONLINE)": "1", "SRCFILE(pud_t)": "tests/gen/kobj/kobj.h",
        "BUILD-ID": n["BUILD-ID"]}
bad += [f"{k}={g.get(k)} want {v}" for k, v in want.items() if g.get(k) != v]
if "NUMBER(PG_buddy)" in g: bad.append("PG_buddy taken from enum pagetype")
if len(g) < 55: bad.append(f"only {len(g)} keys")
print(" ".join(bad) if bad else f"{len(g)} keys")
sys.exit(1 if bad else 0)
PY
) && ok "debuginfo-g-kobj ($why)" || notok "debuginfo-g-kobj" "$why"
# 6.12's enum pagetype: the markers are PGTY << 24 (the 6.12 fixture's note).
"$MDF" -g "$T/pgty.txt" -x "$OTHER" >/dev/null 2>&1
got=$(grep MAPCOUNT "$T/pgty.txt" | sort | tr '\n' ' ')
if [ "$got" = "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456 NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-201326592 NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-251658240 NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-184549376 " ]
then ok "debuginfo-g-pagetype-6.12"
else notok "debuginfo-g-pagetype-6.12" "$got"; fi
# -i reads -g's text back.
check "debuginfo-g-reparses" "$MDF" --message-level 0 -d 1 -i "$T/kobj.txt" "$T/full" "$T/gi.1"

# A note without any key DWARF answers: -x fills them in.
dels=$(sed -n 's/^\(\(SIZE\|OFFSET\|LENGTH\|NUMBER\)(.*)\)=.*/vmcoreinfo del \1/p' "$T/kobj.txt")
printf '%s\n%s\n' "$spec" "$dels" >"$T/part.spec"
"$GEN" "$T/part.spec" "$T/part" >/dev/null 2>&1 || notok "debuginfo-gen-partial" "mkvmcore failed"
for l in 1 31; do
	"$MDF" --message-level 0 -l -d $l --debug-bitmap "$T/ref.$l.bm" "$T/full" "$T/r2.$l"
	if "$MDF" --message-level 0 -l -d $l -x "$KOBJ" --debug-bitmap "$T/x.$l.bm" "$T/part" "$T/x.$l" \
		>"$T/err" 2>&1 && cmp -s "$T/ref.$l.bm" "$T/x.$l.bm" &&
		why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/ref.$l" "$T/x.$l" 2>&1); then
		ok "debuginfo-x-partial-note-d$l ($why)"
	else notok "debuginfo-x-partial-note-d$l" "$(cat "$T/err") $why"; fi
done
# Without -x that note cannot give -d 31.
"$MDF" -l -d 31 "$T/part" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "SIZE(page)" "$T/err"; then ok "debuginfo-partial-needs-x"
else notok "debuginfo-partial-needs-x" "rc=$rc $(cat "$T/err")"; fi
# With the full note, -x changes nothing.
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" "$T/full" "$T/xf.31"
check "debuginfo-x-note-wins" cmp "$T/xf.31" "$T/ref.31"
# No note at all: -d 31 asks for -x or -i.
"$MDF" -l -d 31 "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $T/none: no VMCOREINFO note: dump level 31 needs -x VMLINUX or -i VMCOREINFO$" "$T/err"
then ok "debuginfo-no-note-asks-for-x"
else notok "debuginfo-no-note-asks-for-x" "rc=$rc $(cat "$T/err")"; fi

# Another release: exit status 2, nothing written.
"$MDF" -l -d 31 -x "$OTHER" "$T/part" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "^makedumpfile: $OTHER: release 6.1.0-99-amd64, but the dump's is 6.1.0-57-amd64$" "$T/err" &&
	[ ! -e "$T/y" ]; then ok "debuginfo-x-release-mismatch-exit-2"
else notok "debuginfo-x-release-mismatch-exit-2" "rc=$rc $(cat "$T/err")"; fi
# Another build (the note says no release): the build-id tells.
printf '%s\n%s\nvmcoreinfo del OSRELEASE\n' "$spec" "$dels" >"$T/norel.spec"
"$GEN" "$T/norel.spec" "$T/norel" >/dev/null 2>&1
"$MDF" -l -d 31 -x "$OTHER" "$T/norel" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "^makedumpfile: $OTHER: build-id 00112233445566778899aabbccddeeff00112233, but the dump's is 6a2b4ac7" "$T/err"
then ok "debuginfo-x-build-id-mismatch-exit-2"
else notok "debuginfo-x-build-id-mismatch-exit-2" "rc=$rc $(cat "$T/err")"; fi
# Not a debug vmlinux: named, exit 1.
printf 'not elf' >"$T/notelf"
"$MDF" -l -d 31 -x "$T/notelf" "$T/part" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $T/notelf: not an ELF file$" "$T/err"; then ok "debuginfo-x-not-elf"
else notok "debuginfo-x-not-elf" "rc=$rc $(cat "$T/err")"; fi
cp "$KOBJ" "$T/stripped" && strip -g "$T/stripped"
"$MDF" -g "$T/g2" -x "$T/stripped" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $T/stripped: no debugging information" "$T/err"; then
	ok "debuginfo-x-no-dwarf"
else notok "debuginfo-x-no-dwarf" "rc=$rc $(cat "$T/err")"; fi
# A vmlinux cut short (a partial copy): said so, not "no debugging information".
head -c 2000 "$KOBJ" >"$T/cut"
"$MDF" -g "$T/g4" -x "$T/cut" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $T/cut: truncated: its section headers at 0x[0-9a-f]* lie past the end (0x7d0 bytes)$" "$T/err"
then ok "debuginfo-x-truncated"
else notok "debuginfo-x-truncated" "rc=$rc $(cat "$T/err")"; fi
"$MDF" -g "$T/g3" -x "$T/missing" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "cannot open $T/missing" "$T/err"; then ok "debuginfo-x-missing"
else notok "debuginfo-x-missing" "rc=$rc $(cat "$T/err")"; fi
exit 0
