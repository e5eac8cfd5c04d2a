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
#    kallsyms"; a module section is skipped with a warning (module types
#    come from -x's module debuginfo).
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
		grep -q "1 module section(s) skipped: \[virtio_net\]: module sections need -x VMLINUX" "$T/err"; then
		ok "config-btf-$name-module-skipped"
	else notok "config-btf-$name-module-skipped" "$(tr '\n' ' ' <"$T/err")"; fi
done
exit 0
