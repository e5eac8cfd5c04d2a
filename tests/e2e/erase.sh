#!/bin/bash
# --config FILE (issue 15): makedumpfile.conf(5) erase commands, resolved
# with the synthetic kernel object's types (-x tests/gen/kobj) on a
# generated 6.1 dump.  The erased bytes are 'X' in every writer (-E, -l,
# -F, --split, threads, refiltering), nothing else changes, and the dump
# carries the eraseinfo text: in the kdump sub header, in an ERASEINFO
# note with -E, kept and appended when refiltering.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
KOBJ="$MDF_BUILD/tests/gen/kobj"
[ -x "$KOBJ" ] || { skip "erase" "no $KOBJ"; exit 0; }
printf 'kernel 6.1\nram 0x100000 0x4000000\npages 0x2000+64 anon random\n' >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "erase-gen" "mkvmcore failed"; exit 0; }
cat >"$T/c.conf" <<'CONF'
# the host's names
[vmlinux]
erase init_uts_ns.name.nodename
erase init_uts_ns.name.domainname size 10
[some_module]
erase some_symbol
CONF
info='erase init_uts_ns.name.nodename size 65
erase init_uts_ns.name.domainname size 10'

# -E: the bytes, and the ERASEINFO note.
"$MDF" --message-level 0 -E -d 31 "$T/vm" "$T/plain.elf"
"$MDF" --message-level 7 -E -d 31 -x "$KOBJ" --config "$T/c.conf" "$T/vm" "$T/e.elf" >"$T/out" 2>&1
why=$(python3 - "$T/vm" "$T/plain.elf" "$T/e.elf" "$info" <<'PY'
import struct, sys
def loads(p):
    d = open(p, "rb").read()
    phoff, = struct.unpack_from("<Q", d, 32); n, = struct.unpack_from("<H", d, 56)
    ph = [struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i) for i in range(n)]
    return d, ph
def read(p, pa, n):
    d, ph = loads(p)
    for t, _, off, va, pa0, fs, ms, _ in ph:
        if t == 1 and pa0 <= pa < pa0 + fs: return d[off + pa - pa0: off + pa - pa0 + n]
def notes(p):
    d, ph = loads(p); out = {}
    for t, _, off, va, pa0, fs, ms, _ in ph:
        if t != 4: continue
        o = off
        while o < off + fs:
            ns, ds, ty = struct.unpack_from("<III", d, o)
            name = d[o + 12:o + 12 + ns].rstrip(b"\0").decode()
            do = o + 12 + (ns + 3) // 4 * 4
            out[name] = d[do:do + ds]; o = do + (ds + 3) // 4 * 4
    return out
vi = dict(l.split("=", 1) for l in notes(sys.argv[1])["VMCOREINFO"].decode().splitlines() if "=" in l)
va = int(vi["SYMBOL(init_uts_ns)"], 16); pb = int(vi["NUMBER(phys_base)"])
pa = va - 0xffffffff80000000 + pb
a, b = read(sys.argv[2], pa & ~4095, 4096), read(sys.argv[3], pa & ~4095, 4096)
o = pa & 4095
bad = []
if b[o + 65:o + 130] != b"X" * 65: bad.append("nodename not X")
if b[o + 325:o + 335] != b"X" * 10 or b[o + 335:o + 390] != a[o + 335:o + 390]: bad.append("domainname")
if b[:o + 65] != a[:o + 65] or b[o + 130:o + 325] != a[o + 130:o + 325] or b[o + 390:] != a[o + 390:]:
    bad.append("other bytes changed")
# Every other byte of every segment is the plain dump's.
(da, pha), (db, phb) = loads(sys.argv[2]), loads(sys.argv[3])
la = [p for p in pha if p[0] == 1]; lb = [p for p in phb if p[0] == 1]
if [p[3:] for p in la] != [p[3:] for p in lb]: bad.append("segments differ")
ndiff = 0
for x, y in zip(la, lb):
    sa, sb = da[x[2]:x[2] + x[5]], db[y[2]:y[2] + y[5]]
    if sa != sb: ndiff += sum(1 for i in range(len(sa)) if sa[i] != sb[i])
# (the image's PT_LOAD and the direct map's both hold the page)
if ndiff == 0 or ndiff % 75: bad.append(f"{ndiff} bytes differ")
n = notes(sys.argv[3]).get("ERASEINFO")
if n is None or n.decode() != sys.argv[4] + "\n": bad.append(f"ERASEINFO note {n!r}")
print(" ".join(bad) if bad else f"75 bytes at paddr {pa:#x}")
sys.exit(1 if bad else 0)
PY
) && ok "erase-elf ($why)" || notok "erase-elf" "$why $(cat "$T/out")"
if grep -q "1 module section(s) skipped: \[some_module\]: the vmlinux has no struct module or struct mod_kallsyms." "$T/out"; then
	ok "erase-module-section-warned"
else notok "erase-module-section-warned" "$(cat "$T/out")"; fi

# kdump: the eraseinfo named by the sub header; the same pages from
# -F | -R, --split + --reassemble, two threads, and refiltering.
sub_info() {
	python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); bs,=struct.unpack_from("<i",d,428); o,s=struct.unpack_from("<qQ",d,bs+64); sys.stdout.write(d[o:o+s].decode())' "$1"
}
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/c.conf" "$T/vm" "$T/e.kd"
if [ "$(sub_info "$T/e.kd")" = "$info" ]; then ok "erase-kdump-eraseinfo"
else notok "erase-kdump-eraseinfo" "$(sub_info "$T/e.kd")"; fi
"$MDF" --message-level 0 -F -l -d 31 -x "$KOBJ" --config "$T/c.conf" "$T/vm" | "$MDF" --message-level 0 -R "$T/f.kd"
check "erase-flattened-same" cmp "$T/f.kd" "$T/e.kd"
"$MDF" --message-level 0 -l -d 31 --num-threads 2 -x "$KOBJ" --config "$T/c.conf" "$T/vm" "$T/t.kd"
check "erase-threads-same" cmp "$T/t.kd" "$T/e.kd"
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/c.conf" --split "$T/vm" "$T/s1" "$T/s2"
"$MDF" --message-level 0 --reassemble "$T/s1" "$T/s2" "$T/r.kd"
if [ "$(sub_info "$T/s2")" = "$info" ] && cmp -s "$T/r.kd" "$T/e.kd"; then ok "erase-split-reassembled-same"
else notok "erase-split-reassembled-same" "$(sub_info "$T/s2") $(cmp "$T/r.kd" "$T/e.kd" 2>&1)"; fi
# Refiltering an erased dump keeps its eraseinfo; erasing more appends.
"$MDF" --message-level 0 -l -d 31 "$T/e.kd" "$T/rf.kd"
if [ "$(sub_info "$T/rf.kd")" = "$info" ] &&
	why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/e.kd" "$T/rf.kd" 2>&1); then
	ok "erase-refilter-keeps ($why)"
else notok "erase-refilter-keeps" "$(sub_info "$T/rf.kd") $why"; fi
printf 'erase init_uts_ns.name.machine\n' >"$T/more.conf"
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/more.conf" "$T/e.kd" "$T/rf2.kd"
if [ "$(sub_info "$T/rf2.kd")" = "$info
erase init_uts_ns.name.machine size 65" ]; then ok "erase-refilter-appends"
else notok "erase-refilter-appends" "$(sub_info "$T/rf2.kd")"; fi
# Erasing on the plain dump while refiltering = erasing at once.
"$MDF" --message-level 0 -l -d 31 "$T/vm" "$T/p.kd"
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/c.conf" "$T/p.kd" "$T/pe.kd"
if why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/e.kd" "$T/pe.kd" 2>&1); then
	ok "erase-on-refilter ($why)"
else notok "erase-on-refilter" "$why"; fi

# Loops: every element of an array (the generator's node_data holds no
# pointers: the 65 chars of sysname); the same bytes as erasing it whole.
printf 'for c in init_uts_ns.name.sysname\n\terase c\nendfor\n' >"$T/loop.conf"
printf 'erase init_uts_ns.name.sysname\n' >"$T/whole.conf"
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/loop.conf" "$T/vm" "$T/l.kd" 2>"$T/err"
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/whole.conf" "$T/vm" "$T/w.kd" 2>>"$T/err"
if [ "$(sub_info "$T/l.kd")" = "$(for i in $(seq 65); do echo "erase c size 1"; done)" ] &&
	why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/l.kd" "$T/w.kd" 2>&1) &&
	! python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/l.kd" "$T/p.kd" >/dev/null 2>&1
then ok "erase-loop-array ($why)"
else notok "erase-loop-array" "$(sub_info "$T/l.kd") $why $(cat "$T/err")"; fi

# A config that erases nothing (its only section is skipped): the plain
# dump, and no qsort(NULL, 0) for the sanitizers to stop at.
printf '[some_module]\nerase some_symbol\n' >"$T/nothing.conf"
"$MDF" --message-level 0 -l -d 31 -x "$KOBJ" --config "$T/nothing.conf" "$T/vm" "$T/n.kd" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ -z "$(sub_info "$T/n.kd")" ] &&
	why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/n.kd" "$T/p.kd" 2>&1)
then ok "erase-nothing ($why)"
else notok "erase-nothing" "rc=$rc $why $(cat "$T/err")"; fi

# Errors: named with file and line, exit 1, nothing written.
bad_conf() { # NAME CONFIG-TEXT EXPECTED-MESSAGE
	printf '%s\n' "$2" >"$T/bad.conf"
	"$MDF" -l -d 31 -x "$KOBJ" --config "$T/bad.conf" "$T/vm" "$T/y" >/dev/null 2>"$T/err"; local rc=$?
	if [ $rc -eq 1 ] && grep -qF "makedumpfile: $T/bad.conf: $3" "$T/err" && [ ! -e "$T/y" ]; then ok "$1"
	else notok "$1" "rc=$rc $(cat "$T/err")"; fi
}
bad_conf erase-bad-symbol "erase no_such_symbol" "line 1: no_such_symbol: no such variable in the vmlinux"
bad_conf erase-bad-member "
erase init_uts_ns.name.no_such" "line 2: init_uts_ns.name.no_such: no member 'no_such'"
bad_conf erase-bad-syntax "erase init_uts_ns size" "line 1: expected 'size VALUE', 'size SYMBOL' or 'nullify' after 'init_uts_ns'"
bad_conf erase-nullify-not-pointer "erase init_uts_ns nullify" "line 1: init_uts_ns: nullify needs a pointer"
"$MDF" -l -d 31 --config "$T/c.conf" "$T/vm" "$T/y" >/dev/null 2>"$T/err"; rc=$?
# Without -x the types come from the dump: this one's kallsyms tables are
# only named (the generator writes no tables), which is one line.
if [ $rc -eq 1 ] && [ ! -e "$T/y" ] &&
	grep -q "^makedumpfile: $T/vm: --config without -x VMLINUX takes the kernel's symbols and types from the dump: kallsyms: " "$T/err"; then
	ok "erase-without-x-no-kallsyms ($(head -n 1 "$T/err"))"
else notok "erase-without-x-no-kallsyms" "rc=$rc $(cat "$T/err")"; fi
exit 0
