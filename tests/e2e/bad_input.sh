#!/bin/bash
# Malformed input: one clear line naming the file and the problem, exit
# status 1, no crash (no signal, no sanitizer report), and nothing written.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

base="kernel 6.1
ram 0x100000 0x4000000
pages 0x2000+64 anon random"

case_() { # NAME BREAK-LINE EXPECTED-PHRASE
	local name=$1 brk=$2 phrase=$3 d="$T/$1"
	mkdir -p "$d"
	printf '%s\n%s\n' "$base" "$brk" >"$d/spec"
	if ! "$GEN" "$d/spec" "$d/vmcore" >"$d/gen.log" 2>&1; then
		notok "bad-input-$name" "mkvmcore: $(cat "$d/gen.log")"; return
	fi
	"$MDF" -l -d 31 "$d/vmcore" "$d/out" >"$d/stdout" 2>"$d/stderr"
	local rc=$? msg
	msg=$(grep '^makedumpfile: ' "$d/stderr")
	if [ $rc -ne 1 ]; then notok "bad-input-$name" "exit status $rc, want 1"
	elif [ "$(printf '%s\n' "$msg" | grep -c .)" -ne 1 ]; then notok "bad-input-$name" "want one error line, got: $(cat "$d/stderr")"
	elif [[ "$msg" != *"$d/vmcore"* ]]; then notok "bad-input-$name" "message does not name the file: $msg"
	elif [[ "$msg" != *"$phrase"* ]]; then notok "bad-input-$name" "message lacks '$phrase': $msg"
	elif [ -e "$d/out" ]; then notok "bad-input-$name" "an output file was written"
	elif grep -qE 'Sanitizer|runtime error|Segmentation' "$d/stderr"; then notok "bad-input-$name" "crash: $(head -n3 "$d/stderr")"
	else ok "bad-input-$name"; fi
}

case_ truncated "break truncate 0x200" "past end of file"
case_ phdrs-out-of-range "break phoff_past_eof" "program header"
case_ segment-past-eof "break load_past_eof" "past end of file"
case_ note-past-segment "break note_overflow" "past end of segment"
case_ no-vmcoreinfo "break no_vmcoreinfo" "no VMCOREINFO"
case_ zero-length "break empty" "empty file"
# VMCOREINFO that no kernel can have: the line is named, nothing is read
# with it (SIZE(page) drives the struct page batches).
case_ page-size-20 "vmcoreinfo set SIZE(page)=20" "SIZE(page)=20 is no struct page size"
case_ page-size-odd "vmcoreinfo set SIZE(page)=68" "SIZE(page)=68 is no struct page size"
case_ flags-misaligned "vmcoreinfo set OFFSET(page.flags)=12" "OFFSET(page.flags)=12 is not 8-byte aligned"
case_ mapping-outside "vmcoreinfo set OFFSET(page.mapping)=64" "OFFSET(page.mapping)=64 lies outside SIZE(page)=64"
# A PT_LOAD larger than the physical address space (p_memsz 2^48 used to
# run for 78 s and write 17 GB, 2^63-1 to hang): refused at once.
for memsz in 0x1000000000000 0x7fffffff00000000; do
	d="$T/memsz-$memsz"
	mkdir -p "$d"
	printf '%s\n' "$base" >"$d/spec"
	"$GEN" "$d/spec" "$d/vmcore" >/dev/null 2>&1
	python3 - "$d/vmcore" "$memsz" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b"); d = f.read(4096)
phoff, = struct.unpack_from("<Q", d, 32); phn, = struct.unpack_from("<H", d, 56)
last = max(i for i in range(phn) if struct.unpack_from("<I", d, phoff + 56 * i)[0] == 1)
f.seek(phoff + 56 * last + 40); f.write(struct.pack("<Q", int(sys.argv[2], 16)))
PY
	timeout 20 "$MDF" -l -d 31 "$d/vmcore" "$d/out" >/dev/null 2>"$d/stderr"; rc=$?
	if [ $rc -eq 1 ] && grep -q "^makedumpfile: $d/vmcore: PT_LOAD .*beyond the 46-bit physical address space" "$d/stderr" &&
		[ ! -e "$d/out" ]; then ok "bad-input-memsz-$memsz"
	else notok "bad-input-memsz-$memsz" "rc=$rc $(tail -n 2 "$d/stderr")"; fi
done

# Odd but possible input: the dump is written, nothing crashes.
odd_() { # NAME EXTRA-LINES LEVEL EXPECTED-STDERR-PHRASE
	local name=$1 extra=$2 level=$3 phrase=$4 d="$T/$1"
	mkdir -p "$d"
	printf '%s\n%s\n' "$base" "$extra" >"$d/spec"
	if ! "$GEN" "$d/spec" "$d/vmcore" >"$d/gen.log" 2>&1; then
		notok "odd-input-$name" "mkvmcore: $(cat "$d/gen.log")"; return
	fi
	"$MDF" -l -d "$level" "$d/vmcore" "$d/out" >"$d/stdout" 2>"$d/stderr"
	local rc=$?
	if [ $rc -ne 0 ]; then notok "odd-input-$name" "exit status $rc: $(tail -n 2 "$d/stderr")"
	elif grep -qE 'Sanitizer|runtime error|Segmentation' "$d/stderr"; then notok "odd-input-$name" "crash: $(head -n3 "$d/stderr")"
	elif [ -n "$phrase" ] && ! grep -qF "$phrase" "$d/stdout" "$d/stderr"; then notok "odd-input-$name" "no '$phrase' in: $(cat "$d/stderr")"
	else ok "odd-input-$name"; fi
}
# SIZE(page)=72 is a real size (this kernel's is 64): the struct page
# batches are sized by it (a 32 KiB buffer took 36 KiB and crashed).
odd_ page-size-72 "vmcoreinfo set SIZE(page)=72" 31 ""
# At -d 1 no rule needs struct pages: a bad layout is a warning.
odd_ flags-misaligned-d1 "vmcoreinfo set OFFSET(page.flags)=12" 1 "hwpoison and offline pages are kept"
# A segment whose file offset is not 8-byte aligned (gap=3): pages are
# read at any alignment (UBSan in the sanitizer run).
odd_ unaligned-offset "ram 0x8000000 +1M gap=3
fill 0x8000+256 random" 31 ""

# A file that does not exist, and a directory.
"$MDF" -d 31 "$T/nonexistent" "$T/out2" 2>"$T/e1"; rc=$?
if [ $rc -eq 1 ] && grep -q "$T/nonexistent" "$T/e1" && [ ! -e "$T/out2" ]; then ok "bad-input-missing-file"
else notok "bad-input-missing-file" "rc=$rc $(cat "$T/e1")"; fi
"$MDF" -d 31 "$T" "$T/out3" 2>"$T/e2"; rc=$?
if [ $rc -eq 1 ] && grep -q "makedumpfile: $T" "$T/e2" && [ ! -e "$T/out3" ]; then ok "bad-input-directory"
else notok "bad-input-directory" "rc=$rc $(cat "$T/e2")"; fi

# Never destroy input: an output that is the input under any name (the
# same path, ./name, a hard link) is refused before anything is opened for
# writing, even with -f (which used to truncate the vmcore and die of
# SIGBUS); existing outputs without -f, split parts and debug bitmaps
# included, are refused before the first byte of the first part.
d="$T/same"; mkdir -p "$d"
printf '%s\n' "$base" >"$d/spec"
"$GEN" "$d/spec" "$d/vmcore" >/dev/null 2>&1
ln "$d/vmcore" "$d/link"
sum=$(md5sum <"$d/vmcore")
same_() { # NAME EXPECTED-PHRASE ARGS...
	local name=$1 phrase=$2; shift 2
	(cd "$d" && "$MDF" "$@" >/dev/null 2>"$d/stderr-$name"); local rc=$?
	if [ $rc -ne 1 ]; then notok "never-destroy-$name" "exit status $rc, want 1"
	elif ! grep -qF -- "$phrase" "$d/stderr-$name"; then notok "never-destroy-$name" "no '$phrase' in: $(cat "$d/stderr-$name")"
	elif [ "$(md5sum <"$d/vmcore")" != "$sum" ]; then notok "never-destroy-$name" "the input changed"
	else ok "never-destroy-$name"; fi
}
same_ same-path "VMCORE and DUMPFILE are the same file" -f -l -d 31 vmcore vmcore
same_ dot-name "./vmcore is $d/vmcore itself" -f -l -d 31 "$d/vmcore" ./vmcore
same_ hard-link "link is vmcore itself" -f -l -d 31 vmcore link
same_ split-part "link is vmcore itself" -f -l -d 31 --split vmcore partA link
same_ debug-bitmap "link is vmcore itself" -f -l -d 31 --debug-bitmap link vmcore out0
same_ named-twice "the file 'partA' is given twice" -f -l -d 31 --split vmcore partA partA
touch "$d/partB" "$d/bitmap"
same_ split-existing "partB already exists" -l -d 31 --split vmcore partA partB
[ -e "$d/partA" ] && notok "never-destroy-split-first-part" "partA was written" || ok "never-destroy-split-first-part"
same_ bitmap-existing "bitmap already exists" -l -d 31 --debug-bitmap bitmap vmcore out1
[ -e "$d/out1" ] && notok "never-destroy-bitmap-output" "out1 was written" || ok "never-destroy-bitmap-output"
same_ dmesg-same "link is vmcore itself" -f --dump-dmesg vmcore link

# Silent wrong output, no more: what the headers and VMCOREINFO claim is
# checked against what the dump holds, and a doubt keeps pages, aloud.
# LENGTH(mem_section)=9999 made -d 31 drop only zero pages without a word.
odd_ length-mem-section "vmcoreinfo set LENGTH(mem_section)=9999" 31 "pages kept: no mem_section maps a struct page for them"
# A bad value in a line filtering does not read costs only its feature.
odd_ bad-build-id "vmcoreinfo set BUILD-ID=zz" 31 "BUILD-ID: bad hex string 'zz'; filtering does not use it"
odd_ bad-printk-offset "vmcoreinfo set OFFSET(printk_info.seq)=x1" 31 "OFFSET(printk_info.seq): bad number 'x1'; filtering does not use it"
"$MDF" --dump-dmesg "$T/bad-printk-offset/vmcore" "$T/bad-printk-offset/dmesg" 2>"$T/e3"; rc=$?
if [ $rc -eq 1 ] && grep -q "VMCOREINFO line [0-9]*: OFFSET(printk_info.seq): bad number 'x1'" "$T/e3" &&
	[ ! -e "$T/bad-printk-offset/dmesg" ]; then ok "bad-input-printk-offset-dmesg"
else notok "bad-input-printk-offset-dmesg" "rc=$rc $(cat "$T/e3")"; fi

# Corrupt VMCOREINFO text is named where it is corrupt: a NUL in place of
# the newline after OFFSET(mem_section.section_mem_map) used to be
# reported as a key missing further down.
d="$T/nul"; mkdir -p "$d"
printf '%s\n' "$base" >"$d/spec"
"$GEN" "$d/spec" "$d/vmcore" >/dev/null 2>&1
python3 - "$d/vmcore" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(b"OFFSET(mem_section.section_mem_map)="); d[d.find(b"\n", i)] = 0
open(sys.argv[1], "wb").write(d)
PY
line=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); s=d.find(b"OSRELEASE="); i=d.find(b"OFFSET(mem_section.section_mem_map)="); print(d[s:i].count(b"\n")+1)' "$d/vmcore")
"$MDF" -l -d 31 "$d/vmcore" "$d/out" 2>"$d/stderr"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $d/vmcore: VMCOREINFO line $line: NUL byte" "$d/stderr" && [ ! -e "$d/out" ]
then ok "bad-input-vmcoreinfo-nul"; else notok "bad-input-vmcoreinfo-nul" "rc=$rc line $line: $(cat "$d/stderr")"; fi

# A kdump-compressed input whose bitmap1 was zeroed refiltered to
# "Original pages: 0x0" with rc 0: stored pages are present, and we say so.
d="$T/zb1"; mkdir -p "$d"
printf '%s\n' "$base" >"$d/spec"
"$GEN" "$d/spec" "$d/vmcore" >/dev/null 2>&1
"$MDF" -l -d 1 "$d/vmcore" "$d/in.kdump" >/dev/null 2>&1
python3 - "$d/in.kdump" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
bs, sub, blocks = struct.unpack_from("<iiI", d, 428)
b1 = (1 + sub) * bs; n = blocks // 2 * bs
d[b1:b1 + n] = bytes(n)
open(sys.argv[1], "wb").write(d)
PY
"$MDF" -l -d 31 "$d/in.kdump" "$d/out" >"$d/stderr" 2>&1; rc=$?
"$MDF" -l -d 31 "$d/vmcore" "$d/direct" >/dev/null 2>&1
if [ $rc -eq 0 ] && grep -q "bitmap1 marks [1-9][0-9]* stored pages as holes; they are kept as present" "$d/stderr" &&
	python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers --ignore-bitmap1 "$d/out" "$d/direct" >/dev/null 2>&1; then
	ok "refilter-zeroed-bitmap1"
else notok "refilter-zeroed-bitmap1" "rc=$rc $(cat "$d/stderr")"; fi

# Options that do not apply are refused, never ignored.
refuse_() { # EXPECTED-PHRASE ARGS...
	local phrase=$1; shift
	"$MDF" "$@" </dev/null >/dev/null 2>"$T/refuse"; local rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$phrase" "$T/refuse"; then ok "refuse $*"
	else notok "refuse $*" "rc=$rc $(cat "$T/refuse")"; fi
}
refuse_ "-R cannot be combined with -L" -R -L 1M "$T/r1"
refuse_ "-R cannot be combined with -c, -l, -p or -z" -R -c "$T/r1"
refuse_ "-R cannot be combined with -d" -R -d 31 "$T/r1"
refuse_ "-R cannot be combined with -E" -R -E "$T/r1"
refuse_ "-R cannot be combined with -F" -R -F "$T/r1"
refuse_ "--reassemble cannot be combined with -L" --reassemble -L 1M a b c
refuse_ "--reassemble cannot be combined with -c, -l, -p or -z" --reassemble -l a b c
refuse_ "--reassemble cannot be combined with -d" --reassemble -d 1 a b c
refuse_ "--dump-dmesg cannot be combined with -c, -l, -p or -z" --dump-dmesg -c a b
refuse_ "--dump-dmesg cannot be combined with -d" --dump-dmesg -d 31 a b
refuse_ "--dump-dmesg cannot be combined with -E" --dump-dmesg -E a b

# Every error names its file, a full disk included.
if [ -w /dev/full ]; then
	full_() { # NAME EXPECTED-PHRASE COMMAND...
		local name=$1 phrase=$2; shift 2
		"$@" >/dev/null 2>"$T/full"; local rc=$?
		if [ $rc -eq 1 ] && grep -qF -- "$phrase" "$T/full"; then ok "full-disk-$name"
		else notok "full-disk-$name" "rc=$rc $(cat "$T/full")"; fi
	}
	d="$T/same"
	full_ kdump "/dev/full: the dump is incomplete" "$MDF" -f -l -d 31 "$d/vmcore" /dev/full
	full_ elf "/dev/full: the ELF dump is incomplete" "$MDF" -f -E -d 31 "$d/vmcore" /dev/full
	full_ flat "makedumpfile: standard output: write: No space left on device" \
		sh -c '"$0" -F -l -d 31 "$1" >/dev/full' "$MDF" "$d/vmcore"
	"$MDF" -l -d 31 --split "$d/vmcore" "$T/sp1" "$T/sp2" >/dev/null 2>&1
	full_ reassemble "makedumpfile: /dev/full: write at offset" "$MDF" -f --reassemble "$T/sp1" "$T/sp2" /dev/full
	if vm=$(vmcore fx-v61-512m); then
		full_ dmesg "makedumpfile: /dev/full: no space left for the dmesg log" \
			"$MDF" -f --dump-dmesg "$vm" /dev/full
		full_ dmesg-limit "makedumpfile: $vm: $T/dm: no space left for the dmesg log" \
			"$MDF" -L 1K --dump-dmesg "$vm" "$T/dm"
		full_ dmesg-F-limit "makedumpfile: $vm: standard output: no space left for the dmesg log" \
			"$MDF" -F -L 1K --dump-dmesg "$vm"
	else
		skip "full-disk-dmesg" "no ../shared/vmcores fixture (or zstd)"
	fi
else
	skip "full-disk" "no writable /dev/full"
fi
