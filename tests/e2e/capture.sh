#!/bin/bash
# Real kdump, end to end: the lab (../shared/lab/mkvmcore.sh) boots a Debian
# kernel under qemu (TCG), crashes it, and in the kdump capture kernel runs
# tests/lab/capture_hook.sh, which filters the live /proc/vmcore with our
# static binary the way Fedora (-l --message-level 7 -d 31, vmcore-incomplete
# renamed to vmcore) and Debian (-F -c -d 31 > file) do.  The lab also copies
# /proc/vmcore out.  Checks, on the host:
#  - the hook ran and every step in it succeeded;
#  - the dump made in the capture kernel from the live /proc/vmcore equals
#    (cmp) the dump our binary makes here from the copied-out vmcore;
#  - the flattened stream, rearranged with our -R, equals a direct -c -d 31;
#  - the report shows that /proc/vmcore was mmap()ed (mmap >= 1, no fallback
#    to read), and that the --non-mmap run of the same dump read it instead;
#  - the kernel log of the in-capture dump holds the lab's LAB-MARKER;
#  - --mem-usage on the capture kernel's live /proc/kcore: its total is
#    the System RAM of /proc/iomem to the page, its rows add up, and its
#    free and cache pages agree with /proc/meminfo (the system is live:
#    within 10 %);
#  - makedumpfile -l -d 31 /proc/kcore in the capture kernel: exit 0, the
#    live-system warning once, read without mmap; the dump opens here with
#    our binary, its pages are no more than /proc/iomem's System RAM, and
#    its --dump-dmesg holds the marker the hook wrote to /dev/kmsg before
#    the dump and the capture kernel's first log line.
# Takes about a minute (512M guest, 45-57 s measured), so it only runs with
# MDF_CAPTURE_TEST=1; needs qemu-system-x86, a linux-image package,
# busybox-static, kexec-tools and cpio (see .ci/run or the lab's README).
# Everything the lab writes (disks, vmcore) stays under the temp dir.
. "$(dirname "$0")/../lib/lib.sh"
. "$MDF_SRC/tests/lab/lab.sh"
LAB="$MDF_SHARED/lab/mkvmcore.sh"
HOOK="$MDF_SRC/tests/lab/capture_hook.sh"
NAME=mdf-capture

optin capture MDF_CAPTURE_TEST "real kdump under qemu takes ~1 min" || exit 0
missing=$(lab_missing)
if [ -n "$missing" ]; then
	needfail "capture" "missing:$missing (apt-get install qemu-system-x86 linux-image-amd64 busybox-static kexec-tools cpio)"
	exit 0
fi

# The static binary goes into the capture initramfs.
CAPBIN=$(capture_bin "$T/static.log") || { notok "capture-static-build" "$CAPBIN"; exit 0; }

# LAB_DATA: the lab's work dir (disks, initramfs trees) under $T too.
t0=$SECONDS
LAB_DATA="$T/lab" bash "$LAB" --name $NAME --mem 512M --no-kpageflags \
	--run-in-capture "$HOOK" --capture-bin "$CAPBIN" --outdir "$T/out" \
	--timeout 900 >"$T/lab.log" 2>&1
rc=$?
echo "# lab run: rc $rc in $((SECONDS - t0)) s"
sed 's/^/# /' "$T/lab.log" | grep -E 'guest\| LAB-HOOK|LAB-ERROR|ERROR|done in' | head -n 40
ELF="$T/out/$NAME.elf"
H="$T/out/$NAME.d/hook"
if [ $rc -ne 0 ] || [ ! -f "$ELF" ] || [ ! -d "$H" ]; then
	notok "capture-lab-run" "mkvmcore.sh rc $rc: $(tail -n 5 "$T/lab.log" | tr '\n' ' ')"
	exit 0
fi
ok "capture-lab-run ($(stat -c %s "$ELF") byte vmcore, kernel $(cat "$T/out/$NAME.d/stage1/uname.txt" 2>/dev/null))"
rm -rf "$T/lab"

# The hook: exit status 0 and every step's rc=0.
res=$(cat "$H/result.txt" 2>/dev/null)
if [[ "$res" == rc=0* ]] && [ -f "$H/results.txt" ] && ! grep -q '\.rc=[1-9]' "$H/results.txt"; then
	ok "capture-hook-ran ($res)"
else
	notok "capture-hook-ran" "result: ${res:-none}; $(tr '\n' ' ' <"$H/results.txt" 2>/dev/null) $(tail -n 3 "$H/stderr.txt" 2>/dev/null | tr '\n' ' ')"
fi
sed 's/^/# hook: /' "$H/results.txt" 2>/dev/null

# Fedora's form: renamed, and equal to our dump of the copied-out vmcore.
if [ -e "$H/vmcore-incomplete" ] || [ ! -f "$H/vmcore" ]; then
	notok "capture-fedora-renamed" "$(ls "$H" | tr '\n' ' ') $(tail -n 2 "$H/fedora.log" 2>/dev/null | tr '\n' ' ')"
else
	ok "capture-fedora-renamed"
	if "$MDF" -l --message-level 7 -d 31 "$ELF" "$T/host.l" >"$T/host.l.log" 2>&1; then
		if cmp -s "$H/vmcore" "$T/host.l"; then ok "capture-live-l-d31-equals-host"
		else notok "capture-live-l-d31-equals-host" "$(cmp "$H/vmcore" "$T/host.l" 2>&1 | head -n 1)"; fi
	else notok "capture-live-l-d31-equals-host" "host run: $(tail -n 1 "$T/host.l.log")"; fi
	# The kernel log survives -d 31: the lab's marker is in it.
	marker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["marker"])' "$T/out/$NAME.json" 2>/dev/null)
	if [ -z "$marker" ]; then skip "capture-dmesg-marker" "no marker in $NAME.json"
	elif "$MDF" --dump-dmesg "$H/vmcore" "$T/dmesg.txt" >"$T/dmesg.log" 2>&1; then
		if grep -qF "$marker stage=crash" "$T/dmesg.txt"; then ok "capture-dmesg-marker"
		else notok "capture-dmesg-marker" "'$marker stage=crash' not in the log of the in-capture dump"; fi
	else notok "capture-dmesg-marker" "--dump-dmesg: $(tail -n 1 "$T/dmesg.log")"; fi
	rm -f "$T/host.l" "$T/dmesg.txt"
fi

# Debian's form: the stream rearranged with -R equals a direct -c -d 31.
if [ ! -s "$H/flat" ]; then
	notok "capture-flat-R-equals-direct" "no stream: $(tail -n 2 "$H/debian.log" 2>/dev/null | tr '\n' ' ')"
elif ! "$MDF" -R "$T/flat.re" <"$H/flat" >"$T/re.log" 2>&1; then
	notok "capture-flat-R-equals-direct" "-R: $(tail -n 1 "$T/re.log")"
elif ! "$MDF" -c -d 31 "$ELF" "$T/host.c" >"$T/host.c.log" 2>&1; then
	notok "capture-flat-R-equals-direct" "host -c: $(tail -n 1 "$T/host.c.log")"
elif cmp -s "$T/flat.re" "$T/host.c"; then ok "capture-flat-R-equals-direct"
else notok "capture-flat-R-equals-direct" "$(cmp "$T/flat.re" "$T/host.c" 2>&1 | head -n 1)"; fi
rm -f "$T/flat.re" "$T/host.c"

# mmap evidence: the message-level 31 run's report.
line=$(grep '^Input:' "$H/report.txt" 2>/dev/null | head -n 1)
echo "# in capture: $line"
n=$(sed -n 's/^Input: mmap \([0-9]*\),.*/\1/p' <<<"$line")
if [ -z "$line" ]; then notok "capture-mmap-used" "no 'Input:' line in the report: $(tail -n 2 "$H/report.txt" 2>/dev/null | tr '\n' ' ')"
elif [[ "$line" == *"fell back to read"* ]]; then notok "capture-mmap-used" "$line"
elif [ "${n:-0}" -ge 1 ]; then ok "capture-mmap-used ($line)"
else notok "capture-mmap-used" "$line"; fi
if grep -q '^report.cmp=same' "$H/results.txt" 2>/dev/null; then ok "capture-report-run-same-dump"
else notok "capture-report-run-same-dump" "$(grep '^report\.' "$H/results.txt" 2>/dev/null | tr '\n' ' ')"; fi

# The read(2) path on the live file gives the same bytes.
line=$(grep '^Input:' "$H/report-read.txt" 2>/dev/null | head -n 1)
if [[ "$line" == "Input: mmap 0,"* ]] && grep -q '^report-read.cmp=same' "$H/results.txt" 2>/dev/null; then
	ok "capture-non-mmap-same-dump ($line)"
else notok "capture-non-mmap-same-dump" "$line $(grep '^report-read\.' "$H/results.txt" 2>/dev/null | tr '\n' ' ')"; fi
# --mem-usage on a live /proc/kcore, against what the kernel says of itself.
if grep -q '^memusage=no-kcore' "$H/results.txt" 2>/dev/null; then
	skip "capture-mem-usage" "the capture kernel has no /proc/kcore"
elif ! grep -q '^memusage.rc=0' "$H/results.txt" 2>/dev/null; then
	notok "capture-mem-usage" "$(grep '^memusage' "$H/results.txt" 2>/dev/null) $(tail -n 2 "$H/memusage.log" 2>/dev/null | tr '\n' ' ')"
else
	why=$(python3 - "$H" <<'PY'
import re, sys
h = sys.argv[1]
table = open(h + "/memusage.txt").read()
rows = {m.group(1): int(m.group(2)) for m in
        re.finditer(r"^(ZERO|NON_PRI_CACHE|PRI_CACHE|USER|FREE|KERN_DATA)\t+(\d+) *\t", table, re.M)}
m = re.search(r"^Total pages on system:\t(\d+) *$", table, re.M)
total = int(m.group(1)) if m else None
m = re.search(r"^page size:\t\t(\d+) *$", table, re.M)
ps = int(m.group(1)) if m else 4096
bad = []
if len(rows) != 6 or total is None:
    bad.append("table rows %s, total %s" % (sorted(rows), total))
else:
    # System RAM in /proc/iomem (top-level lines), in whole pages: kcore
    # has one PT_LOAD per range.
    ram = 0
    for line in open(h + "/iomem.txt"):
        m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) : System RAM$", line)
        if m:
            a, b = int(m.group(1), 16), int(m.group(2), 16) + 1
            ram += max(0, b // ps - (a + ps - 1) // ps)
    if total != ram:
        bad.append("total %d pages, /proc/iomem System RAM %d" % (total, ram))
    if sum(rows.values()) != total:
        bad.append("rows add up to %d, total %d" % (sum(rows.values()), total))
    def meminfo(name, key):
        t = open(h + "/" + name).read()
        m = re.search(r"^%s:\s+(\d+) kB" % key, t, re.M)
        return int(m.group(1)) * 1024 // ps
    for row, keys in (("FREE", ("MemFree",)), ("NON_PRI_CACHE+PRI_CACHE", ("Cached", "Buffers"))):
        got = sum(rows[r] for r in row.split("+"))
        seen = [sum(meminfo(f, k) for k in keys) for f in ("meminfo-before.txt", "meminfo-after.txt")]
        lo, hi = min(seen) * 0.9 - 64, max(seen) * 1.1 + 64
        if not lo <= got <= hi:
            bad.append("%s %d pages, /proc/meminfo %s says %s" % (row, got, "+".join(keys), seen))
print("; ".join(bad))
PY
)
	counts=$(awk -F'\t+' '/^(ZERO|NON_PRI_CACHE|PRI_CACHE|USER|FREE|KERN_DATA)\t/ { printf "%s %d, ", $1, $2 }
		/^Total pages on system:/ { printf "total %d", $2 }' "$H/memusage.txt")
	if [ -z "$why" ]; then ok "capture-mem-usage-live-kcore ($counts)"
	else notok "capture-mem-usage-live-kcore" "$why"; fi
fi
# A dump of the capture kernel's live /proc/kcore, checked here.
if grep -q '^memusage=no-kcore' "$H/results.txt" 2>/dev/null; then
	skip "capture-kcore-dump" "the capture kernel has no /proc/kcore"
elif ! grep -q '^kcoredump.status=0' "$H/results.txt" 2>/dev/null || [ ! -s "$H/kcore.l" ]; then
	notok "capture-kcore-dump" "$(grep '^kcoredump' "$H/results.txt" 2>/dev/null) $(grep -v '^\[\|%\]' "$H/kcore.log" 2>/dev/null | tail -n 3 | tr '\n' ' ')"
else
	line=$(grep '^kcore_input=' "$H/results.txt" | cut -d= -f2-)
	ok "capture-kcore-dump ($(stat -c %s "$H/kcore.l") bytes; $line)"
	n=$(grep -c "^/proc/kcore: the running system's memory changes while it is copied: the dump is not a consistent snapshot\.$" "$H/kcore.log")
	[ "$n" = 1 ] && ok "capture-kcore-warns-once" || notok "capture-kcore-warns-once" "$n lines"
	# /proc/kcore has no mmap: the cache read it.
	[[ "$line" == "Input: mmap 0,"* ]] && ok "capture-kcore-read-not-mapped" ||
		notok "capture-kcore-read-not-mapped" "$line"
	# It opens here: a dry run of it, its pages against the guest's RAM.
	if "$MDF" --dry-run -d 31 --message-level 16 "$H/kcore.l" >"$T/kcore-dry.txt" 2>&1; then
		why=$(python3 - "$T/kcore-dry.txt" "$H/iomem.txt" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
def c(label):
    m = re.search(re.escape(label) + r"\s*: 0x([0-9a-f]+)", log)
    return int(m.group(1), 16) if m else None
ram = 0
for line in open(sys.argv[2]):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) : System RAM$", line)
    if m:
        ram += (int(m.group(2), 16) + 1) // 4096 - (int(m.group(1), 16) + 4095) // 4096
orig, rem = c("Original pages"), c("Remaining pages")
bad = []
if orig is None or rem is None:
    bad.append("no page counts in the report")
elif not (0 < rem <= orig <= ram):
    bad.append("remaining %s, original %s, System RAM %d pages" % (rem, orig, ram))
print("; ".join(bad) or "original %d of %d RAM pages, %d kept" % (orig, ram, rem))
PY
)
		case "$why" in original*) ok "capture-kcore-dump-opens ($why)" ;;
		*) notok "capture-kcore-dump-opens" "$why" ;; esac
	else notok "capture-kcore-dump-opens" "$(tail -n 2 "$T/kcore-dry.txt" | tr '\n' ' ')"; fi
	# Its kernel log: the marker written just before, and the first line.
	first=$(head -n 1 "$H/kcore-dmesg.txt" 2>/dev/null | sed 's/^\[[^]]*\] //')
	if "$MDF" --dump-dmesg "$H/kcore.l" "$T/kcore.dmesg" >"$T/kcore-dmesg.log" 2>&1 &&
		grep -q 'MDF-KCORE-MARKER before the /proc/kcore dump' "$T/kcore.dmesg" &&
		[ -n "$first" ] && grep -qF -- "$first" "$T/kcore.dmesg"; then
		ok "capture-kcore-dmesg ($(wc -l <"$T/kcore.dmesg") lines)"
	else notok "capture-kcore-dmesg" "first line '$first'; $(tail -n 2 "$T/kcore-dmesg.log" | tr '\n' ' ')"; fi
fi
exit 0
