#!/bin/bash
# Dump levels on the real vmcores: the dumpable set must equal the
# reference bitmaps (NAME.ref/dL.bitmap2), the present set bitmap1, and the
# per-class counts the reference report, at every level and whatever the
# cycle size.
. "$(dirname "$0")/../lib/lib.sh"
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "real-filter-$name" "no ../shared/vmcores/$name.elf.zst (or zstd)"; continue; }
	ref="$MDF_SHARED/vmcores/$name.ref"
	json="$MDF_SHARED/vmcores/$name.json"
	for l in 0 1 2 4 8 16 31; do
		out="$T/$name.d$l"
		if ! "$MDF" -f --dry-run --message-level 18 -d $l --debug-bitmap "$out.b2" \
			--debug-bitmap1 "$out.b1" "$vm" >"$out.log" 2>&1; then
			notok "$name-d$l" "exit status $?: $(tail -n 2 "$out.log" | tr '\n' ' ')"; continue
		fi
		if ! cmp -s "$out.b2" "$ref/d$l.bitmap2"; then notok "$name-d$l-bitmap2" "differs from $ref/d$l.bitmap2"
		else ok "$name-d$l-bitmap2"; fi
		if ! cmp -s "$out.b1" "$ref/bitmap1"; then notok "$name-d$l-bitmap1" "differs from $ref/bitmap1"
		else ok "$name-d$l-bitmap1"; fi
		# The report's class counts equal the reference run's.
		why=$(python3 - "$json" "$l" "$out.log" <<'PY'
import json, re, sys
ref = json.load(open(sys.argv[1]))["reference"]["levels"][sys.argv[2]]["report"]
log = open(sys.argv[3]).read()
labels = {"zero": "Pages filled with zero", "cache": "Non-private cache pages",
          "cache_private": "Private cache pages", "user": "User process data pages",
          "free": "Free pages", "hwpoison": "Hwpoison pages", "offline": "Offline pages",
          "total": "Total pages"}
bad = []
for k, lab in labels.items():
    m = re.search(re.escape(lab) + r"\s*: 0x([0-9a-f]+)", log)
    if not m or int(m.group(1), 16) != ref[k]:
        bad.append("%s=%s want %d" % (k, m and int(m.group(1), 16), ref[k]))
print("; ".join(bad))
PY
)
		if [ -n "$why" ]; then notok "$name-d$l-counts" "$why"; else ok "$name-d$l-counts"; fi
	done
	# Tiny cycles (4096 pfns each) give the same bitmaps.
	if "$MDF" -f --dry-run --message-level 0 --cyclic-buffer 1 -d 31 --debug-bitmap "$T/tiny.b2" \
		--debug-bitmap1 "$T/tiny.b1" "$vm" && cmp -s "$T/tiny.b2" "$ref/d31.bitmap2" &&
		cmp -s "$T/tiny.b1" "$ref/bitmap1"; then ok "$name-tiny-cycles"
	else notok "$name-tiny-cycles" "bitmaps differ with --cyclic-buffer 1"; fi
done

# Free pages without the buddy marker: hide NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)
# from VMCOREINFO (same length, unknown key) so the free-list walk runs; the
# dumpable set must still equal the reference.
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "freelist-$name" "no ../shared/vmcores/$name.elf.zst"; continue; }
	ref="$MDF_SHARED/vmcores/$name.ref"
	cp "$vm" "$T/fl.elf" && python3 - "$T/fl.elf" <<'PY'
import sys
f = open(sys.argv[1], "r+b"); head = f.read(0x10000)
key = b"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)="
i = head.find(key); assert i > 0
f.seek(i); f.write(b"NUMBER(XXXX_BUDDY_MAPCOUNT_VALUE)=")
PY
	for l in 16 31; do
		if "$MDF" -f --dry-run --message-level 8 -d $l --debug-bitmap "$T/fl.b2" "$T/fl.elf" >"$T/fl.log" 2>&1 &&
			grep -q "free lists:" "$T/fl.log" && cmp -s "$T/fl.b2" "$ref/d$l.bitmap2"; then
			ok "freelist-walk-$name-d$l"
		else notok "freelist-walk-$name-d$l" "$(grep -E 'free|makedumpfile:' "$T/fl.log" | head -n2 | tr '\n' ' ')"; fi
	done
	# -d 16,15 on a disk where 16 does not fit (85 MB) and 15 does (52 MB):
	# the retry keeps the free pages the walk found for level 16, so the
	# file is the direct -d 15 one (needs root and a tmpfs).
	mkdir -p "$T/sm"
	if [ "$name" = fx-v61-512m ] && mount -t tmpfs -o size=70m tmpfs "$T/sm" 2>/dev/null; then
		"$MDF" -l -d 15 "$T/fl.elf" "$T/fl.15" >/dev/null 2>&1
		"$MDF" -l -d 16,15 "$T/fl.elf" "$T/sm/dump" >"$T/fl.log" 2>&1; rc=$?
		if [ $rc -eq 0 ] && grep -q "Retrying with dump level 15" "$T/fl.log" && cmp -s "$T/sm/dump" "$T/fl.15"; then
			ok "freelist-walk-$name-retry-d16-then-d15"
		else notok "freelist-walk-$name-retry-d16-then-d15" "rc=$rc $(cmp "$T/sm/dump" "$T/fl.15" 2>&1) $(tail -n 2 "$T/fl.log" | tr '\n' ' ')"; fi
		umount "$T/sm"
		rm -f "$T/fl.15"
	fi
	rm -f "$T/fl.elf"
done
