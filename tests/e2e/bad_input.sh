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

# A file that does not exist, and a directory.
"$MDF" -d 31 "$T/nonexistent" "$T/out2" 2>"$T/e1"; rc=$?
if [ $rc -eq 1 ] && grep -q "$T/nonexistent" "$T/e1" && [ ! -e "$T/out2" ]; then ok "bad-input-missing-file"
else notok "bad-input-missing-file" "rc=$rc $(cat "$T/e1")"; fi
"$MDF" -d 31 "$T" "$T/out3" 2>"$T/e2"; rc=$?
if [ $rc -eq 1 ] && grep -q "makedumpfile: $T" "$T/e2" && [ ! -e "$T/out3" ]; then ok "bad-input-directory"
else notok "bad-input-directory" "rc=$rc $(cat "$T/e2")"; fi
