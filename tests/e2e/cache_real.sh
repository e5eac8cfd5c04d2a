#!/bin/bash
# Every page of a real vmcore read through the cache (mmap windows, and
# --non-mmap reads) equals the same page read straight from the file by an
# independent script; and a full pass maps each PT_LOAD about once.
. "$(dirname "$0")/../lib/lib.sh"
name=fx-v61-512m
vm=$(vmcore "$name") || { skip "cache-real" "no ../shared/vmcores/$name.elf.zst (or zstd)"; exit 0; }
RA="$MDF_BUILD/tests/tools/readall"

direct=$(python3 - "$vm" <<'PY'
import hashlib, struct, sys
f = open(sys.argv[1], "rb")
eh = f.read(64)
phoff, = struct.unpack_from("<Q", eh, 32)
phentsize, phnum = struct.unpack_from("<HH", eh, 54)
loads = []
for i in range(phnum):
    f.seek(phoff + i * phentsize)
    p_type, p_flags, off, va, pa, fsz, msz, al = struct.unpack("<IIQQQQQQ", f.read(56))
    if p_type == 1 and msz:
        loads.append((pa, i, off, fsz, msz))
loads.sort()
h = hashlib.sha256()
covered = 0
for pa, i, off, fsz, msz in loads:
    start = max(pa, covered); end = pa + msz
    if end <= start: continue
    covered = end
    for pfn in range(start // 4096, end // 4096):
        a = pfn * 4096 - pa
        if a + 4096 <= fsz:
            f.seek(off + a); h.update(f.read(4096))
        else:
            f.seek(off + a); d = f.read(max(0, fsz - a)); h.update(d + b"\0" * (4096 - len(d)))
print(h.hexdigest())
PY
)
for mode in "" --non-mmap "--window 4194304"; do
	label=${mode:-mmap}; label=${label// /-}
	got=$("$RA" $mode "$vm" 2>"$T/ra.err" | sha256sum | cut -d' ' -f1)
	if [ "$got" = "$direct" ]; then ok "cache-real-$label-equals-file"
	else notok "cache-real-$label-equals-file" "sha256 $got != $direct ($(cat "$T/ra.err"))"; fi
done

# mmap calls on the vmcore during a full pass (every page, -d 1): at most
# one per 256 MiB window of each PT_LOAD, + 8.  Upstream maps 4 MiB
# windows: about 90 calls here.
if command -v strace >/dev/null; then
	nload=0
	for sz in $(readelf -lW "$vm" | awk '$1 == "LOAD" { print $5 }'); do
		nload=$((nload + (sz + (1 << 28) - 1) / (1 << 28)))
	done
	strace -f -e trace=openat,mmap,munmap -o "$T/strace" "$MDF" --dry-run -d 1 --message-level 0 "$vm" >/dev/null 2>&1
	fd=$(grep -E "openat\(.*\"$vm\"" "$T/strace" | head -n1 | sed -E 's/.*= ([0-9]+)$/\1/')
	# Count from the open of the vmcore on (the loader maps libraries
	# through the same fd number before that).
	n=$(awk -v fd="$fd" -v vm="\"$vm\"" 'index($0, "openat(") && index($0, vm) { on = 1 }
		on && index($0, "mmap(") && index($0, ", " fd ", ") { n++ } END { print n + 0 }' "$T/strace")
	total=$(grep -c 'mmap(' "$T/strace")
	if [ -n "$fd" ] && [ "$n" -ge 1 ] && [ "$n" -le $((nload + 8)) ]; then
		ok "cache-real-mmap-calls ($n on the vmcore for $nload 256 MiB windows of its PT_LOADs; $total in the process)"
	else notok "cache-real-mmap-calls" "$n mmap calls on fd $fd for $nload 256 MiB windows of its PT_LOADs"; fi
else
	skip "cache-real-mmap-calls" "strace not installed"
fi
