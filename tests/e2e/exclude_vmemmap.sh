#!/bin/bash
# -e (issue 31): the vmemmap pages that hold only struct pages of excluded
# memory are left out, the same pages as upstream's -e:
#  - synthetic x86_64 dumps (tests/gen) and the real fixtures: our -l, -E
#    and -c with -e against upstream HEAD's (-e --work-dir), byte for byte
#    (-c: the same dump, kdump_same.py), at -d 31, 1 and 0, with small
#    cycles, two threads and --split;
#  - the header says so (DUMP_DH_EXCLUDED_VMEMMAP, 0x10), and the run says
#    "Excluded N unused vmemmap pages" with upstream's N;
#  - refiltering a dump with -e drops the pages -e drops from the ELF;
#  - arm64, riscv64, s390x and ppc64 (both byte orders), where upstream has
#    no -e: pages are dropped, the dump refiltered is itself, and the
#    struct pages of kept pages stay (--explain reads them in the -e dump);
#  - an x86_64 vmemmap of 4 KiB pages is refused with one line (upstream:
#    "vmemmap pmd not huge, abort").
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
HEAD=${MDF_HEAD:-$MDF_SHARED/oracles/makedumpfile-head}
SAME="$MDF_SRC/tests/tools/kdump_same.py"
KPY="$MDF_SHARED/tools/kdump.py"
[ -x "$HEAD" ] || HEAD=""
mkdir -p "$T/wd"
status() { python3 -c 'import struct,sys; print(hex(struct.unpack_from("<I", open(sys.argv[1],"rb").read(428), 424)[0]))' "$1"; }

# same NAME VMCORE ARGS...: ours with -e against HEAD's, and the message.
same() {
	local name=$1 vm=$2 n1 n2 why
	shift 2
	rm -f "$T/o" "$T/h"
	"$MDF" "$@" -e "$vm" "$T/o" >"$T/o.log" 2>&1 || { notok "$name" "ours: $(tail -n 1 "$T/o.log")"; return; }
	n1=$(grep -o 'Excluded [0-9]* unused vmemmap pages' "$T/o.log")
	if [ -z "$HEAD" ]; then
		skip "$name" "no upstream HEAD oracle"; return
	fi
	"$HEAD" "$@" -e --work-dir "$T/wd" "$vm" "$T/h" >"$T/h.log" 2>&1 ||
		{ notok "$name" "HEAD: $(tail -n 1 "$T/h.log")"; return; }
	n2=$(tr '\r' '\n' <"$T/h.log" | grep -o 'Excluded [0-9]* unused vmemmap pages')
	case " $* " in
	*" -c "*) why=$(python3 "$SAME" "$T/o" "$T/h" 2>&1) || { notok "$name" "$why"; return; } ;;
	*) why=$(python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/h" "$T/o" 2>&1) ||
		{ notok "$name" "$why"; return; } ;;
	esac
	if [ "$n1" = "$n2" ] && [ -n "$n1" ]; then ok "$name (${n1#Excluded }, as HEAD)"
	else notok "$name" "ours '$n1', HEAD '$n2'"; fi
}

# Free memory in runs, kernel and user pages between, a hole.
printf 'kernel 6.1\nram 0x100000 0x20000000\nram 0x40000000 0x50000000\npages 0x2000+700 anon random\npages 0x9000+64 slab random\npages 0x41000+300 cache random\n' >"$T/a.spec"
"$GEN" "$T/a.spec" "$T/a" >/dev/null 2>&1 || { notok "vmemmap-gen" "mkvmcore failed"; exit 0; }
same "vmemmap-gen-l-d31" "$T/a" -l -d 31
same "vmemmap-gen-l-d1" "$T/a" -l -d 1
same "vmemmap-gen-l-d0" "$T/a" -l -d 0
same "vmemmap-gen-E-d31" "$T/a" -E -d 31
same "vmemmap-gen-c-d31" "$T/a" -c -d 31
same "vmemmap-gen-l-d31-small-cycles" "$T/a" -l -d 31 --cyclic-buffer 4
same "vmemmap-gen-l-d31-threads" "$T/a" -l -d 31 --num-threads 2
rm -f "$T/o"
"$MDF" --message-level 0 -l -d 31 -e "$T/a" "$T/e.l"
"$MDF" --message-level 0 -l -d 31 "$T/a" "$T/plain.l"
check "vmemmap-header-flag ($(status "$T/e.l") with -e, $(status "$T/plain.l") without)" \
	test "$(( $(status "$T/e.l") & 0x10 ))" = 16 -a "$(( $(status "$T/plain.l") & 0x10 ))" = 0
check "vmemmap-smaller" test "$(stat -c %s "$T/e.l")" -lt "$(stat -c %s "$T/plain.l")"
# The report counts them on a line of their own, out of the remaining pages.
rm -f "$T/e2.l"
"$MDF" --message-level 31 -l -d 31 -e "$T/a" "$T/e2.l" >"$T/rep" 2>&1
n=$(sed -n 's/^Excluded \([0-9]*\) unused vmemmap pages$/\1/p' "$T/rep")
if [ -n "$n" ] && grep -q "^    Unused vmemmap pages    : $(printf '0x%016x' "$n")$" "$T/rep"; then
	ok "vmemmap-report-line ($n pages)"
else notok "vmemmap-report-line" "message '$n': $(grep -i vmemmap "$T/rep" | tr '\n' ' ')"; fi
"$MDF" --message-level 0 -l -d 31 -e --split "$T/a" "$T/s1" "$T/s2" &&
	"$MDF" --message-level 0 --reassemble "$T/s1" "$T/s2" "$T/re.l"
check "vmemmap-split-reassembled" cmp "$T/re.l" "$T/e.l"
"$MDF" --message-level 0 -l -d 31 -e "$T/plain.l" "$T/refilter.l"
check "vmemmap-refilter-drops-the-same" cmp "$T/refilter.l" "$T/e.l"

# The other architectures: their vmemmap walked mapping by mapping (no
# upstream to compare with).  Pages are dropped, the -e dump refiltered at
# its level is itself (every page read back), and the struct page of a kept
# page is still in the dump (--explain on the -e dump reads it).
for a in "arm64:6.1:0:0x20000000:0x9000" "riscv64:6.12:0x80000000:0xa0000000:0x90000" \
	"s390x:6.1:0:0x20000000:0x9000" "ppc64:6.1:0:0x20000000:0x1000" "ppc64be:6.1:0:0x20000000:0x1000"; do
	IFS=: read -r arch kv lo hi pg <<<"$a"
	printf 'arch %s\nkernel %s\nram %s %s\npages %s+64 slab random\n' "$arch" "$kv" "$lo" "$hi" "$pg" >"$T/f.spec"
	"$GEN" "$T/f.spec" "$T/f" >/dev/null 2>&1 || { notok "vmemmap-$arch" "mkvmcore failed"; continue; }
	rm -f "$T/f.e"
	"$MDF" --message-level 31 -l -d 31 -e "$T/f" "$T/f.e" >"$T/f.log" 2>&1 ||
		{ notok "vmemmap-$arch" "$(grep makedumpfile: "$T/f.log")"; continue; }
	n=$(sed -n 's/^Excluded \([0-9]*\) unused vmemmap pages$/\1/p' "$T/f.log")
	# refiltered (read back by our kdump reader) it is itself
	rm -f "$T/f.re"
	"$MDF" --message-level 0 -l -d 31 "$T/f.e" "$T/f.re"
	same=$(cmp "$T/f.re" "$T/f.e" 2>&1 && echo same)
	bad=""
	for p in $(seq $((pg)) 8 $((pg + 63))); do
		"$MDF" --explain "pfn:$p" "$T/f.e" 2>&1 | grep -q "^  struct page at " || bad="$bad $p"
	done
	if [ "${n:-0}" -gt 0 ] && [ "$same" = same ] && [ -z "$bad" ]; then
		ok "vmemmap-$arch ($n pages dropped; refiltered it is itself; the struct pages of 8 kept pfns read)"
	else notok "vmemmap-$arch" "dropped '$n'; refiltered: ${same:-differs}; struct page not read for:$bad"; fi
done

# Refused: 4 KiB vmemmap pages on x86_64 (as upstream; 5-level paging
# too, which the generator does not make).
refused() { # NAME SPEC WANT
	printf '%b' "$2" >"$T/r.spec"
	"$GEN" "$T/r.spec" "$T/r" >/dev/null 2>&1 || { notok "$1" "mkvmcore failed"; return; }
	rm -f "$T/o"
	"$MDF" -l -d 31 -e "$T/r" "$T/o" >"$T/r.log" 2>&1
	local rc=$?
	if [ $rc = 1 ] && [ ! -e "$T/o" ] && grep -q "$3" "$T/r.log" &&
		[ "$(grep -c '^makedumpfile: ' "$T/r.log")" = 1 ]; then ok "$1 ($(grep '^makedumpfile: ' "$T/r.log"))"
	else notok "$1" "exit $rc: $(tail -n 2 "$T/r.log" | tr '\n' ' ')"; fi
}
refused "vmemmap-4k-refused" 'kernel 6.1\nram 0x100000 0x8000000\nvmemmap_pte 4k\n' "mapped by 4 KiB pages"

# The real fixtures.
for f in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore $f) || { skip "vmemmap-$f" "no fixture"; continue; }
	same "vmemmap-$f-l-d31" "$vm" -l -d 31
	same "vmemmap-$f-E-d31" "$vm" -E -d 31
done
exit 0
