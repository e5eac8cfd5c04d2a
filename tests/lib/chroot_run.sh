#!/bin/bash
# tests/lib/chroot_run.sh ROOT DIRS CMD [ARG...] - run CMD chrooted in ROOT,
# in the current directory, with each directory of DIRS (colon-separated,
# absolute) bound at its own path inside ROOT.  The binds live in a mount
# namespace of this run alone (unshare -m, private propagation): nothing
# stays mounted when CMD exits, and runs at the same time do not see each
# other's.  The mount points are made in ROOT when missing.  CMD runs with
# a clean environment (PATH=/usr/bin:/bin, LC_ALL=C.UTF-8).  Needs root.
#
# Why: tests/cross.sh runs sid's loongarch64 cross compiler (in the
# readers' sid root, tests/lab/readers/root.sh) on this tree: the make
# outside passes relative and absolute paths (sources, -MMD files, the
# sysroot's from pkg-config), which must name the same files inside.
set -u
if [ -z "${MDF_CHROOT_RUN_NS:-}" ]; then
	MDF_CHROOT_RUN_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
r=$1 dirs=$2
shift 2
d=$PWD
IFS=: read -ra binds <<<"$dirs"
for m in "${binds[@]}"; do
	[ -n "$m" ] || continue
	mkdir -p "$r$m" && mount --bind "$m" "$r$m" || { echo "chroot_run: cannot bind $m in $r" >&2; exit 1; }
done
# shellcheck disable=SC2016 # expanded by the shell in ROOT
exec chroot "$r" /usr/bin/env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
	/bin/sh -c 'cd "$0" && exec "$@"' "$d" "$@"
