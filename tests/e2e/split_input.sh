#!/bin/bash
# A split set as input (splitset.h): `makedumpfile [opts] PART1..PARTn OUT`,
# --dump-dmesg PART1..PARTn LOG and --explain ARG PART1..PARTn read the
# parts as one dump, in any order.  From a synthetic vmcore with a kernel
# log, split in 3 parts at -d 1:
#  - the refilter of the set, given in order and shuffled, equals (byte for
#    byte, -l and -c, -F and --num-threads) the refilter of the --reassemble'd
#    single file, and its old dump level is ORed in as for a single file;
#  - --dump-dmesg of the set (to a file, and -F to stdout) equals the single
#    file's; --explain names the same verdicts;
#  - each broken set (a gap, the first or last part missing, an overlap,
#    the same part twice, parts of two dumps, a file that is no part, one
#    that is no kdump file) is refused with its one line naming the part,
#    exit status 1, and no output file.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genspec.sh"

# the callers' small machine (user, cache and text pages), and a kernel log
{ genspec_small; printf 'dmesg hello world from the crashed kernel\ndmesg second line of the log\n'; } >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >"$T/gen.log" 2>&1 || { notok "split-input-gen" "$(tail -n1 "$T/gen.log")"; exit 0; }
cd "$T" || exit 1
q() { "$MDF" --message-level 0 "$@" >/dev/null 2>"$T/q.err"; }
q -l -d 1 --split vm p1 p2 p3 && q --reassemble p1 p2 p3 single ||
	{ notok "split-input-setup" "$(tail -n1 "$T/q.err")"; exit 0; }

# ---- refilter: the set equals the single file --------------------------
same_refilter() { # NAME OPTS ORDER...
	local name=$1 opts=$2; shift 2
	rm -f ref.out set.out
	if ! q $opts single ref.out; then notok "$name" "single: $(tail -n1 q.err)"; return; fi
	if ! q $opts "$@" set.out; then notok "$name" "set: $(tail -n1 q.err)"; return; fi
	check "$name" cmp set.out ref.out
}
same_refilter refilter-l-d31-in-order "-l -d 31" p1 p2 p3
same_refilter refilter-l-d31-shuffled "-l -d 31" p3 p1 p2
same_refilter refilter-c-d31-shuffled "-c -d 31" p2 p3 p1
same_refilter refilter-l-d17-threads "-l -d 16 --num-threads 2 --cyclic-buffer 1" p3 p2 p1
same_refilter refilter-l-d0-keeps-old-level "-l -d 0" p2 p1 p3
# the old level 1 is ORed in: the output says dump level 1 at -d 0
lvl=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(struct.unpack_from("<i", d, 4096 + 8)[0])' set.out 2>/dev/null)
[ "$lvl" = 1 ] && ok refilter-old-level-ored || notok refilter-old-level-ored "dump level ${lvl:-?}"
rm -f ref.F set.F
"$MDF" --message-level 0 -F -l -d 31 single >ref.F 2>q.err; "$MDF" --message-level 0 -F -l -d 31 p3 p2 p1 >set.F 2>q.err
check refilter-F-stream-equal cmp set.F ref.F
# the report names the set's first operand, and the dump it wrote
"$MDF" -l -d 31 p2 p1 p3 set2.out >report.log 2>&1
grep -q "^The dumpfile is saved to set2.out.$" report.log && ok refilter-report ||
	notok refilter-report "$(tail -n 3 report.log | tr '\n' ' ')"

# ---- --dump-dmesg and --explain ------------------------------------------
rm -f log.single log.set
q --dump-dmesg single log.single && q --dump-dmesg p3 p1 p2 log.set &&
	grep -q "hello world from the crashed kernel" log.set
check dmesg-set-equals-single cmp log.set log.single
"$MDF" --message-level 0 -F --dump-dmesg p2 p3 p1 >log.F 2>q.err
check dmesg-F-set-equals-single cmp log.F log.single
"$MDF" --explain 0x600 single >ex.single 2>&1
"$MDF" --explain 0x600 p3 p2 p1 >ex.set 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kdump-compressed split set" ex.set &&
   diff <(sed 1,2d ex.single) <(sed 1,2d ex.set) >/dev/null; then ok explain-set
else notok explain-set "rc $rc: $(head -n 3 ex.set | tr '\n' ' ')"; fi

# ---- refusals: one line naming the part, exit 1, no output --------------
q -l -d 31 --split vm b1 b2 && q -l -d 1 vm plain && cp p2 p2copy && ln p1 p1link ||
	{ notok "split-input-bad-setup" "$(tail -n1 q.err)"; exit 0; }
s2=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print("%#x" % struct.unpack_from("<Q", d, 4096 + 80)[0])' p2)
max=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print("%#x" % struct.unpack_from("<Q", d, 4096 + 96)[0])' p3)
s3=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print("%#x" % struct.unpack_from("<Q", d, 4096 + 80)[0])' p3)
refuse() { # NAME WANT ARGS... (the output: out)
	local name=$1 want=$2; shift 2
	rm -f out
	"$MDF" "$@" >bad.out 2>&1; local rc=$?
	if [ $rc = 1 ] && [ "$(grep -c '^makedumpfile: ' bad.out)" = 1 ] &&
	   grep -qxF "makedumpfile: $want" bad.out && [ ! -e out ]; then ok "$name"
	else notok "$name" "rc $rc, out $([ -e out ] && echo left || echo none): $(grep '^makedumpfile' bad.out | head -n 2 | tr '\n' ' ')"; fi
}
refuse set-gap "the split set lacks pfns $s2-$s3, after p1 and before p3 (a part is missing)" -l -d 31 p1 p3 out
refuse set-first-missing "the split set lacks pfns 0x0-$s2, before p2 (its first part is missing)" -l -d 31 p3 p2 out
refuse set-last-missing "the split set lacks pfns $s3-$max, after p2 (its last part is missing)" -l -d 31 p2 p1 out
refuse set-overlap "p2copy: pfns $s2-$s3 overlap p2's $s2-$s3 (the same part twice?)" -l -d 31 p1 p2 p2copy p3 out
refuse set-same-file "p1link: the same file as p1 (a part given twice)" -l -d 31 p1 p2 p3 p1link out
refuse set-same-name "the file 'p1' is given twice" -l -d 31 p1 p2 p1 p3 out
refuse set-two-dumps "b2: not a part of the same dump as p1 (dump level differs)" -l -d 31 p1 b2 p3 out
refuse set-not-a-part "plain: not a part of a split dump (split=0) (the operands before the last one are the parts of one split set)" -l -d 31 p1 plain p2 p3 out
refuse set-elf-among "vm: not a kdump-compressed dump (signature \"\\x7fELF\\x02\\x01\\x01\\x00\", expected \"KDUMP   \") (the operands before the last one are the parts of one split set)" -l -d 31 vm p1 p2 p3 out
refuse set-missing-file "cannot open nothere: No such file or directory" -l -d 31 p1 p2 p3 nothere out
refuse set-dmesg-gap "the split set lacks pfns $s2-$s3, after p1 and before p3 (a part is missing)" --dump-dmesg p1 p3 out
refuse set-explain-two-dumps "b1: not a part of the same dump as p1 (dump level differs)" --explain 0x600 p1 b1
# an output that is a part under another name (-f or not): refused, the part untouched
ln p3 p3link && cp p3 p3.before
"$MDF" -f -l -d 31 p1 p2 p3 p3link >bad.out 2>&1; rc=$?
if [ $rc = 1 ] && grep -qxF "makedumpfile: p3link is p3 itself (a part of the split set read): write to another file" bad.out &&
   cmp -s p3 p3.before; then ok set-output-is-part
else notok set-output-is-part "rc $rc: $(grep '^makedumpfile' bad.out | head -n 2 | tr '\n' ' ')"; fi
check parts-still-reassemble bash -c '"$0" --message-level 0 --reassemble p1 p2 p3 again && cmp again single' "$MDF"
