#!/bin/bash
# make demo: generate a sample vmcore shaped like a real x86_64
# /proc/vmcore (Debian 6.12 kernel layout: KASLR, aliased kernel text,
# page cache, anonymous memory, THP, hugetlb, slab, free pages), filter it
# at dump level 31 and print the report.
set -eu
B=${1:?usage: tests/demo.sh BUILD_DIR}
D=$(mktemp -d /tmp/mdf-demo.XXXXXX)
trap 'rm -rf "$D"' EXIT
cat >"$D/spec" <<'SPEC'
kernel 6.12
page_offset 0xffff8d6c00000000
vmemmap 0xfffff12400000000
kaslr 0x26400000
phys_base -377487360
text 0x3430000
ram 0x1000 +0x9ec00
ram 0x100000 0x40000000
pages 0x2000+4096 anon random
pages 0x3000+2048 cache text 3
pages 0x3800+512 cache_private text 4
pages 0x4000+2048 thp order=9 random 5
pages 0x4800+1024 hugetlb order=9 text 6
pages 0x4c00+64 slab random 7
pages 0x4c40+2 hwpoison
fill 0x5000+4096 zero
fill 0x6000+8192 text 8
SPEC
echo "== generating a sample vmcore ($D/vmcore)"
"$B/tests/gen/mkvmcore" "$D/spec" "$D/vmcore"
ls -l "$D/vmcore"
echo
echo "== makedumpfile -l -d 31 --show-stats vmcore dumpfile"
"$B/makedumpfile" -l -d 31 --show-stats "$D/vmcore" "$D/dumpfile"
ls -l "$D/dumpfile"
