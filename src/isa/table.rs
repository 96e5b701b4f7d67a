//! The one declarative instruction table: for every opcode, its fields in the spec's
//! binary Format order, each with the spec's name and a [`FieldKind`]. The rows are
//! generated from the spec pages (`tools/gen_table.py` -> `table_gen.rs`); the binary
//! decoder, the text parser, the printer and the validator all walk the same row.

use super::Opcode;
use std::sync::OnceLock;

/// What a field holds and how it is encoded in the binary form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// The Exec_size byte.
    ExecSize,
    /// The predicate control word.
    Pred,
    /// A destination vector operand (incl. predicate destinations, carry/borrow).
    Dst,
    /// A source vector operand.
    Src,
    /// A scalar operand (a vector operand read as `<0;1,0>`, or an immediate).
    Scalar,
    /// A raw operand.
    Raw,
    /// A plain integer of this many bytes.
    Int(u8),
    /// A label id (uw).
    Label,
    /// A switchjmp label table (count in the preceding `Num_labels` field).
    LabelList,
    /// A surface variable index (ub).
    Surface,
    /// A sampler variable index (ub).
    Sampler,
}

/// One field of an instruction's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub kind: FieldKind,
}

/// Row constructor used by the generated table.
pub const fn f(name: &'static str, kind: FieldKind) -> FieldSpec {
    FieldSpec { name, kind }
}

/// Everything the table knows about one opcode.
#[derive(Debug)]
pub struct OpInfo {
    pub op: Opcode,
    pub fields: &'static [FieldSpec],
}

impl OpInfo {
    /// Index of the field called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// Fields of LSC_UNTYPED's other formats that its main one (the generated row) lacks,
/// appended to the row so that one field list holds every sub-op: the strided
/// load/store's pitch (`Src0Addrs` holds its base) and the block2d form's shape and
/// surface operands. The binary decoder reads the main format and leaves these at
/// their defaults (`decode::binary`).
pub const LSC_UNTYPED_EXTRA: &[FieldSpec] = &[
    f("Src0AddrPitch", FieldKind::Src),
    f("Blocks", FieldKind::Int(1)),
    f("BlockWidth", FieldKind::Int(2)),
    f("BlockHeight", FieldKind::Int(2)),
    f("VNNI", FieldKind::Int(1)),
    f("SurfaceBaseAddr", FieldKind::Src),
    f("SurfaceWidth", FieldKind::Src),
    f("SurfaceHeight", FieldKind::Src),
    f("SurfacePitch", FieldKind::Src),
    f("Src0AddrX", FieldKind::Src),
    f("Src0AddrY", FieldKind::Src),
];

/// The block2d message's surface and position operands, in their text order
/// (`flat[Base,W,H,P,X,Y]`).
pub const BLOCK2D_OPERANDS: [&str; 6] = [
    "SurfaceBaseAddr",
    "SurfaceWidth",
    "SurfaceHeight",
    "SurfacePitch",
    "Src0AddrX",
    "Src0AddrY",
];

/// LSC_TYPED's immediate coordinate offsets (`bti(0x4)[U,V+1,R]`), which IGC's
/// writer emits after each coordinate and the spec's Format table leaves out, and the
/// block2d form's shape and block position (the page's second Format table).
pub const LSC_TYPED_EXTRA: &[FieldSpec] = &[
    f("Src0AddrsUOffset", FieldKind::Int(4)),
    f("Src0AddrsVOffset", FieldKind::Int(4)),
    f("Src0AddrsROffset", FieldKind::Int(4)),
    f("BlockWidth", FieldKind::Int(2)),
    f("BlockHeight", FieldKind::Int(2)),
    f("Src0AddrX", FieldKind::Src),
    f("Src0AddrY", FieldKind::Src),
];

/// What an appended field holds when the instruction's form does not use it (no
/// strided pitch, no coordinate offsets, no block2d shape): zero. Both decoders fill
/// the unused extras with it.
pub fn extra_default(kind: FieldKind) -> crate::ir::Field {
    match kind {
        FieldKind::Int(_) => crate::ir::Field::Int(0),
        _ => crate::ir::Field::Vec(crate::ir::VecOperand::Immediate {
            ty: crate::ir::DataType::UD,
            bits: 0,
        }),
    }
}

/// What a field not present in a sub-op's binary form holds: what the text parser
/// gives it, so that the binary and the text read to the same instruction.
#[derive(Clone, Copy, Debug)]
pub enum Implied {
    Int(u64),
    /// The null raw operand (V0, offset 0).
    NullRaw,
    /// The immediate 0:ud (an unused vector operand).
    Zero,
    /// One channel, M1 (a form without an execution size).
    Simd1,
    /// No predicate (a form without one).
    NoPred,
}

impl Implied {
    pub fn field(self) -> crate::ir::Field {
        use crate::ir::{DataType, Field, RawOperand, VarId, VecOperand};
        match self {
            Implied::Int(v) => Field::Int(v),
            Implied::NullRaw => Field::Raw(RawOperand {
                var: VarId(0),
                offset: 0,
            }),
            Implied::Zero => Field::Vec(VecOperand::Immediate {
                ty: DataType::UD,
                bits: 0,
            }),
            Implied::Simd1 => Field::ExecSize(crate::ir::ExecSize {
                size: 1,
                mask: crate::ir::MaskControl::M1,
            }),
            Implied::NoPred => Field::Pred(None),
        }
    }
}

/// A sub-op's own binary format (LSC_UNTYPED's pages): its fields in binary order,
/// by their names in the instruction's field list, and what the others hold.
pub struct SubForm {
    pub order: &'static [&'static str],
    pub implied: &'static [(&'static str, Implied)],
}

impl SubForm {
    /// What field `spec`, outside the form's binary order, holds: its implied value,
    /// else the other forms' extras' default.
    pub fn outside(&self, spec: &FieldSpec) -> crate::ir::Field {
        self.implied
            .iter()
            .find(|(n, _)| *n == spec.name)
            .map_or(extra_default(spec.kind), |(_, v)| v.field())
    }
}

/// The binary form of LSC_UNTYPED's append-counter atomics (sub-ops 0x28, 0x29):
/// no address fields; the addend (the page's `Src0Data`) in `Src0Addrs`.
const LSC_APNDCTR_FORM: SubForm = SubForm {
    order: &[
        "LscSubOp",
        "Exec_size",
        "Pred",
        "LscSFID",
        "CachingL1",
        "CachingL3",
        "AddrType",
        "DataSize",
        "DataOrder",
        "DataElemsPerAddr",
        "ChMask",
        "Surface",
        "DstData",
        "Src0Addrs",
    ],
    implied: &[
        ("AddrScale", Implied::Int(1)),
        ("AddrImmOffset", Implied::Int(0)),
        ("AddrSize", Implied::Int(2)),
        ("Src1Data", Implied::NullRaw),
        ("Src2Data", Implied::NullRaw),
    ],
};

/// Strided loads/stores (0x01, 0x05): the pitch after the base (`Src0Addrs`), no
/// Src2Data.
const LSC_STRIDED_FORM: SubForm = SubForm {
    order: &[
        "LscSubOp",
        "Exec_size",
        "Pred",
        "LscSFID",
        "CachingL1",
        "CachingL3",
        "AddrType",
        "AddrScale",
        "AddrImmOffset",
        "AddrSize",
        "DataSize",
        "DataOrder",
        "DataElemsPerAddr",
        "ChMask",
        "Surface",
        "DstData",
        "Src0Addrs",
        "Src0AddrPitch",
        "Src1Data",
    ],
    implied: &[("Src2Data", Implied::NullRaw)],
};

/// 2D block loads/stores (0x03, 0x07): the block shape and the six surface operands.
const LSC_BLOCK2D_FORM: SubForm = SubForm {
    order: &[
        "LscSubOp",
        "Exec_size",
        "Pred",
        "LscSFID",
        "CachingL1",
        "CachingL3",
        "DataSize",
        "DataOrder",
        "Blocks",
        "BlockWidth",
        "BlockHeight",
        "VNNI",
        "DstData",
        "SurfaceBaseAddr",
        "SurfaceWidth",
        "SurfaceHeight",
        "SurfacePitch",
        "Src0AddrX",
        "Src0AddrY",
        "Src1Data",
    ],
    implied: &[
        ("AddrType", Implied::Int(1)),
        ("AddrScale", Implied::Int(1)),
        ("AddrImmOffset", Implied::Int(0)),
        ("AddrSize", Implied::Int(3)),
        ("DataElemsPerAddr", Implied::Int(1)),
        ("ChMask", Implied::Int(0)),
        ("Surface", Implied::Zero),
        ("Src0Addrs", Implied::NullRaw),
        ("Src2Data", Implied::NullRaw),
    ],
};

/// LSC_TYPED's 2D block loads/stores (0x03, 0x07), the page's second Format table:
/// one channel, no predicate, no coordinate registers.
const LSC_TYPED_BLOCK2D_FORM: SubForm = SubForm {
    order: &[
        "LscSubOp",
        "CachingL1",
        "CachingL3",
        "AddrType",
        "BlockWidth",
        "BlockHeight",
        "Surface",
        "DstData",
        "Src0AddrX",
        "Src0AddrY",
        "Src1Data",
    ],
    implied: &[
        ("ExecSize", Implied::Simd1),
        ("Predicate", Implied::NoPred),
        ("AddrSize", Implied::Int(0)),
        ("DataSize", Implied::Int(0)),
        ("DataOrder", Implied::Int(0)),
        ("DataElemsPerAddr", Implied::Int(0)),
        ("ChMask", Implied::Int(0)),
        ("Src0AddrsU", Implied::NullRaw),
        ("Src0AddrsV", Implied::NullRaw),
        ("Src0AddrsR", Implied::NullRaw),
        ("Src0AddrsLOD", Implied::NullRaw),
        ("Src2Data", Implied::NullRaw),
    ],
};

/// The binary form of an LSC_UNTYPED sub-op whose page gives it its own format;
/// `None` for the main format (the generated row). Every field that is in neither
/// the form's order nor its implied list (the other forms' extras) is
/// [`extra_default`].
pub fn sub_form(op: Opcode, subop: u64) -> Option<&'static SubForm> {
    match (op, subop) {
        (Opcode::LscUntyped, 0x01 | 0x05) => Some(&LSC_STRIDED_FORM),
        (Opcode::LscUntyped, 0x03 | 0x07) => Some(&LSC_BLOCK2D_FORM),
        (Opcode::LscUntyped, 0x28 | 0x29) => Some(&LSC_APNDCTR_FORM),
        (Opcode::LscTyped, 0x03 | 0x07) => Some(&LSC_TYPED_BLOCK2D_FORM),
        _ => None,
    }
}

/// The fields appended to `op`'s generated row (none for most opcodes).
pub fn extra_fields(op: Opcode) -> &'static [FieldSpec] {
    match op {
        Opcode::LscUntyped => LSC_UNTYPED_EXTRA,
        Opcode::LscTyped => LSC_TYPED_EXTRA,
        _ => &[],
    }
}

fn all() -> &'static [OpInfo] {
    static TABLE: OnceLock<Vec<OpInfo>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut v: Vec<OpInfo> = super::table_gen::FORMATS
            .iter()
            .map(|(op, fields)| {
                let extra = extra_fields(*op);
                let fields: &'static [FieldSpec] = if extra.is_empty() {
                    fields
                } else {
                    // Built once (the table is a OnceLock), so leaking is bounded.
                    Vec::leak([*fields, extra].concat())
                };
                OpInfo { op: *op, fields }
            })
            .collect();
        v.sort_by_key(|i| i.op);
        v
    })
}

/// A page's type rules: its "Supported Types" and its type maps (dst types, src
/// types), platform tags dropped; `None` where the page lists neither.
#[allow(clippy::type_complexity)]
pub fn types(
    op: Opcode,
) -> Option<(
    &'static [crate::ir::DataType],
    &'static [(
        &'static [crate::ir::DataType],
        &'static [crate::ir::DataType],
    )],
)> {
    super::table_gen::TYPES
        .iter()
        .find(|(o, _, _)| *o == op)
        .map(|(_, s, m)| (*s, *m))
}

/// The table row of `op`.
pub fn info(op: Opcode) -> &'static OpInfo {
    let t = all();
    match t.binary_search_by_key(&op, |i| i.op) {
        Ok(i) => &t[i],
        // Every opcode has a row (checked by a test); an empty row is never reached.
        Err(_) => &EMPTY[0],
    }
}

static EMPTY: [OpInfo; 1] = [OpInfo {
    op: Opcode::Label,
    fields: &[],
}];

/// The opcode for a binary (opcode byte, SVM sub-opcode) pair. 0x33 is CALL (FCCALL
/// shares the byte in the spec but IGC 4.x writes CALL).
pub fn by_byte(byte: u8, sub: Option<u8>) -> Option<Opcode> {
    Opcode::ALL
        .iter()
        .copied()
        .filter(|o| *o != Opcode::Fccall)
        .find(|o| o.byte() == byte && (byte != 0x4e || o.sub_byte() == sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_has_a_row() {
        for op in Opcode::ALL {
            let i = info(*op);
            assert_eq!(i.op, *op, "{op:?} has no table row");
        }
        assert_eq!(all().len(), Opcode::ALL.len());
    }

    #[test]
    fn rows_follow_the_spec_format() {
        let add = info(Opcode::Add);
        let kinds: Vec<_> = add.fields.iter().map(|f| f.kind).collect();
        use FieldKind::*;
        assert_eq!(kinds, vec![ExecSize, Pred, Dst, Src, Src]);
        assert_eq!(info(Opcode::Cmp).index_of("Rel_op"), Some(1));
        assert_eq!(by_byte(0x4e, Some(5)), Some(Opcode::SvmAtomic));
        assert_eq!(by_byte(0x33, None), Some(Opcode::Call));
        assert_eq!(by_byte(0x04, None), None);
    }
}
