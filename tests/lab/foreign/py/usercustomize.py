# tests/lab/foreign/py/usercustomize.py - on PYTHONPATH, with
# MDF_FOREIGN_BIG_ENDIAN=1, of the Python tools that tests/lab/foreign.sh
# and tests/e2e/foreign.sh run on a big-endian architecture's files (s390x).
# Those tools read with struct formats of a little-endian ELF and kdump
# file ('<Q', '<HH', '<IIQQQQQQ', "<8si..."): the lab's NAME.json step
# (PT_LOADs of the vmcore), ../shared/tools/kdump.py and
# tests/tools/kdump_same.py.  On s390x every file they read that way is
# big-endian: the vmcore (ELFDATA2MSB) and the kdump files, ours and
# Debian's makedumpfile's, whose headers are in the dump's byte order.
# So '<' formats read '>' here: the same fields in the other order.  (The
# kpageflags snapshot is read with array, not struct, and is swapped to
# little-endian by foreign_lab.)  A stopgap until those tools look at
# EI_DATA themselves (tests/tools/kdump_same.py already does).
import os
import struct

if os.environ.get('MDF_FOREIGN_BIG_ENDIAN') == '1':
    def _big(fmt):
        if isinstance(fmt, str) and fmt.startswith('<'):
            return '>' + fmt[1:]
        if isinstance(fmt, bytes) and fmt.startswith(b'<'):
            return b'>' + fmt[1:]
        return fmt

    _unpack_from, _unpack, _iter_unpack = struct.unpack_from, struct.unpack, struct.iter_unpack
    struct.unpack_from = lambda fmt, *a, **k: _unpack_from(_big(fmt), *a, **k)
    struct.unpack = lambda fmt, *a: _unpack(_big(fmt), *a)
    struct.iter_unpack = lambda fmt, *a: _iter_unpack(_big(fmt), *a)

    class Struct(struct.Struct):
        def __init__(self, fmt):
            super().__init__(_big(fmt))

    struct.Struct = Struct

# With MDF_FOREIGN_ELF32=1 (i386: kexec-tools writes an ELF32 elfcorehdr
# when all RAM is below 4 GiB), the lab's NAME.json step reads the
# vmcore's PT_LOADs as ELF64 ones: e_phoff as '<Q' at 32, e_phentsize and
# e_phnum as '<HH' at 54 of a 64-byte header, each program header as
# '<IIQQQQQQ'.  Here those three reads of an ELFCLASS32 file give the
# ELF32 fields in the ELF64 order.  Only these three formats at these
# offsets change, and the program headers only after an ELF32 header was
# seen.
if os.environ.get('MDF_FOREIGN_ELF32') == '1':
    _uf32 = struct.unpack_from
    _seen32 = [False]

    def _elf32_unpack_from(fmt, buf, offset=0):
        head = bytes(buf[:5]) == b'\x7fELF\x01'
        if fmt == '<Q' and offset == 32 and head:
            _seen32[0] = True
            return _uf32('<I', buf, 28)            # e_phoff
        if fmt == '<HH' and offset == 54 and head:
            return _uf32('<HH', buf, 42)           # e_phentsize, e_phnum
        if fmt == '<IIQQQQQQ' and _seen32[0] and not head:
            t, off, va, pa, fsz, msz, fl, al = _uf32('<8I', buf, offset)
            return (t, fl, off, va, pa, fsz, msz, al)
        return _uf32(fmt, buf, offset)

    struct.unpack_from = _elf32_unpack_from
