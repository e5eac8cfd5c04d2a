#!/bin/bash
# The Debian package (debian/, `make deb`), installed the way users install
# it.  Checks:
#  - `make deb` builds makedumpfile-ng_VERSION_ARCH.deb into build/deb/, and
#    debian/changelog's version is the Makefile's;
#  - lintian finds no error (its warnings are printed as # lines);
#  - the package provides, conflicts with and replaces makedumpfile, depends
#    on the shared libraries it links (${shlibs:Depends} filled in), and
#    holds /usr/bin/makedumpfile (Debian's path) and the gzip'd man page;
#  - in a clean debootstrap'ed bookworm (minbase) root: `dpkg -i` of ours
#    plus `apt-get -f install` for its libraries, then `makedumpfile -v`,
#    and the installed binary writes the same -c -d 31 dump of a synthetic
#    vmcore as this build's;
#  - `apt-get install kdump-tools` there (it Recommends makedumpfile) keeps
#    ours and does not pull in Debian's makedumpfile;
#  - in another clean root, with kdump-tools and Debian's makedumpfile
#    installed first, `dpkg -i` of ours removes Debian's makedumpfile and
#    takes /usr/bin/makedumpfile; kdump-tools stays installed.
# Each phase's time is printed as a # line.  The bookworm root is kept as a
# tarball in /var/tmp/mdf-deb/ (MDF_DEB_CACHE), downloaded .debs next to it,
# so only the first run debootstraps.  Needs root, network to the Debian
# mirror of this machine's apt sources (tests/lib/apt.sh; MDF_DEBIAN_MIRROR
# overrides it), dpkg-dev, debhelper, lintian and debootstrap; opt-in:
# MDF_DEB_TEST=1 make check TESTS=deb.
. "$(dirname "$0")/../lib/lib.sh"

optin deb MDF_DEB_TEST "builds the package and debootstraps bookworm (minutes)" || exit 0
if [ "$(id -u)" -ne 0 ]; then
	needfail "deb" "needs root (debootstrap, chroot, mount)"; exit 0
fi
missing=""
for t in dpkg-buildpackage dh lintian debootstrap zstd; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
if [ -n "$missing" ]; then
	needfail "deb" "missing:$missing (apt-get install --no-install-recommends dpkg-dev debhelper lintian debootstrap zstd)"
	exit 0
fi

PKG=makedumpfile-ng
. "$MDF_SRC/tests/lab/debroot.sh"

# ---- build
t=$(now)
VERSION=$(sed -n 's/^VERSION *:= *//p' "$MDF_SRC/Makefile")
touch "$T/stamp"
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$MDF_SRC" deb >"$T/build.log" 2>&1; then
	ok "deb-build"
else
	notok "deb-build" "$(last "$T/build.log")"; exit 0
fi
phase "make deb" "$t"
DEB="$MDF_SRC/build/deb/${PKG}_${VERSION}_$ARCH.deb"
CHANGES="$MDF_SRC/build/deb/${PKG}_${VERSION}_$ARCH.changes"
[ -f "$DEB" ] && [ -f "$CHANGES" ] || { notok "deb-files" "no $DEB or $CHANGES"; exit 0; }
check "deb-version-is-makefile" test "$(cd "$MDF_SRC" && dpkg-parsechangelog -S Version)" = "$VERSION"
check "deb-nothing-in-parent" test -z "$(find "$MDF_SRC/.." -maxdepth 1 -name "${PKG}*" -newer "$T/stamp")"

# ---- lintian
t=$(now)
lintian --pedantic "$CHANGES" >"$T/lintian.log" 2>&1
rc=$?
grep -E '^[EWIPXO]: ' "$T/lintian.log" | sed 's/^/# lintian: /'
nerr=$(grep -c '^E: ' "$T/lintian.log")
if [ $rc -eq 0 ] && [ "$nerr" -eq 0 ]; then ok "deb-lintian"
else notok "deb-lintian" "exit $rc, $nerr errors: $(last "$T/lintian.log")"; fi
phase "lintian" "$t"

# ---- metadata and file list
field() { dpkg-deb -f "$DEB" "$1"; }
check "deb-provides" test "$(field Provides)" = makedumpfile
check "deb-conflicts" test "$(field Conflicts)" = makedumpfile
check "deb-replaces" test "$(field Replaces)" = makedumpfile
deps=$(field Depends)
echo "# Depends: $deps"
bad=""
case "$deps" in *'${'*|'') bad="unsubstituted or empty" ;; esac
names=$(echo "$deps" | tr ',|' '\n\n' | sed 's/^ *//; s/[ (].*//')
for lib in libc6 libdw1 libelf1 liblzo2-2 zlib1g libzstd1 libsnappy1v5 libdeflate0; do
	grep -qx "$lib" <<<"$names" || bad="$bad no $lib"
done
if [ -z "$bad" ]; then ok "deb-depends-shlibs"; else notok "deb-depends-shlibs" "$bad"; fi
dpkg-deb -c "$DEB" | awk '{ print $1, $NF }' >"$T/files"
check "deb-has-usr-bin-makedumpfile" grep -qx -- '-rwxr-xr-x ./usr/bin/makedumpfile' "$T/files"
check "deb-has-man-page" grep -qx -- '-rw-r--r-- ./usr/share/man/man8/makedumpfile.8.gz' "$T/files"
check "deb-no-sbin" bash -c "! grep -q '/sbin/' '$T/files'"
dpkg-deb --fsys-tarfile "$DEB" | tar -xO ./usr/share/man/man8/makedumpfile.8.gz >"$T/man.gz"
check "deb-man-page-is-ours" bash -c "zcat '$T/man.gz' | grep -q '^.TH MAKEDUMPFILE 8 .*makedumpfile $VERSION'"

# A small synthetic vmcore, and this build's dump of it, to run the
# installed binary on.
VM=""
if [ -x "$MDF_BUILD/tests/gen/mkvmcore" ] && [ -x "$MDF" ]; then
	cat >"$T/spec" <<'SPEC'
kernel 6.1
ram 0x1000 +0x9ec00
ram 0x100000 0x8000000
pages 0x2000+1024 anon random
pages 0x3000+1024 cache text 3
pages 0x4000+512 thp order=9 random 5
fill 0x5000+1024 text 8
SPEC
	"$MDF_BUILD/tests/gen/mkvmcore" "$T/spec" "$T/vmcore" >"$T/gen.log" 2>&1 &&
		"$MDF" -c -d 31 "$T/vmcore" "$T/ref.dump" >"$T/ref.log" 2>&1 && VM=1
fi

# ---- ours first, then kdump-tools
R1="$T/root1"
if new_root "$R1"; then
	t=$(now)
	apt_root_update "$R1" "$T/r1-update.log"
	cp "$DEB" "$R1/tmp/"
	in_root "$R1" dpkg -i "/tmp/$(basename "$DEB")" >"$T/r1-dpkg.log" 2>&1
	apt_root "$R1" -f install >"$T/r1-fix.log" 2>&1
	phase "dpkg -i + apt-get -f install (libraries)" "$t"
	if [ "$(state "$R1" $PKG)" = ii ]; then ok "deb-chroot-install"
	else notok "deb-chroot-install" "$(last "$T/r1-fix.log")"; fi
	in_root "$R1" makedumpfile -v >"$T/r1-v.log" 2>&1
	rc=$?
	sed 's/^/# chroot: /' "$T/r1-v.log"
	if [ $rc -eq 0 ] && grep -q "version $VERSION" "$T/r1-v.log"; then ok "deb-chroot-makedumpfile-v"
	else notok "deb-chroot-makedumpfile-v" "rc $rc: $(last "$T/r1-v.log")"; fi
	check "deb-chroot-owner" bash -c "chroot '$R1' dpkg -S /usr/bin/makedumpfile | grep -qx '$PKG: /usr/bin/makedumpfile'"
	if [ -n "$VM" ]; then
		cp --sparse=always "$T/vmcore" "$R1/tmp/vmcore"
		if in_root "$R1" makedumpfile -c -d 31 /tmp/vmcore /tmp/out.dump >"$T/r1-dump.log" 2>&1 &&
		   cmp -s "$R1/tmp/out.dump" "$T/ref.dump"; then ok "deb-chroot-dump-same"
		else notok "deb-chroot-dump-same" "$(last "$T/r1-dump.log")"; fi
	else
		needfail "deb-chroot-dump-same" "no $MDF or mkvmcore (make check builds them)"
	fi

	t=$(now)
	check "deb-kdump-tools-recommends-makedumpfile" \
		bash -c "chroot '$R1' apt-cache show kdump-tools | grep -E '^(Depends|Recommends):.*makedumpfile'"
	apt_root "$R1" install kdump-tools >"$T/r1-kdump.log" 2>&1
	rc=$?
	phase "apt-get install kdump-tools" "$t"
	# What apt added: makedumpfile must not be among them.
	sed -n '/^The following NEW packages/,/^[^ ]/p' "$T/r1-kdump.log" | grep '^  ' |
		tr -s ' \n' ' ' | sed 's/^ */# apt-get installed: /; s/ *$//'; echo
	if [ $rc -eq 0 ] && [ "$(state "$R1" kdump-tools)" = ii ]; then ok "deb-kdump-tools-installs"
	else notok "deb-kdump-tools-installs" "rc $rc: $(last "$T/r1-kdump.log")"; fi
	in_root "$R1" dpkg -l $PKG makedumpfile kdump-tools 2>&1 | grep -E '^[a-z]{2} ' | sed 's/^/# dpkg -l: /'
	check "deb-kdump-tools-keeps-ours" test "$(state "$R1" $PKG)" = ii
	check "deb-kdump-tools-no-debian-makedumpfile" bash -c "! chroot '$R1' dpkg-query -W -f='\${db:Status-Abbrev}' makedumpfile 2>/dev/null | grep -q '^i'"
	check "deb-apt-consistent" bash -c "chroot '$R1' apt-get -s -f install | grep -q '^0 upgraded, 0 newly installed, 0 to remove'"
	drop_root "$R1"
fi

# ---- Debian's makedumpfile and kdump-tools first, then ours over them
R2="$T/root2"
if new_root "$R2"; then
	t=$(now)
	apt_root_update "$R2" "$T/r2-update.log"
	apt_root "$R2" install kdump-tools makedumpfile >"$T/r2-kdump.log" 2>&1
	phase "apt-get install kdump-tools makedumpfile (Debian's)" "$t"
	if [ "$(state "$R2" makedumpfile)" = ii ] && [ "$(state "$R2" kdump-tools)" = ii ]; then
		ok "deb-debian-makedumpfile-installed"
	else
		notok "deb-debian-makedumpfile-installed" "$(last "$T/r2-kdump.log")"
	fi
	t=$(now)
	cp "$DEB" "$R2/tmp/"
	in_root "$R2" dpkg -i "/tmp/$(basename "$DEB")" >"$T/r2-dpkg.log" 2>&1
	apt_root "$R2" -f install >"$T/r2-fix.log" 2>&1
	phase "dpkg -i over Debian's makedumpfile" "$t"
	grep -E '^(dpkg: .*makedumpfile|Removing makedumpfile|Replacing|Unpacking makedumpfile)' \
		"$T/r2-dpkg.log" | sed 's/^/# /'
	in_root "$R2" dpkg -l $PKG makedumpfile kdump-tools 2>&1 | grep -E '^[a-z]{2} ' | sed 's/^/# dpkg -l: /'
	check "deb-replaces-installed" test "$(state "$R2" $PKG)" = ii
	check "deb-replaces-debian-removed" bash -c "! chroot '$R2' dpkg-query -W -f='\${db:Status-Abbrev}' makedumpfile 2>/dev/null | grep -q '^i'"
	check "deb-replaces-kdump-tools-stays" test "$(state "$R2" kdump-tools)" = ii
	check "deb-replaces-owner" bash -c "chroot '$R2' dpkg -S /usr/bin/makedumpfile | grep -qx '$PKG: /usr/bin/makedumpfile'"
	check "deb-replaces-makedumpfile-v" bash -c "chroot '$R2' makedumpfile -v | grep -q 'version $VERSION'"
	check "deb-replaces-apt-consistent" bash -c "chroot '$R2' apt-get -s -f install | grep -q '^0 upgraded, 0 newly installed, 0 to remove'"
	drop_root "$R2"
fi
exit 0
