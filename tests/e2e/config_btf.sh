#!/bin/bash
# --config without -x (issue 27): the kernel's symbols and types come from
# the dump itself, kallsyms (kernel/kallsyms.c) and BTF (kernel/btf.c), on
# the real 6.1 and 6.12 fixtures (Debian builds them with BTF):
#  - "erase SYM size N" erases what it erases with -x: the same dump byte
#    for byte when the fixture's debug vmlinux is cached (tests/lab/
#    debug_vmlinux.sh), else the erased bytes and the eraseinfo line;
#  - a variable the dump's BTF does not type (Linux's BTF types per-cpu
#    variables only), with no size, or with a member path: one line that
#    says what to give, exit 1, no output;
#  - a symbol that is not in kallsyms: "no such variable in the dump's
#    kallsyms"; a section of a module that is not loaded is skipped with a
#    warning; a loaded module's symbols come from its kallsyms in the dump
#    (virtio_blk's major, ext4's ext4_feat erased), its types from its
#    split BTF.
. "$(dirname "$0")/../lib/lib.sh"
DBG=${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}
for f in fx-v61-512m:6.1.0-57-amd64 fx-v612-512m:6.12.117+deb13-amd64; do
	name=${f%%:*} krel=${f#*:}
	vm=$(vmcore "$name") || { skip "config-btf-$name" "no fixture"; continue; }
	printf '[vmlinux]\nerase modprobe_path size 16\n' >"$T/ok.conf"
	rm -f "$T/o.l" "$T/x.l" "$T/plain.l"
	if ! "$MDF" --message-level 0 -l -d 31 --config "$T/ok.conf" "$vm" "$T/o.l" 2>"$T/err"; then
		notok "config-btf-$name-size" "$(cat "$T/err")"
		continue
	fi
	if [ -s "$DBG/vmlinux-$krel" ]; then
		"$MDF" --message-level 0 -l -d 31 -x "$DBG/vmlinux-$krel" --config "$T/ok.conf" "$vm" "$T/x.l"
		check "config-btf-$name-size-same-as-x" cmp "$T/o.l" "$T/x.l"
	else
		"$MDF" --message-level 0 -l -d 31 "$vm" "$T/plain.l"
		why=$(python3 - "$T/o.l" "$T/plain.l" "$MDF_SHARED/tools" <<-'PY' 2>&1
		import sys
		sys.path.insert(0, sys.argv[3])
		import kdump
		a, b = kdump.Kdump(sys.argv[1]), kdump.Kdump(sys.argv[2])
		info = a.m[a.off_eraseinfo:a.off_eraseinfo + a.size_eraseinfo].decode()
		assert a.dumpable == b.dumpable
		diff = [i for i in range(len(a.dumpable)) if a.page(i) != b.page(i)]
		assert info == "erase modprobe_path size 16\n", info
		assert len(diff) == 1, diff
		pa, pb = a.page(diff[0]), b.page(diff[0])
		i = next(i for i in range(len(pa)) if pa[i] != pb[i])
		assert pa[i:i + 16] == b"X" * 16 and pb[i:i + 15] == b"/sbin/modprobe\0", pb[i:i + 16]
		print("pfn 0x%x: 16 bytes X where /sbin/modprobe was" % a.dumpable[diff[0]])
		PY
		) && ok "config-btf-$name-size-erased ($why)" || notok "config-btf-$name-size-erased" "$why"
	fi
	refused() { # NAME CONF WANT
		printf '%b' "$2" >"$T/bad.conf"
		rm -f "$T/b.l"
		"$MDF" -l -d 31 --config "$T/bad.conf" "$vm" "$T/b.l" >/dev/null 2>"$T/err"
		local rc=$?
		if [ $rc = 1 ] && [ ! -e "$T/b.l" ] &&
			grep -qF "makedumpfile: $T/bad.conf: $3" "$T/err"; then ok "$1"
		else notok "$1" "rc=$rc $(head -n 2 "$T/err" | tr '\n' ' ')"; fi
	}
	refused "config-btf-$name-untyped" '[vmlinux]\nerase modprobe_path\n' \
		"line 2: modprobe_path: its type is not in the dump's BTF (the kernel's BTF types per-cpu variables only): give its size ('erase modprobe_path size N') or -x VMLINUX"
	refused "config-btf-$name-untyped-member" '[vmlinux]\nerase init_uts_ns.name.nodename\n' \
		"line 2: init_uts_ns.name.nodename: the type of init_uts_ns is not in the dump's BTF"
	refused "config-btf-$name-unknown" '[vmlinux]\nerase no_such_symbol size 8\n' \
		"line 2: no_such_symbol: no such variable in the dump's kallsyms"
	printf '[vmlinux]\nerase modprobe_path size 16\n[virtio_net]\nerase some_symbol size 8\n' >"$T/mod.conf"
	rm -f "$T/m.l"
	if "$MDF" -l -d 31 --config "$T/mod.conf" "$vm" "$T/m.l" >"$T/err" 2>&1 &&
		grep -q "1 module section(s) skipped: \[virtio_net\]: it is not loaded in the dump" "$T/err"; then
		ok "config-btf-$name-module-not-loaded-skipped"
	else notok "config-btf-$name-module-not-loaded-skipped" "$(tr '\n' ' ' <"$T/err")"; fi
	# loaded modules: their symbols from their kallsyms in the dump (and
	# their types from their split BTF): virtio_blk's major (an int, the
	# block major it got), ext4's ext4_feat (a pointer)
	printf '[virtio_blk]\nerase major size 4\n[ext4]\nerase ext4_feat size 8\n' >"$T/mod2.conf"
	rm -f "$T/m.l"
	[ -f "$T/plain.l" ] || "$MDF" --message-level 0 -l -d 31 "$vm" "$T/plain.l"
	if "$MDF" -l -d 31 --config "$T/mod2.conf" "$vm" "$T/m.l" >"$T/err" 2>&1 &&
		why=$(python3 - "$T/m.l" "$T/plain.l" "$MDF_SHARED/tools" <<-'PY' 2>&1
		import struct, sys
		sys.path.insert(0, sys.argv[3])
		import kdump
		a, b = kdump.Kdump(sys.argv[1]), kdump.Kdump(sys.argv[2])
		info = a.m[a.off_eraseinfo:a.off_eraseinfo + a.size_eraseinfo].decode()
		assert info == "erase major size 4\nerase ext4_feat size 8\n", info
		runs = []
		for i in range(len(a.dumpable)):
		    pa, pb = a.page(i), b.page(i)
		    if pa != pb:
		        j = next(j for j in range(len(pa)) if pa[j] != pb[j])
		        k = j
		        while k < len(pa) and pa[k] != pb[k]:
		            k += 1
		        runs.append((pa[j:k], pb[j:j + 8]))
		assert len(runs) == 2, runs
		major = [r for r in runs if r[0] == b"XXXX"]
		feat = [r for r in runs if r[0] == b"X" * 8]
		assert major and feat, runs
		m = struct.unpack("<I", major[0][1][:4])[0]
		p = struct.unpack("<Q", feat[0][1])[0]
		assert 0 < m < 4096 and p >> 47 == 0x1ffff, (m, hex(p))
		print("virtio_blk's major %d and ext4_feat 0x%x erased" % (m, p))
		PY
		); then ok "config-btf-$name-modules ($why)"
	else notok "config-btf-$name-modules" "$(tr '\n' ' ' <"$T/err" | cut -c1-200) ${why:-}"; fi
done
exit 0
