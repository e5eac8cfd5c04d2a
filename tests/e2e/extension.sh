#!/bin/bash
# --extension FILE.so (issue 27; filter/extension.c, the ABI in
# include/makedumpfile/extension.h):
#  - refused with one line naming the file: no such file (the search path
#    named), not a *.so, a shared object without "mdf_extension" (an
#    upstream extension: the line says so), another ABI; no output;
#  - a synthetic dump (no kallsyms, no BTF, no -x): a warning that the
#    extensions are skipped, and the plain dump;
#  - on the 6.1 and 6.12 fixtures, with the dump's kallsyms and BTF:
#    extensions/sample.so says what it looked up (the same as -x's DWARF
#    gives, where the debug vmlinux is cached) and leaves the dump as it
#    was; extensions/erase_sample.so erases every thread's comm: each
#    changed run of bytes is a task name now all 'X', one per thread it
#    counted, and the eraseinfo says so; tests/ext/keep_drop.so keeps
#    every multiple-of-97 pfn the level dropped, drops every other
#    multiple of 89, the same with --num-threads 2 and at -d 0 (page()
#    reads every struct page at any level, as upstream), and its cleanup
#    runs.
. "$(dirname "$0")/../lib/lib.sh"
EXT=$MDF_BUILD/extensions
KD=$MDF_BUILD/tests/ext/keep_drop.so
DBG=${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}
[ -f "$EXT/sample.so" ] && [ -f "$EXT/erase_sample.so" ] && [ -f "$KD" ] ||
	{ notok "extension-built" "no $EXT/sample.so, erase_sample.so or $KD"; exit 0; }
GEN="$MDF_BUILD/tests/gen/mkvmcore"
printf 'kernel 6.1\nram 0x100000 0x4000000\npages 0x2000+64 anon random\n' >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "extension-gen" "mkvmcore failed"; exit 0; }

refused() { # NAME WANT ARGS...
	local name=$1 want=$2
	shift 2
	rm -f "$T/r.l"
	"$MDF" "$@" -l -d 31 "$T/vm" "$T/r.l" >"$T/r.out" 2>&1
	local rc=$?
	if [ $rc = 1 ] && [ ! -e "$T/r.l" ] && grep -qF "makedumpfile: $want" "$T/r.out"; then ok "extension-$name"
	else notok "extension-$name" "rc=$rc $(tr '\n' ' ' <"$T/r.out" | cut -c1-300)"; fi
}
refused no-such "nosuch.so: no such extension in ., ./extensions or " --extension nosuch.so
refused not-so "$T/spec: an extension is a shared object named *.so" --extension "$T/spec"
# A cross build (tests/cross.sh) loads libraries and objects of its own
# architecture: its sysroot's and its compiler's.
CC_EXT=${MDF_CROSS_CC:-cc}
lz=""
[ -n "${MDF_CROSS_SYSROOT:-}" ] && lz=$(ls "$MDF_CROSS_SYSROOT"/lib/*/libz.so.1 \
	"$MDF_CROSS_SYSROOT"/usr/lib/*/libz.so.1 2>/dev/null | head -n 1)
[ -n "$lz" ] || lz=$(ldconfig -p 2>/dev/null | awk '/libz\.so\.1 .*x86-64|libz\.so\.1 \(libc6/ {print $NF; exit}')
[ -n "$lz" ] || lz=$(ls /lib/*/libz.so.1 /usr/lib/*/libz.so.1 2>/dev/null | head -n 1)
ln -sf "$lz" "$T/upstream.so"
refused upstream "$T/upstream.so: no 'mdf_extension' in it (an extension of upstream makedumpfile cannot load here: see makedumpfile(8))" \
	--extension "$T/upstream.so"
printf '#include <makedumpfile/extension.h>\nstatic int i(const struct mdf_ext_host *h, void **s) { (void)h; (void)s; return 0; }\nconst struct mdf_extension mdf_extension = { .abi = 99, .name = "v99", .init = i };\n' >"$T/v99.c"
if $CC_EXT -shared -fPIC -I"$MDF_SRC/include" -o "$T/v99.so" "$T/v99.c" 2>"$T/cc.err"; then
	refused abi "$T/v99.so: extension ABI 99, this makedumpfile has ABI 1" --extension "$T/v99.so"
else notok "extension-abi" "cc: $(head -n 1 "$T/cc.err")"; fi
# as upstream's extensions are built: they call into upstream's binary
printf 'extern int message_level;\nvoid extension_init(void);\nvoid extension_init(void) { message_level++; }\n' >"$T/upx.c"
if $CC_EXT -shared -fPIC -o "$T/upx.so" "$T/upx.c" 2>"$T/cc.err"; then
	refused upstream-built "$T/upx.so: cannot load it: $T/upx.so: undefined symbol: message_level (an extension of upstream makedumpfile cannot load here: see makedumpfile(8))" \
		--extension "$T/upx.so"
else notok "extension-upstream-built" "cc: $(head -n 1 "$T/cc.err")"; fi
refused many "at most 16 --extension options" $(for i in $(seq 17); do echo --extension "$EXT/sample.so"; done)
rm -f "$T/x.l"
if "$MDF" --explain 0x100 --extension "$EXT/sample.so" "$T/vm" >"$T/r.out" 2>&1; then
	notok "extension-not-explain" "exit 0"
else check "extension-not-explain" grep -q "takes no .*--extension" "$T/r.out"; fi

# no symbols or types: skipped, said, the plain dump
"$MDF" -l -d 31 "$T/vm" "$T/plain.l" >/dev/null 2>&1
if "$MDF" --extension "$EXT/sample.so" -l -d 31 "$T/vm" "$T/s.l" >"$T/s.out" 2>&1 &&
	grep -q "^$T/vm: --extension needs the kernel's symbols and types, and the dump cannot give them: .*; -x VMLINUX can.  The extensions are skipped.$" "$T/s.out" &&
	cmp -s "$T/plain.l" "$T/s.l"; then ok "extension-synthetic-skipped"
else notok "extension-synthetic-skipped" "$(tr '\n' ' ' <"$T/s.out" | cut -c1-300)"; fi

judge() { # PLAIN DUMP MODE: what an extension changed, in python
	python3 - "$1" "$2" "$3" "$MDF_SHARED/tools" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[4])
	import kdump
	plain, mine, mode = kdump.Kdump(sys.argv[1]), kdump.Kdump(sys.argv[2]), sys.argv[3]
	if mode == "erase":
	    assert plain.dumpable == mine.dumpable
	    runs = []
	    for i in range(len(mine.dumpable)):
	        a, b = mine.page(i), plain.page(i)
	        if a == b:
	            continue
	        j = 0
	        while j < len(a):
	            if a[j] == b[j]:
	                j += 1
	                continue
	            k = j
	            while k < len(a) and a[k] != b[k]:
	                k += 1
	            # a comm is 16 bytes: a NUL-padded name, now 'X's
	            assert a[j:k] == b"X" * (k - j) and k - j <= 16, (hex(mine.dumpable[i]), a[j:k], b[j:k])
	            runs.append(b[j:k].split(b"\0")[0].decode())
	            j = k
	    info = mine.m[mine.off_eraseinfo:mine.off_eraseinfo + mine.size_eraseinfo].decode()
	    assert "kthreadd" in runs, runs[:8]
	    assert info == "extension erase_sample erased %d ranges (%d bytes)\n" % (len(runs), 16 * len(runs)), info
	    print("%d thread names erased, e.g. %s" % (len(runs), ", ".join(sorted(runs)[:3])))
	else:
	    P, M = set(plain.dumpable), set(mine.dumpable)
	    lost = sorted(P - M)
	    assert lost and all(p % 89 == 0 and p % 97 for p in lost), lost[:5]
	    assert not [p for p in P if p % 89 == 0 and p % 97 and p in M]
	    kept97 = [p for p in M - P if p % 97 == 0]
	    assert all(p in M for p in P if p % 97 == 0)
	    print("%d pages dropped (pfn %% 89), %d kept that the level drops (pfn %% 97)" % (len(lost), len(kept97)))
	PY
}
for f in fx-v61-512m:6.1.0-57-amd64 fx-v612-512m:6.12.117+deb13-amd64; do
	name=${f%%:*} krel=${f#*:}
	vm=$(vmcore "$name") || { skip "extension-$name" "no fixture"; continue; }
	rm -f "$T"/*.l
	"$MDF" -l -d 31 "$vm" "$T/p.l" >/dev/null 2>&1 || { notok "extension-$name" "the plain dump failed"; continue; }
	"$MDF" --extension "$EXT/sample.so" -l -d 31 "$vm" "$T/s.l" >"$T/s.out" 2>&1
	rc=$?
	lines=$(grep -c "^sample: " "$T/s.out")
	if [ $rc = 0 ] && [ "$lines" = 4 ] && grep -q "^sample: init_task is at 0xffffffff[0-9a-f]*$" "$T/s.out" &&
		grep -q "^sample: this kernel keeps its VMAs in a maple tree (mm_struct.mm_mt)$" "$T/s.out" &&
		cmp -s "$T/p.l" "$T/s.l"; then
		ok "extension-$name-sample ($(grep -m 1 'task_struct is' "$T/s.out"))"
	else notok "extension-$name-sample" "rc=$rc $(tr '\n' ' ' <"$T/s.out" | cut -c1-300)"; fi
	if [ -s "$DBG/vmlinux-$krel" ]; then
		"$MDF" --extension "$EXT/sample.so" -x "$DBG/vmlinux-$krel" -l -d 31 "$vm" "$T/sx.l" >"$T/sx.out" 2>&1
		if diff <(grep "^sample: " "$T/s.out") <(grep "^sample: " "$T/sx.out") >"$T/d" 2>&1; then
			ok "extension-$name-sample-same-as-x"
		else notok "extension-$name-sample-same-as-x" "$(tr '\n' ' ' <"$T/d")"; fi
	fi
	if "$MDF" --extension "$EXT/erase_sample.so" -l -d 31 "$vm" "$T/e.l" >"$T/e.out" 2>&1 &&
		grep -q "^erase_sample: erased the names of [0-9]* threads of [0-9]* tasks$" "$T/e.out" &&
		why=$(judge "$T/p.l" "$T/e.l" erase 2>&1); then
		ok "extension-$name-erase-sample ($why)"
	else notok "extension-$name-erase-sample" "$(tr '\n' ' ' <"$T/e.out" | cut -c1-200) ${why:-}"; fi
	for run in "d31::-d 31" "t2::-d 31 --num-threads 2" "d0::-d 0"; do
		rn=${run%%::*} args=${run#*::}
		# shellcheck disable=SC2086
		"$MDF" -l $args "$vm" "$T/pk.l" >/dev/null 2>&1
		# shellcheck disable=SC2086
		if "$MDF" --extension "$KD" -l $args "$vm" "$T/k.l" >"$T/k.out" 2>&1 &&
			grep -q "^keep_drop: asked about [1-9][0-9]* pages$" "$T/k.out" &&
			why=$(judge "$T/pk.l" "$T/k.l" keep 2>&1); then
			ok "extension-$name-keep-drop-$rn ($why)"
		else notok "extension-$name-keep-drop-$rn" "$(tr '\n' ' ' <"$T/k.out" | cut -c1-200) ${why:-}"; fi
		rm -f "$T/pk.l" "$T/k.l"
	done
done
exit 0
