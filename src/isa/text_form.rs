//! How each opcode is written in `.visaasm`, in terms of the table's field names: which
//! fields become mnemonic suffixes, what the parenthesized execution part is, and the
//! order of the operands. Parser and printer both read this; an opcode without an
//! entry uses the ALU form (`[(P)] name[.sat] (exec) operands-in-table-order`), with any
//! remaining integer field written as a numeric suffix.

use super::Opcode;

/// How a suffix field is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suffix {
    /// RGBA channel letters of a channel mask (`.R`, `.RGBA`).
    Channels,
    /// An atomic op name (`.add`, `.cmpxchg`), bits 0-4; bit 5/6 width as `.16`/`.64`.
    AtomicOp,
    /// A block count 1/2/4 (or 8) stored as its log2.
    Log2Count,
    /// The plain number.
    Number,
    /// A block size in bytes, 1, 4 or 8, stored as the SVM code 0, 1, 2.
    BlockBytes,
    /// A DPAS operand precision (`.s8`, `.hf`; `syntax::PRECISION`).
    Precision,
}

/// The parenthesized part after the mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecPart {
    /// `(M1, 16)` from the Exec_size field.
    ExecSize,
    /// `(n)` where the field holds log2 of n owords (OWORD_* Size).
    Owords(&'static str),
    /// No parenthesized part.
    None,
}

/// Mnemonics the spec spells differently from IGC's writer, with IGC's spelling (the
/// one [`FORMS`] and the printer use): both parse.
pub const SPEC_SPELLINGS: &[(&str, &str)] = &[
    ("svm_gather4_scaled", "svm_gather4scaled"),
    ("svm_scatter4_scaled", "svm_scatter4scaled"),
];

#[derive(Debug)]
pub struct TextForm {
    pub op: Opcode,
    /// The mnemonic (lower case).
    pub mnemonic: &'static str,
    pub suffixes: &'static [(&'static str, Suffix)],
    pub exec: ExecPart,
    /// Operand fields in text order.
    pub operands: &'static [&'static str],
    /// Fields not written in text, with the value the parser gives them.
    pub defaults: &'static [(&'static str, u64)],
}

const fn form(
    op: Opcode,
    mnemonic: &'static str,
    suffixes: &'static [(&'static str, Suffix)],
    exec: ExecPart,
    operands: &'static [&'static str],
    defaults: &'static [(&'static str, u64)],
) -> TextForm {
    TextForm {
        op,
        mnemonic,
        suffixes,
        exec,
        operands,
        defaults,
    }
}

use ExecPart::*;
use Suffix::*;

/// DPAS and DPASW: `dpas.W.A.SD.RC (exec) dst src0 src1 src2`.
const DPAS_SUFFIXES: &[(&str, Suffix)] = &[
    ("W", Precision),
    ("A", Precision),
    ("SD", Number),
    ("RC", Number),
];
const DPAS_OPERANDS: &[&str] = &["Dst", "Src0", "Src1", "Src2"];

/// The memory-message forms (spec "Text" sections; IGC's printer where they differ).
pub static FORMS: &[TextForm] = &[
    form(
        Opcode::Gather4Scaled,
        "gather4_scaled",
        &[("Channels", Channels)],
        ExecSize,
        &["Surface", "Offset", "Element_offset", "Dst"],
        &[("Scale", 0)],
    ),
    form(
        Opcode::Scatter4Scaled,
        "scatter4_scaled",
        &[("Channels", Channels)],
        ExecSize,
        &["Surface", "Offset", "Element_offset", "Src"],
        &[("Scale", 0)],
    ),
    form(
        Opcode::GatherScaled,
        "gather_scaled",
        &[("Num_blocks", Log2Count)],
        ExecSize,
        &["Surface", "Offset", "Element_offset", "Dst"],
        &[("Block_size", 0), ("Scale", 0)],
    ),
    form(
        Opcode::ScatterScaled,
        "scatter_scaled",
        &[("Num_blocks", Log2Count)],
        ExecSize,
        &["Surface", "Offset", "Element_offset", "Src"],
        &[("Block_size", 0), ("Scale", 0)],
    ),
    form(
        Opcode::OwordLd,
        "oword_ld",
        &[],
        Owords("Size"),
        &["Surface", "Offset", "Dst"],
        &[("Is_modified", 0)],
    ),
    form(
        Opcode::OwordLdUnaligned,
        "oword_ld_unaligned",
        &[],
        Owords("Size"),
        &["Surface", "Offset", "Dst"],
        &[("Is_modified", 0)],
    ),
    form(
        Opcode::SvmBlockLd,
        "svm_block_ld",
        &[],
        Owords("Properties"),
        &["Address", "Dst"],
        &[],
    ),
    form(
        Opcode::SvmBlockSt,
        "svm_block_st",
        &[],
        Owords("Properties"),
        &["Address", "Src"],
        &[],
    ),
    form(
        Opcode::OwordSt,
        "oword_st",
        &[],
        Owords("Size"),
        &["Surface", "Offset", "Src"],
        &[],
    ),
    form(
        Opcode::DwordAtomic,
        "dword_atomic",
        &[("Op", AtomicOp)],
        ExecSize,
        &["Surface", "Element_offset", "Src0", "Src1", "Dst"],
        &[],
    ),
    form(
        Opcode::SvmAtomic,
        "svm_atomic",
        &[("Op", AtomicOp)],
        ExecSize,
        &["Addresses", "Dst", "Src0", "Src1"],
        &[],
    ),
    form(
        Opcode::TypedAtomic,
        "typed_atomic",
        &[("Op", AtomicOp)],
        ExecSize,
        &["Surface", "U", "V", "R", "LOD", "Src0", "Src1", "Dst"],
        &[],
    ),
    form(
        Opcode::Gather4Typed,
        "gather4_typed",
        &[("Channels", Channels)],
        ExecSize,
        &["Surface", "U", "V", "R", "LOD", "Dst"],
        &[],
    ),
    form(
        Opcode::Scatter4Typed,
        "scatter4_typed",
        &[("Channels", Channels)],
        ExecSize,
        &["Surface", "U", "V", "R", "LOD", "Src"],
        &[],
    ),
    form(
        Opcode::SvmGather,
        "svm_gather",
        &[("Block_size", BlockBytes), ("Num_blocks", Log2Count)],
        ExecSize,
        &["Addresses", "Dst"],
        &[],
    ),
    form(
        Opcode::SvmScatter,
        "svm_scatter",
        &[("Block_size", BlockBytes), ("Num_blocks", Log2Count)],
        ExecSize,
        &["Addresses", "Src"],
        &[],
    ),
    form(
        Opcode::SvmGather4Scaled,
        "svm_gather4scaled",
        &[("Channels", Channels)],
        ExecSize,
        &["Address", "Element_offset", "Dst"],
        &[("Scale", 0)],
    ),
    form(
        Opcode::SvmScatter4Scaled,
        "svm_scatter4scaled",
        &[("Channels", Channels)],
        ExecSize,
        &["Address", "Element_offset", "Src"],
        &[("Scale", 0)],
    ),
    form(
        Opcode::QwGather,
        "qw_gather",
        &[("Num_blocks", Log2Count)],
        ExecSize,
        &["Surface", "Offset", "Dst"],
        &[],
    ),
    form(
        Opcode::QwScatter,
        "qw_scatter",
        &[("Num_blocks", Log2Count)],
        ExecSize,
        &["Surface", "Offset", "Src"],
        &[],
    ),
    form(
        Opcode::Dpas,
        "dpas",
        DPAS_SUFFIXES,
        ExecSize,
        DPAS_OPERANDS,
        &[],
    ),
    form(
        Opcode::Dpasw,
        "dpasw",
        DPAS_SUFFIXES,
        ExecSize,
        DPAS_OPERANDS,
        &[],
    ),
    form(
        Opcode::Gather,
        "gather",
        &[("Elt_size", Number), ("Num_elts", Number)],
        None,
        &["Surface", "Global_offset", "Element_offset", "Dst"],
        &[("Is_modified", 0)],
    ),
    form(
        Opcode::Scatter,
        "scatter",
        &[("Elt_size", Number), ("Num_elts", Number)],
        None,
        &["Surface", "Global_offset", "Element_offset", "Src"],
        &[],
    ),
];

/// The text form of `op`, if it is not the ALU form.
pub fn form_of(op: Opcode) -> Option<&'static TextForm> {
    FORMS.iter().find(|f| f.op == op)
}

/// The lower-case mnemonic of an opcode in the ALU form (`MIN_MAX` is written
/// `min`/`max` and `LSC_*` by sub-op; callers handle those).
pub fn alu_mnemonic(op: Opcode) -> String {
    op.spec_name().to_ascii_lowercase()
}

/// 3D_LOAD's operations: (Op code, mnemonic, parameter fields in text order). The text is
/// `load[_op][.pixel_null_mask].<Channels> (exec) <aoffimmi> <surface> <dst> <params>`,
/// NumParams of them; parameters left out are the null variable.
pub static LOAD_3D_OPS: &[(u64, &str, &[&str])] = &[
    (0x07, "load", &["U", "V", "Lod", "R"]),
    (0x1a, "load_lz", &["U", "V", "R"]),
    (
        0x1c,
        "load_2dms_w",
        &["Si", "Mcsl", "Msch", "U", "V", "R", "Lod"],
    ),
    (0x1d, "load_mcs", &["U", "V", "R", "Lod"]),
];

/// 3D_LOAD's Op bit that asks for the pixel null mask.
pub const PIXEL_NULL_MASK: u64 = 1 << 8;

/// 3D_SAMPLE's operations (spec names), written `name[.pixel_null_mask].<Channels> (exec)
/// <aoffimmi> <sampler> <surface> <dst> <params>`. The table row holds four parameters
/// (U, V, R, Ai), filled in text order; operations given more are refused by the parser.
pub static SAMPLE_3D_OPS: &[(u64, &str)] = &[
    (0x00, "sample"),
    (0x01, "sample_b"),
    (0x02, "sample_l"),
    (0x03, "sample_c"),
    (0x04, "sample_d"),
    (0x05, "sample_b_c"),
    (0x06, "sample_l_c"),
    (0x09, "lod"),
    (0x14, "sample_d_c"),
    (0x18, "sample_lz"),
    (0x19, "sample_c_lz"),
];

/// 3D_SAMPLE4's operations that run (IGC's names and codes), and whether a parameter
/// (gather4_l's LOD, gather4_b's bias) precedes the coordinates. Only mip level 0
/// exists, so the LOD and the bias select it whatever their value, as they do for a
/// one-level surface. IGC numbers gather4_b 0xE and gather4_i 0xF (its
/// `VISASampler3DSubOpCode` and printer); the spec's 3D_SAMPLE4 page lists them the
/// other way round. IGC writes the streams, so its numbering is followed.
pub static SAMPLE4_OPS: &[(u64, &str, bool)] = &[
    (0x08, "sample4", false),
    (0x0d, "sample4_l", true),
    (0x0e, "sample4_b", true),
    (0x0f, "sample4_i", false),
];

/// The parameter fields of 3D_SAMPLE's row, in text order.
pub const SAMPLE_3D_PARAMS: [&str; 4] = ["U", "V", "R", "Ai"];

/// MEDIA_LD / MEDIA_ST modifier names as IGC prints them (`media_ld.nomod (32,1) T6 0
/// x y dst`), by code.
pub static MEDIA_MODIFIERS: &[(u64, &str)] = &[
    (0, "nomod"),
    (1, "modified"),
    (2, "top"),
    (3, "bottom"),
    (4, "top_mod"),
    (5, "bottom_mod"),
];
