#!/bin/bash
# Malformed input: one clear line naming the file and the problem, exit
# status 1, no crash (no signal, no sanitizer report), and nothing written.
. "$(dirname "$0")/../lib.sh"
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
