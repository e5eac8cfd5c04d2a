#!/bin/bash
# The binary is valgrind-clean (no invalid access, no uninitialised use,
# no leak) on every output path, --mem-usage, --page-types, --keep-task
# (on a real fixture) and a malformed input.  The
# vmcore has kcore's p_paddr -1 segments too, which every reader skips.
. "$(dirname "$0")/../lib/lib.sh"
case "${MDF_FLAVOUR:-default}" in san-*) skip "valgrind" "sanitizer build"; exit 0;; esac
command -v valgrind >/dev/null || { skip "valgrind" "valgrind not installed"; exit 0; }
# tests/cross.sh: $MDF runs under qemu-user, which valgrind would check
[ -z "${MDF_CROSS:-}" ] || { skip "valgrind" "a $MDF_CROSS build runs under qemu-user, not valgrind"; exit 0; }
GEN="$MDF_BUILD/tests/gen/mkvmcore"
cat >"$T/spec" <<'SPEC'
kernel 6.12
ram 0x1000 +0x9ec00
ram 0x100000 0x4000000
pages 0x2000+256 anon random
pages 0x2200+256 cache text
pages 0x2400+512 thp order=9 random
pages 0x2600+4 hwpoison
fill 0x3000+64 text 3
kcore
SPEC
"$GEN" "$T/spec" "$T/vmcore" || { notok "valgrind" "mkvmcore failed"; exit 0; }
printf 'kernel 6.1\nram 0x100000 0x4000000\nbreak note_overflow\n' >"$T/bad.spec"
"$GEN" "$T/bad.spec" "$T/bad"
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
run() { # NAME EXPECTED-RC ARGS...
	local name=$1 want=$2; shift 2
	rm -f "$T/out"
	$VG "$MDF" --message-level 0 "$@" >"$T/vg.out" 2>"$T/vg.err"
	local rc=$?
	if [ $rc -eq "$want" ] && ! grep -q '==[0-9]*==' "$T/vg.err"; then ok "valgrind-$name"
	else notok "valgrind-$name" "rc=$rc: $(grep -m3 '==[0-9]*==' "$T/vg.err" | tr '\n' ' ')"; fi
}
run dry-run 0 --dry-run -d 31 "$T/vmcore"
run mem-usage 0 --mem-usage "$T/vmcore"
run lzo 0 -l -d 31 "$T/vmcore" "$T/out"
run zlib-d1 0 -c -d 1 "$T/vmcore" "$T/out"
run elf 0 -E -d 31 "$T/vmcore" "$T/out"
run non-mmap 0 --non-mmap -l -d 31 "$T/vmcore" "$T/out"
run limit 1 -l -d 0 -L 1M "$T/vmcore" "$T/out"
run bad-input 1 -l -d 31 "$T/bad" "$T/out"
"$MDF" -v | grep -q 'zstd.*enabled' && run zstd 0 -z -d 31 "$T/vmcore" "$T/out"
run page-types 0 --page-types "$T/vmcore"
# a split set read as one dump (splitset.c): every part's reader and cache
"$MDF" --message-level 0 -l -d 1 --split "$T/vmcore" "$T/s1" "$T/s2" &&
	run split-set 0 -l -d 31 "$T/s2" "$T/s1" "$T/out"
# --keep-task and --page-types-by on a real dump (its BTF, its task list)
vm=$(vmcore fx-v612-512m) &&
	run keep-task 0 -l -d 31 --keep-task comm:labwork --page-types-by task "$vm" "$T/out"
