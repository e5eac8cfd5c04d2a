#!/bin/bash
# --mem-usage: the page-type table kdump users size their dump target with
# ("makedumpfile --mem-usage /proc/kcore").  Checked here on files:
#  - a synthetic /proc/kcore (tests/gen "kcore": PT_LOADs with p_paddr -1,
#    no CRASHTIME) with known page kinds: exact table, the same with two
#    threads and with --non-mmap, and equal to the --dry-run -d 31 report;
#  - the real vmcores: every row equals the reference counts at -d 31;
#  - bad input: a kcore without VMCOREINFO, options that write.
# The run on a live /proc/kcore is in capture.sh (the kdump capture kernel).
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

# Rows of a --mem-usage table as "ZERO=n NON_PRI_CACHE=n ... TOTAL=n".
rows() {
	awk -F'\t+' '/^(ZERO|NON_PRI_CACHE|PRI_CACHE|USER|FREE|KERN_DATA)\t/ {
		sub(/ +$/, "", $2); printf "%s=%s ", $1, $2 }
	/^Total pages on system:/ { sub(/ +$/, "", $2); printf "TOTAL=%s", $2 }' "$1"
}

cat >"$T/kcore.spec" <<'EOF'
kernel 6.1
seed 5
ram 0x1000 0x9f000
ram 0x100000 +254M
pages 0x8000+2048 cache
pages 0x8800+512 cache_private
pages 0x9000+1024 anon
pages 0x9400+300 kernel
fill 0x9400+300 random 3
fill 0xa000+256 random 7
fill 0xa100+128 zero
vmcoreinfo del CRASHTIME
kcore
EOF
if ! "$GEN" "$T/kcore.spec" "$T/kcore" >"$T/gen.log" 2>&1; then
	notok "mem-usage-gen" "mkvmcore: $(tail -n 1 "$T/gen.log")"; exit 0
fi
# Three PT_LOADs have no physical address, as in a real /proc/kcore.
n=$(readelf -lW "$T/kcore" | grep -c ' 0xffffffffffffffff ')
if [ "$n" = 3 ]; then ok "mem-usage-gen-kcore-shape"; else notok "mem-usage-gen-kcore-shape" "$n PT_LOADs with p_paddr -1, want 3"; fi

if ! "$MDF" --mem-usage "$T/kcore" >"$T/mu.out" 2>"$T/mu.err"; then
	notok "mem-usage-synthetic" "exit $?: $(tail -n 2 "$T/mu.err" | tr '\n' ' ')"; exit 0
fi
# Present: 158 + 65024 pages of RAM.  The declared kinds are exact; ZERO
# (mostly the zero-filled kernel text), FREE (undeclared RAM) and
# KERN_DATA (the 300 kernel pages, the generator's page tables and struct
# pages, the text's non-zero pages) follow from the generator's layout,
# which is fixed by the spec.
got=$(rows "$T/mu.out")
case "$got" in
"ZERO=4101 NON_PRI_CACHE=2048 PRI_CACHE=512 USER=1024 FREE=56164 KERN_DATA=1333 TOTAL=65182")
	ok "mem-usage-synthetic-rows ($got)" ;;
*)	notok "mem-usage-synthetic-rows" "got '$got'" ;;
esac
# The table's shape, tab for tab (the unit test checks every byte).
if head -n 3 "$T/mu.out" | cmp -s - <(printf '\nTYPE\t\tPAGES\t\t\tEXCLUDABLE\tDESCRIPTION\n%s\n' \
	"----------------------------------------------------------------------") &&
	grep -q $'^KERN_DATA\t[0-9]* *\tno\t\tDumpable kernel data $' "$T/mu.out" &&
	grep -q $'^page size:\t\t4096            $' "$T/mu.out" &&
	grep -q $'^Total size on system:\t266985472        Byte$' "$T/mu.out"; then
	ok "mem-usage-table-format"
else
	notok "mem-usage-table-format" "$(head -n 3 "$T/mu.out" | od -c | head -n 3 | tr '\n' ' ')"
fi
# Nothing after the table: no "The dumpfile is saved", no "Completed".
if grep -q 'Completed\|saved' "$T/mu.out" "$T/mu.err"; then notok "mem-usage-no-dump-lines" "$(grep 'Completed\|saved' "$T/mu.out" "$T/mu.err")"
else ok "mem-usage-no-dump-lines"; fi

# The rows are the --dry-run -d 31 report's counts.
"$MDF" --dry-run -d 31 --message-level 16 "$T/kcore" >"$T/dry.out" 2>&1
why=$(python3 - "$T/dry.out" "$got" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
rows = dict(kv.split("=") for kv in sys.argv[2].split())
def c(label):
    m = re.search(re.escape(label) + r"\s*: 0x([0-9a-f]+)", log)
    return int(m.group(1), 16) if m else None
want = {"ZERO": c("Pages filled with zero"), "NON_PRI_CACHE": c("Non-private cache pages"),
        "PRI_CACHE": c("Private cache pages"), "USER": c("User process data pages"),
        "FREE": c("Free pages"), "KERN_DATA": c("Remaining pages"), "TOTAL": c("Original pages")}
print("; ".join("%s=%s want %s" % (k, rows.get(k), v) for k, v in want.items()
                if v is None or int(rows.get(k, -1)) != v))
PY
)
if [ -z "$why" ]; then ok "mem-usage-equals-dry-run-report"; else notok "mem-usage-equals-dry-run-report" "$why"; fi

# The same table with scan threads and with read(2) (kcore cannot be mmapped).
for opt in "--num-threads 2" "--non-mmap" "--cyclic-buffer 4"; do
	# shellcheck disable=SC2086
	if "$MDF" --mem-usage $opt "$T/kcore" >"$T/mu2.out" 2>/dev/null && cmp -s "$T/mu.out" "$T/mu2.out"; then
		ok "mem-usage-same-with $opt"
	else notok "mem-usage-same-with $opt" "$(diff "$T/mu.out" "$T/mu2.out" | head -n 4 | tr '\n' ' ')"; fi
done

# Real vmcores: every row equals the reference report at -d 31.
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "mem-usage-$name" "no ../shared/vmcores/$name.elf.zst (or zstd)"; continue; }
	if ! "$MDF" --mem-usage "$vm" >"$T/$name.out" 2>"$T/$name.err"; then
		notok "mem-usage-$name" "exit $?: $(tail -n 1 "$T/$name.err")"; continue
	fi
	why=$(python3 - "$MDF_SHARED/vmcores/$name.json" "$(rows "$T/$name.out")" <<'PY'
import json, sys
ref = json.load(open(sys.argv[1]))["reference"]["levels"]["31"]["report"]
rows = dict(kv.split("=") for kv in sys.argv[2].split())
want = {"ZERO": ref["zero"], "NON_PRI_CACHE": ref["cache"], "PRI_CACHE": ref["cache_private"],
        "USER": ref["user"], "FREE": ref["free"]}
bad = ["%s=%s want %d" % (k, rows.get(k), v) for k, v in want.items() if int(rows.get(k, -1)) != v]
# What no row names is kernel data: the rows add up to the pages present.
if sum(int(v) for k, v in rows.items() if k != "TOTAL") != int(rows.get("TOTAL", -1)):
    bad.append("rows do not add up to TOTAL=%s" % rows.get("TOTAL"))
print("; ".join(bad))
PY
)
	if [ -z "$why" ]; then ok "mem-usage-$name-reference-counts"; else notok "mem-usage-$name-reference-counts" "$why"; fi
done

# Bad input: one line naming the file and what is wrong, exit 1.
sed 's/^kcore$/kcore\nbreak no_vmcoreinfo/' "$T/kcore.spec" >"$T/nov.spec"
"$GEN" "$T/nov.spec" "$T/nov" >/dev/null 2>&1
"$MDF" --mem-usage "$T/nov" >"$T/nov.out" 2>&1; rc=$?
if [ $rc = 1 ] && grep -qx "makedumpfile: $T/nov: no VMCOREINFO note (/proc/kcore has one from Linux 4.19 on)" "$T/nov.out"; then
	ok "mem-usage-no-vmcoreinfo"
else notok "mem-usage-no-vmcoreinfo" "rc $rc: $(head -n 2 "$T/nov.out" | tr '\n' ' ')"; fi
"$MDF" --mem-usage -d 31 "$T/kcore" >"$T/d.out" 2>&1; rc=$?
if [ $rc = 1 ] && grep -q '^makedumpfile: --mem-usage writes no dump: it takes no -d' "$T/d.out"; then
	ok "mem-usage-refuses-d"
else notok "mem-usage-refuses-d" "rc $rc: $(head -n 1 "$T/d.out")"; fi
"$MDF" --mem-usage "$T/missing" >"$T/m.out" 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^makedumpfile: cannot open $T/missing" "$T/m.out"; then ok "mem-usage-missing-file"
else notok "mem-usage-missing-file" "rc $rc: $(head -n 1 "$T/m.out")"; fi
exit 0
