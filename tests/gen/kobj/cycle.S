/*
 * tests/gen/kobj/cycle.S - hand-written DWARF whose type graph loops: a
 * stand-in for a hostile debug vmlinux (tests/e2e/hostile_debuginfo.sh,
 * tests/fuzz/corpus/dwarf/).  A compiler never emits a cycle, so the
 * .debug_info and .debug_abbrev bytes are written here, DWARF 4, one
 * compilation unit, every reference DW_FORM_ref4 (unit-relative) and
 * every string inline: nothing to relocate.
 *
 * Every variant has what -x needs before it looks at types: init_uts_ns
 * (struct uts_namespace, struct new_utsname) with the release of the
 * generator's "kernel 6.1" dump in .data, and (from the Makefile) that
 * dump's build-id.  One -D picks the loop:
 *
 *   CYCLE_anon     struct page's anonymous member is a struct page
 *   CYCLE_ring     struct page -> anonymous union -> anonymous struct ->
 *                  struct page, all through anonymous members
 *   CYCLE_typedef  typedef nodemask_t nodemask_t
 *   CYCLE_array    typedef nodemask_t: an array whose elements are that
 *                  array
 *   CYCLE_sibling  struct page's second member says (DW_AT_sibling) that
 *                  the next one is its first
 *   CYCLE_spec     the definition of mem_section is its own declaration
 *                  (DW_AT_specification to itself)
 *   CYCLE_origin   struct page's anonymous member completes itself
 *                  (DW_AT_specification to itself, no DW_AT_type)
 *   CYCLE_config   -x's own lookups are sound; variables that only a
 *                  --config reaches hold the loops (cyc_anon, cyc_ring,
 *                  cyc_typedef, cyc_array, cyc_self: a member whose
 *                  DW_AT_type is that member) and the impossible arrays
 *                  (big_array: 2^32 chars; huge_array: 2^62 longs, whose
 *                  size overflows 64 bits; wide_array: char[2^33][2^33];
 *                  long_array: a million longs, a loop that takes long)
 *
 * The Makefile links each with cc -nostdlib -static -DCYCLE_NAME into
 * BUILD/tests/gen/cycle-NAME.  No code: the directives are the ones every
 * architecture's assembler takes (tests/cross.sh builds it too), and the
 * sized ones are .2byte/.4byte/.8byte, never aligned: MIPS's gas aligns
 * .short/.long/.quad to their size, which put 2 bytes of padding before
 * the unit header's address size (its DIEs then read as garbage and
 * test_dwarf_info's t_cycles found no variable under qemu-mips64el).
 */
#define DW_TAG_array_type 0x01
#define DW_TAG_member 0x0d
#define DW_TAG_pointer_type 0x0f
#define DW_TAG_compile_unit 0x11
#define DW_TAG_structure_type 0x13
#define DW_TAG_typedef 0x16
#define DW_TAG_union_type 0x17
#define DW_TAG_subrange_type 0x21
#define DW_TAG_base_type 0x24
#define DW_TAG_variable 0x34

#define DW_AT_sibling 0x01
#define DW_AT_name 0x03
#define DW_AT_byte_size 0x0b
#define DW_AT_language 0x13
#define DW_AT_upper_bound 0x2f
#define DW_AT_count 0x37
#define DW_AT_data_member_location 0x38
#define DW_AT_encoding 0x3e
#define DW_AT_external 0x3f
#define DW_AT_specification 0x47
#define DW_AT_type 0x49

#define DW_FORM_data2 0x05
#define DW_FORM_data8 0x07
#define DW_FORM_string 0x08
#define DW_FORM_data1 0x0b
#define DW_FORM_ref4 0x13
#define DW_FORM_flag_present 0x19

/* abbreviation codes */
#define A_CU 1
#define A_STRUCT 2       /* name, byte_size */
#define A_MEMBER 3       /* name, type, location */
#define A_ANON 4         /* type, location */
#define A_BASE 5         /* name, byte_size, encoding */
#define A_TYPEDEF 6      /* name, type */
#define A_ARRAY 7        /* type */
#define A_UPPER 8        /* subrange: upper_bound */
#define A_VAR 9          /* name, type */
#define A_UNION 10       /* anonymous: byte_size */
#define A_COUNT 11       /* subrange: count */
#define A_ASTRUCT 12     /* anonymous struct: byte_size */
#define A_MEMBER_SIB 13  /* name, type, location, sibling */
#define A_VAR_SPEC 14    /* name, specification */
#define A_ANON_SPEC 15   /* anonymous member: specification, location */

#define REF(l) .4byte l - .Lcu

/* One value per .uleb128: riscv64's assembler takes no list there. */
.macro ulebs args:vararg
	.irp v, \args
	.uleb128 \v
	.endr
.endm

	.section .debug_abbrev
.Labbrev:
	ulebs A_CU, DW_TAG_compile_unit
	.byte 1
	ulebs DW_AT_name, DW_FORM_string, DW_AT_language, DW_FORM_data1, 0, 0
	ulebs A_STRUCT, DW_TAG_structure_type
	.byte 1
	ulebs DW_AT_name, DW_FORM_string, DW_AT_byte_size, DW_FORM_data2, 0, 0
	ulebs A_MEMBER, DW_TAG_member
	.byte 0
	ulebs DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4
	ulebs DW_AT_data_member_location, DW_FORM_data2, 0, 0
	ulebs A_ANON, DW_TAG_member
	.byte 0
	ulebs DW_AT_type, DW_FORM_ref4, DW_AT_data_member_location, DW_FORM_data2, 0, 0
	ulebs A_BASE, DW_TAG_base_type
	.byte 0
	ulebs DW_AT_name, DW_FORM_string, DW_AT_byte_size, DW_FORM_data1
	ulebs DW_AT_encoding, DW_FORM_data1, 0, 0
	ulebs A_TYPEDEF, DW_TAG_typedef
	.byte 0
	ulebs DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4, 0, 0
	ulebs A_ARRAY, DW_TAG_array_type
	.byte 1
	ulebs DW_AT_type, DW_FORM_ref4, 0, 0
	ulebs A_UPPER, DW_TAG_subrange_type
	.byte 0
	ulebs DW_AT_upper_bound, DW_FORM_data8, 0, 0
	ulebs A_VAR, DW_TAG_variable
	.byte 0
	ulebs DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4
	ulebs DW_AT_external, DW_FORM_flag_present, 0, 0
	ulebs A_UNION, DW_TAG_union_type
	.byte 1
	ulebs DW_AT_byte_size, DW_FORM_data2, 0, 0
	ulebs A_COUNT, DW_TAG_subrange_type
	.byte 0
	ulebs DW_AT_count, DW_FORM_data8, 0, 0
	ulebs A_ASTRUCT, DW_TAG_structure_type
	.byte 1
	ulebs DW_AT_byte_size, DW_FORM_data2, 0, 0
	ulebs A_MEMBER_SIB, DW_TAG_member
	.byte 0
	ulebs DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4
	ulebs DW_AT_data_member_location, DW_FORM_data2, DW_AT_sibling, DW_FORM_ref4, 0, 0
	ulebs A_VAR_SPEC, DW_TAG_variable
	.byte 0
	ulebs DW_AT_name, DW_FORM_string, DW_AT_specification, DW_FORM_ref4, 0, 0
	ulebs A_ANON_SPEC, DW_TAG_member
	.byte 0
	ulebs DW_AT_specification, DW_FORM_ref4, DW_AT_data_member_location, DW_FORM_data2
	ulebs 0, 0
	.byte 0

	.section .debug_info
.Lcu:
	.4byte .Lcu_end - .Lcu_version
.Lcu_version:
	.2byte 4
	.4byte .Labbrev
	.byte 8
	.uleb128 A_CU
	.asciz "tests/gen/kobj/cycle.S"
	.byte 0x0c /* DW_LANG_C99 */

.Tchar:
	.uleb128 A_BASE
	.asciz "char"
	.byte 1, 6 /* DW_ATE_signed_char */
.Tulong:
	.uleb128 A_BASE
	.asciz "long unsigned int"
	.byte 8, 7 /* DW_ATE_unsigned */
.Tint:
	.uleb128 A_BASE
	.asciz "int"
	.byte 4, 5 /* DW_ATE_signed */
.Tchar65:
	.uleb128 A_ARRAY
	REF(.Tchar)
	.uleb128 A_UPPER
	.8byte 64
	.byte 0

/* The release: init_uts_ns.name.release. */
.Tnew_utsname:
	.uleb128 A_STRUCT
	.asciz "new_utsname"
	.2byte 390
	.uleb128 A_MEMBER
	.asciz "sysname"
	REF(.Tchar65)
	.2byte 0
	.uleb128 A_MEMBER
	.asciz "nodename"
	REF(.Tchar65)
	.2byte 65
	.uleb128 A_MEMBER
	.asciz "release"
	REF(.Tchar65)
	.2byte 130
	.uleb128 A_MEMBER
	.asciz "version"
	REF(.Tchar65)
	.2byte 195
	.uleb128 A_MEMBER
	.asciz "machine"
	REF(.Tchar65)
	.2byte 260
	.uleb128 A_MEMBER
	.asciz "domainname"
	REF(.Tchar65)
	.2byte 325
	.byte 0
.Tuts_namespace:
	.uleb128 A_STRUCT
	.asciz "uts_namespace"
	.2byte 400
	.uleb128 A_MEMBER
	.asciz "name"
	REF(.Tnew_utsname)
	.2byte 0
	.uleb128 A_MEMBER
	.asciz "user_ns"
	REF(.Tulong)
	.2byte 392
	.byte 0
	.uleb128 A_VAR
	.asciz "init_uts_ns"
	REF(.Tuts_namespace)

/* struct page: -x looks up OFFSET(page.flags), (page._refcount), ... */
.Tpage:
	.uleb128 A_STRUCT
	.asciz "page"
	.2byte 64
#if defined(CYCLE_sibling)
	.uleb128 A_MEMBER
	.asciz "flags"
	REF(.Tulong)
	.2byte 0
.Lpage_second:
	.uleb128 A_MEMBER_SIB
	.asciz "private"
	REF(.Tulong)
	.2byte 40
	REF(.Tpage + 8) /* back: the DIE of "flags" */
#else
	.uleb128 A_MEMBER
	.asciz "flags"
	REF(.Tulong)
	.2byte 0
#endif
#if defined(CYCLE_anon)
	.uleb128 A_ANON
	REF(.Tpage)
	.2byte 8
#elif defined(CYCLE_ring)
	.uleb128 A_ANON
	REF(.Tring_union)
	.2byte 8
#elif defined(CYCLE_origin)
.Lpage_origin:
	.uleb128 A_ANON_SPEC
	REF(.Lpage_origin)
	.2byte 8
#else
	.uleb128 A_MEMBER
	.asciz "_refcount"
	REF(.Tint)
	.2byte 52
#endif
	.byte 0
#if defined(CYCLE_ring)
.Tring_union:
	.uleb128 A_UNION
	.2byte 56
	.uleb128 A_ANON
	REF(.Tring_struct)
	.2byte 0
	.byte 0
.Tring_struct:
	.uleb128 A_ASTRUCT
	.2byte 56
	.uleb128 A_ANON
	REF(.Tpage)
	.2byte 0
	.byte 0
#endif

/* nodemask_t: -x looks up SIZE(nodemask_t). */
#if defined(CYCLE_typedef)
.Tnodemask:
	.uleb128 A_TYPEDEF
	.asciz "nodemask_t"
	REF(.Tnodemask)
#elif defined(CYCLE_array)
	.uleb128 A_TYPEDEF
	.asciz "nodemask_t"
	REF(.Tnodemask_array)
.Tnodemask_array:
	.uleb128 A_ARRAY
	REF(.Tnodemask_array)
	.uleb128 A_COUNT
	.8byte 16
	.byte 0
#else
	.uleb128 A_TYPEDEF
	.asciz "nodemask_t"
	REF(.Tnodemask_struct)
.Tnodemask_struct:
	.uleb128 A_ASTRUCT
	.2byte 128
	.uleb128 A_MEMBER
	.asciz "bits"
	REF(.Tulong16)
	.2byte 0
	.byte 0
.Tulong16:
	.uleb128 A_ARRAY
	REF(.Tulong)
	.uleb128 A_COUNT
	.8byte 16
	.byte 0
#endif

/* mem_section: -x asks whether it is a pointer. */
#if defined(CYCLE_spec)
.Vmem_section:
	.uleb128 A_VAR_SPEC
	.asciz "mem_section"
	REF(.Vmem_section)
#endif

#if defined(CYCLE_config)
.Tcyc_anon:
	.uleb128 A_STRUCT
	.asciz "cyc_anon_t"
	.2byte 16
	.uleb128 A_MEMBER
	.asciz "a"
	REF(.Tulong)
	.2byte 0
	.uleb128 A_ANON
	REF(.Tcyc_anon)
	.2byte 8
	.byte 0
	.uleb128 A_VAR
	.asciz "cyc_anon"
	REF(.Tcyc_anon)

.Tcyc_ring:
	.uleb128 A_STRUCT
	.asciz "cyc_ring_t"
	.2byte 16
	.uleb128 A_MEMBER
	.asciz "a"
	REF(.Tulong)
	.2byte 0
	.uleb128 A_ANON
	REF(.Tcyc_ring_union)
	.2byte 8
	.byte 0
.Tcyc_ring_union:
	.uleb128 A_UNION
	.2byte 8
	.uleb128 A_ANON
	REF(.Tcyc_ring_struct)
	.2byte 0
	.byte 0
.Tcyc_ring_struct:
	.uleb128 A_ASTRUCT
	.2byte 8
	.uleb128 A_ANON
	REF(.Tcyc_ring)
	.2byte 0
	.byte 0
	.uleb128 A_VAR
	.asciz "cyc_ring"
	REF(.Tcyc_ring)

.Tcyc_typedef:
	.uleb128 A_TYPEDEF
	.asciz "cyc_typedef_t"
	REF(.Tcyc_typedef)
	.uleb128 A_VAR
	.asciz "cyc_typedef"
	REF(.Tcyc_typedef)

.Tcyc_array:
	.uleb128 A_ARRAY
	REF(.Tcyc_array)
	.uleb128 A_COUNT
	.8byte 4
	.byte 0
	.uleb128 A_VAR
	.asciz "cyc_array"
	REF(.Tcyc_array)

.Tcyc_self:
	.uleb128 A_STRUCT
	.asciz "cyc_self_t"
	.2byte 8
.Tcyc_self_m:
	.uleb128 A_MEMBER
	.asciz "m"
	REF(.Tcyc_self_m)
	.2byte 0
	.byte 0
	.uleb128 A_VAR
	.asciz "cyc_self"
	REF(.Tcyc_self)

.Tbig_array:
	.uleb128 A_ARRAY
	REF(.Tchar)
	.uleb128 A_UPPER
	.8byte 0xffffffff
	.byte 0
	.uleb128 A_VAR
	.asciz "big_array"
	REF(.Tbig_array)

.Thuge_array:
	.uleb128 A_ARRAY
	REF(.Tulong)
	.uleb128 A_COUNT
	.8byte 0x4000000000000000
	.byte 0
	.uleb128 A_VAR
	.asciz "huge_array"
	REF(.Thuge_array)

.Twide_array:
	.uleb128 A_ARRAY
	REF(.Tchar)
	.uleb128 A_COUNT
	.8byte 0x200000000
	.uleb128 A_COUNT
	.8byte 0x200000000
	.byte 0
	.uleb128 A_VAR
	.asciz "wide_array"
	REF(.Twide_array)

.Tlong_array:
	.uleb128 A_ARRAY
	REF(.Tulong)
	.uleb128 A_COUNT
	.8byte 1000000
	.byte 0
	.uleb128 A_VAR
	.asciz "long_array"
	REF(.Tlong_array)
#endif
	.byte 0
.Lcu_end:

	.data
	.balign 64
	.globl init_uts_ns
	.type init_uts_ns, STT_OBJECT
	.size init_uts_ns, 400
init_uts_ns:
	.ascii "Linux"
	.fill 65 - 5
	.ascii "(none)"
	.fill 65 - 6
	.ascii "6.1.0-57-amd64"
	.fill 65 - 14
	.ascii "#1 SMP"
	.fill 65 - 6
	.ascii "x86_64"
	.fill 65 - 6
	.fill 65
	.fill 10
#if defined(CYCLE_spec)
	.globl mem_section
	.type mem_section, STT_OBJECT
	.size mem_section, 8
mem_section:
	.8byte 0
#endif
#if defined(CYCLE_config)
	.globl cyc_anon, cyc_ring, cyc_typedef, cyc_array, cyc_self, big_array, huge_array
	.globl wide_array, long_array
cyc_anon:
cyc_ring:
cyc_typedef:
cyc_array:
cyc_self:
big_array:
huge_array:
wide_array:
long_array:
	.fill 64
#endif

	.text
	.globl _start, _stext
	.type _start, STT_FUNC
_start:
_stext:
	.fill 16

	.section .note.GNU-stack,""
