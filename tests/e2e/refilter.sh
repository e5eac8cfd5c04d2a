#!/bin/bash
# Refiltering: a kdump-compressed dump (ours or upstream's) filtered again
# at a higher level equals filtering the vmcore at that level directly
# (the effective level is the new one ORed with the old); corrupted input
# gets a clear error naming the pfn and the file offset.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
KPY="$MDF_SHARED/tools/kdump.py"
UP=/usr/bin/makedumpfile

cat >"$T/spec" <<'SPEC'
kernel 6.12
ram 0x100000 0x8000000
pages 0x4000+2048 anon random 1
pages 0x2000+1024 cache text 2
pages 0x4800+512 thp order=9 random 3
fill 0x5000+256 zero
SPEC
"$GEN" "$T/spec" "$T/syn" --ref "$T/ref" || { notok "refilter" "mkvmcore failed"; exit 0; }

refilter_case() { # NAME VMCORE
	local name=$1 vm=$2
	rm -f "$T/d1" "$T/r" "$T/direct"
	"$MDF" --message-level 0 -l -d 1 "$vm" "$T/d1" &&
	"$MDF" --message-level 0 -l -d 30 "$T/d1" "$T/r" &&
	"$MDF" --message-level 0 -l -d 31 "$vm" "$T/direct"
	if cmp -s "$T/r" "$T/direct"; then ok "refilter-$name-equals-direct"
	else notok "refilter-$name-equals-direct" "$(cmp "$T/r" "$T/direct" 2>&1 | head -n1)"; fi
	# --dry-run on a kdump input, with the debug bitmap.
	"$MDF" --dry-run --message-level 0 -d 16 --debug-bitmap "$T/b2" "$T/d1" &&
	"$MDF" --dry-run --message-level 0 -d 17 --debug-bitmap "$T/b2e" "$vm"
	if cmp -s "$T/b2" "$T/b2e"; then ok "refilter-$name-dry-run-level-ored"
	else notok "refilter-$name-dry-run-level-ored" "bitmaps differ"; fi
}
refilter_case synthetic "$T/syn"
if vm=$(vmcore fx-v61-512m); then
	refilter_case fx-v61 "$vm"
	if [ -x "$UP" ]; then
		"$UP" --message-level 0 -c -d 1 "$vm" "$T/upd1" >/dev/null 2>&1
		rm -f "$T/r2"
		"$MDF" --message-level 0 -l -d 31 "$T/upd1" "$T/r2"
		if cmp -s "$T/r2" "$T/direct"; then ok "refilter-upstream-dump"
		else notok "refilter-upstream-dump" "$(cmp "$T/r2" "$T/direct" 2>&1 | head -n1)"; fi
		rm -f "$T/upd1" "$T/r2"
	fi
fi
if vm=$(vmcore fx-v612-512m); then
	rm -f "$T/d1" "$T/r"
	"$MDF" --message-level 0 -c -d 1 "$vm" "$T/d1" && "$MDF" --message-level 0 -z -d 31 "$T/d1" "$T/r"
	b2=$(sha256sum <"$MDF_SHARED/vmcores/fx-v612-512m.ref/d31.bitmap2" | cut -d' ' -f1)
	pages=$(python3 "$KPY" pages "$T/r" "$vm" 2>&1 | tail -n1)
	if python3 "$KPY" info "$T/r" | grep -q "bitmap2_sha256 *$b2" && [[ "$pages" == *" 0 differ"* ]]; then
		ok "refilter-fx-v612-zlib-to-zstd"
	else notok "refilter-fx-v612-zlib-to-zstd" "$pages"; fi
fi

# Corruption: garbage in the compressed data of one page.
rm -f "$T/d1" "$T/bad" "$T/out"
"$MDF" --message-level 0 -c -d 0 "$T/syn" "$T/d1"
python3 - "$T/d1" "$T/bad" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
sub = struct.unpack_from("<i", d, 432)[0]; bb = struct.unpack_from("<I", d, 436)[0]
desc = (1 + sub + bb) * 4096
for i in range(100000):
    off, size, flags, _ = struct.unpack_from("<qIIQ", d, desc + 24 * i)
    if flags & 1 and size > 64:
        d[off + 10: off + 40] = b"\xff" * 30
        break
open(sys.argv[2], "wb").write(d)
PY
"$MDF" -l -d 31 "$T/bad" "$T/out" >/dev/null 2>"$T/err"; rc=$?
msg=$(grep '^makedumpfile:' "$T/err")
if [ $rc -eq 1 ] && [[ "$msg" == *"$T/bad"* ]] && [[ "$msg" == *pfn* ]] && [[ "$msg" == *zlib* ]]; then ok "refilter-corrupt-page ($msg)"
else notok "refilter-corrupt-page" "rc=$rc $msg"; fi
# Corruption: a descriptor whose size exceeds the block size.
python3 - "$T/d1" "$T/bad2" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
sub = struct.unpack_from("<i", d, 432)[0]; bb = struct.unpack_from("<I", d, 436)[0]
desc = (1 + sub + bb) * 4096
struct.pack_into("<I", d, desc + 24 * 5 + 8, 5000)
open(sys.argv[2], "wb").write(d)
PY
rm -f "$T/out"
"$MDF" -l -d 0 "$T/bad2" "$T/out" >/dev/null 2>"$T/err"; rc=$?
msg=$(grep '^makedumpfile:' "$T/err")
if [ $rc -eq 1 ] && [[ "$msg" == *pfn* ]] && [[ "$msg" == *0x* ]]; then ok "refilter-bad-descriptor ($msg)"
else notok "refilter-bad-descriptor" "rc=$rc $msg"; fi
