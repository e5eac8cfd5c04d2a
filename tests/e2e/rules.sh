#!/bin/bash
# House rules that the compiler cannot check:
#  - no writable global or static data in product objects (nm),
#  - only main() (makedumpfile.c) exits, only print_info.c prints,
#  - every kernel-version rule in filter.c names a version or commit.
set -u
cd "$MDF_SRC"
srcs=$(ls *.c arch/*.c kernel/*.c filter/*.c compress/*.c write/*.c 2>/dev/null)
hdrs=$(ls *.h arch/*.h kernel/*.h filter/*.h compress/*.h write/*.h 2>/dev/null)

# 1. No writable data: every data symbol must live in a read-only section.
#    .data.rel.ro (tables of pointers in a PIE) is read-only after
#    relocation (RELRO), so it counts as read-only.
objs=${MDF_OBJS:-}
if [ -z "$objs" ]; then
	echo "skip no-writable-globals: MDF_OBJS not set (run through make check)"
else
	bad=""
	for o in $objs; do
		[ -f "$o" ] || continue
		# objdump -t: "addr flags section size name"; sanitizer runtimes
		# add their own bookkeeping symbols, which are ignored.
		syms=$(objdump -t "$o" | awk 'NF >= 4 && $NF !~ /^\./ && ($(NF-2) ~ /^\.(data|bss|tbss|tdata)/ || $(NF-2) == "*COM*") && $(NF-2) !~ /^\.data\.rel\.ro/ {print $NF}' |
			grep -vE '^(_+(asan|ubsan|tsan|msan|sancov|llvm)|__odr_asan|\.L)' || true)
		[ -n "$syms" ] && bad="$bad $o:[$(echo $syms | tr '\n' ' ')]"
	done
	if [ -z "$bad" ]; then echo "ok no-writable-globals"
	else echo "not ok no-writable-globals: writable data in$bad"; fi
fi

# 2. Only makedumpfile.c exits.
hits=$(grep -nE '(^|[^_a-zA-Z0-9])(exit|_exit|_Exit|abort)[[:space:]]*\(' $srcs |
	grep -v '^makedumpfile\.c:' | grep -vE ':[[:space:]]*(\*|/\*|//)' || true)
if [ -z "$hits" ]; then echo "ok only-main-exits"
else echo "not ok only-main-exits: $(echo "$hits" | head -3 | tr '\n' ' ')"; fi

# 3. Only print_info.c prints.
hits=$(grep -nE '(^|[^_a-zA-Z0-9])(printf|fprintf|vfprintf|dprintf|puts|fputs|fputc|putchar|putc|perror|fwrite)[[:space:]]*\(' $srcs |
	grep -v '^print_info\.c:' | grep -vE ':[[:space:]]*(\*|/\*|//)' || true)
if [ -z "$hits" ]; then echo "ok only-print_info-prints"
else echo "not ok only-print_info-prints: $(echo "$hits" | head -3 | tr '\n' ' ')"; fi

# 4. Includes run one way, up the stages of the flow: no file includes a
#    header of a later stage.  The stages, in order (README "Files"):
#      0 shared words: error util bitmap workers kinfo pageclass kpageflags
#        diskdump (format),
#        makedumpfile/extension.h (include/: the extensions' ABI, installed)
#      1 compress/ (the codecs, which input and output both use)
#      2 input and services: opts input cache elf_info diskdump_read splitset sadump
#        (a split set read as one) print_info
#        files (inputs opened, outputs checked) stop (the stop signals)
#      3 address translation: arch/ readmem
#      4 kernel/ (VMCOREINFO, where struct pages live)
#      5 filter/ (classify, free lists, the parallel scan)
#      6 write/ (dump sources, writers, output, split sets, -R)
#      7 the run: makedumpfile context dump dmesg
stage() {
	case "$1" in
	compress/*) echo 1 ;; arch/*) echo 3 ;; kernel/*) echo 4 ;;
	filter/*) echo 5 ;; write/*) echo 6 ;;
	error.* | util.* | bitmap.* | workers.* | kinfo.h | diskdump.h | pageclass.h | kpageflags.*) echo 0 ;;
	makedumpfile/extension.h | include/*) echo 0 ;;
	opts.* | input.h | cache.* | elf_info.* | diskdump_read.* | splitset.* | sadump.* | print_info.* | files.* | stop.*) echo 2 ;;
	readmem.*) echo 3 ;;
	*) echo 7 ;;
	esac
}
bad=""
for f in $srcs $hdrs; do
	fs=$(stage "$f")
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		is=$(stage "$inc")
		[ "$is" -gt "$fs" ] && bad="$bad $f($fs)->$inc($is)"
	done
done
if [ -z "$bad" ]; then echo "ok include-direction"
else echo "not ok include-direction: a later stage included by$bad"; fi
# 5. Every kernel-version rule cites a version or a commit, and none is
#    left unverified.  A rule is a comment block in the filter, the
#    architectures or kernel/ that speaks of a kernel change ("since",
#    "until", "up to", "and later", "commit", "renamed", "moved", "added",
#    "export"); it must name a release (4.9, 6.12) or a commit (12 hex).
bad=$(python3 - filter/*.c arch/*.c kernel/*.c <<'PY'
import re, sys
change = re.compile(r"\b(since|until|up to|and later|commit|renamed|moved|added|export)", re.I)
cite = re.compile(r"\b([2-7]\.[0-9]{1,2}(\.[0-9]+)?|[0-9a-f]{7,12})\b")
vague = re.compile(r"not pinned|not verified|inferred|unverified", re.I)
for path in sys.argv[1:]:
    text = open(path).read()
    for m in re.finditer(r"/\*.*?\*/", text, re.S):
        c = m.group(0)
        line = text.count("\n", 0, m.start()) + 1
        if not re.search(r"\bkernel|\bLinux\b|VMCOREINFO", c):
            continue
        if vague.search(c):
            print("%s:%d (unverified)" % (path, line))
        elif change.search(c) and not cite.search(c):
            print("%s:%d (no version or commit)" % (path, line))
PY
)
if [ -z "$bad" ]; then echo "ok kernel-rules-cite-versions"
else echo "not ok kernel-rules-cite-versions: $(echo $bad)"; fi

# 6. Every rule of the filter names its case of the page-state lab matrix
#    (issue 17): "Lab case:" followed by case names of tests/lab/matrix.sh
#    (or "none; <why>"), one for each page class filter_classify() sets.
cases=$(sed -n 's/^MATRIX_CASES="\(.*\)"/\1/p' tests/lab/matrix.sh)
bad=$(python3 - filter/filter.c "$cases" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
cases = set(sys.argv[2].split())
bad = []
# "Lab case: a, b (why), every case's x" or "Lab case: none; why": the
# names run up to the first "(", ";" or full stop
for m in re.finditer(r"Lab case:(.*?)\*/", text, re.S):
    head = re.split(r"[(;]|\.(?:\s|$)", re.sub(r"\n\s*\*", " ", m.group(1)))[0]
    for item in re.split(r",\s*", head.strip()):
        item = item.strip()
        if item and item != "none" and not item.startswith("every") and item not in cases:
            bad.append("unknown case %r" % item)
body = text[text.find("void filter_classify("):]
body = body[:body.find("\n}\n")]
for cls in sorted(set(re.findall(r"ret->cls = (PC_[A-Z_]+);", body)) - {"PC_KEEP", "PC_TAIL"}):
    i = body.find("ret->cls = %s;" % cls)
    if "Lab case:" not in body[max(0, i - 400):i]:
        bad.append("%s has no Lab case" % cls)
print(" ".join(bad))
PY
)
if [ -z "$bad" ]; then echo "ok filter-rules-name-lab-cases"
else echo "not ok filter-rules-name-lab-cases: $bad"; fi
exit 0
