//! Every vISA instruction page of the spec, as one enum. The binary opcode byte (and
//! the SVM sub-opcode byte that follows 0x4e) identify it; `spec_name` is the page's
//! name. Operand schemas live in [`super::table`].

/// Which hardware family an instruction belongs to (INDEX.md's "Family" column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    EuCore,
    LegacyDataPort,
    Lsc,
    Sampler,
    ThreeD,
    Media,
    RawMessage,
    SyncGateway,
}

impl Family {
    fn from_spec(s: &str) -> Family {
        match s {
            "EU core" => Family::EuCore,
            "legacy data-port" => Family::LegacyDataPort,
            "LSC (new)" => Family::Lsc,
            "sampler" => Family::Sampler,
            "3D fixed-function" => Family::ThreeD,
            "media fixed-function" => Family::Media,
            "raw message" => Family::RawMessage,
            _ => Family::SyncGateway,
        }
    }
}

macro_rules! opcodes {
    ($($v:ident = ($byte:expr, $sub:expr, $name:expr, $fam:expr, $plat:expr)),* $(,)?) => {
        /// A vISA instruction, one variant per spec page.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($v),* }

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[$(Opcode::$v),*];

            /// The opcode byte in the binary form.
            pub fn byte(self) -> u8 { match self { $(Opcode::$v => $byte),* } }

            /// The sub-opcode byte for the SVM family (0x4e prefix), else `None`.
            pub fn sub_byte(self) -> Option<u8> { match self { $(Opcode::$v => $sub),* } }

            /// The spec page name (`GATHER4_SCALED`).
            pub fn spec_name(self) -> &'static str { match self { $(Opcode::$v => $name),* } }

            /// The platform tag of the spec page (`all`, `-ICLLP`, `DG2+`, ...).
            pub fn platforms(self) -> &'static str { match self { $(Opcode::$v => $plat),* } }

            pub fn family(self) -> Family { match self { $(Opcode::$v => Family::from_spec($fam)),* } }
        }
    };
}

opcodes! {
    Add = (0x01, None, "ADD", "EU core", "all"),
    Avg = (0x02, None, "AVG", "EU core", "all"),
    Div = (0x03, None, "DIV", "EU core", "all"),
    Exp = (0x08, None, "EXP", "EU core", "all"),
    Frc = (0x09, None, "FRC", "EU core", "all"),
    Log = (0x0b, None, "LOG", "EU core", "all"),
    Mad = (0x0c, None, "MAD", "EU core", "all"),
    Mulh = (0x0d, None, "MULH", "EU core", "all"),
    Lrp = (0x0e, None, "LRP", "EU core", "-ICLLP"),
    Mod = (0x0f, None, "MOD", "EU core", "-XEHP"),
    Mul = (0x10, None, "MUL", "EU core", "all"),
    Pow = (0x11, None, "POW", "EU core", "all"),
    Rndd = (0x12, None, "RNDD", "EU core", "all"),
    Rndu = (0x13, None, "RNDU", "EU core", "all"),
    Rnde = (0x14, None, "RNDE", "EU core", "all"),
    Rndz = (0x15, None, "RNDZ", "EU core", "all"),
    Sad2 = (0x16, None, "SAD2", "EU core", "-ICLLP"),
    Sin = (0x17, None, "SIN", "EU core", "all"),
    Cos = (0x18, None, "COS", "EU core", "all"),
    Sqrt = (0x19, None, "SQRT", "EU core", "all"),
    Rsqrt = (0x1a, None, "RSQRT", "EU core", "all"),
    Inv = (0x1b, None, "INV", "EU core", "all"),
    Dpasw = (0x1c, None, "DPASW", "EU core", "DG2,XEHP"),
    Fcvt = (0x1d, None, "FCVT", "EU core", "PVC+"),
    Srnd = (0x1e, None, "SRND", "EU core", "PVC_XT+"),
    Lzd = (0x1f, None, "LZD", "EU core", "all"),
    And = (0x20, None, "AND", "EU core", "all"),
    Or = (0x21, None, "OR", "EU core", "all"),
    Xor = (0x22, None, "XOR", "EU core", "all"),
    Not = (0x23, None, "NOT", "EU core", "all"),
    Shl = (0x24, None, "SHL", "EU core", "all"),
    Shr = (0x25, None, "SHR", "EU core", "all"),
    Asr = (0x26, None, "ASR", "EU core", "all"),
    Cbit = (0x27, None, "CBIT", "EU core", "all"),
    AddrAdd = (0x28, None, "ADDR_ADD", "EU core", "all"),
    Mov = (0x29, None, "MOV", "EU core", "all"),
    Sel = (0x2a, None, "SEL", "EU core", "all"),
    Setp = (0x2b, None, "SETP", "EU core", "all"),
    Cmp = (0x2c, None, "CMP", "EU core", "all"),
    Movs = (0x2d, None, "MOVS", "EU core", "all"),
    Fbl = (0x2e, None, "FBL", "EU core", "all"),
    Fbh = (0x2f, None, "FBH", "EU core", "all"),
    Subroutine = (0x30, None, "SUBROUTINE", "EU core", "all"),
    Label = (0x31, None, "LABEL", "EU core", "all"),
    Jmp = (0x32, None, "JMP", "EU core", "all"),
    Call = (0x33, None, "CALL", "EU core", "all"),
    Fccall = (0x33, None, "FCCALL", "EU core", "-"),
    Ret = (0x34, None, "RET", "EU core", "all"),
    OwordLd = (0x35, None, "OWORD_LD", "legacy data-port", "all"),
    OwordSt = (0x36, None, "OWORD_ST", "legacy data-port", "all"),
    MediaLd = (0x37, None, "MEDIA_LD", "legacy data-port", "all"),
    MediaSt = (0x38, None, "MEDIA_ST", "legacy data-port", "all"),
    Gather = (0x39, None, "GATHER", "legacy data-port", "-"),
    Scatter = (0x3a, None, "SCATTER", "legacy data-port", "-"),
    OwordLdUnaligned = (0x3c, None, "OWORD_LD_UNALIGNED", "legacy data-port", "all"),
    SampleUnorm = (0x41, None, "SAMPLE_UNORM", "sampler", "all"),
    Avs = (0x43, None, "AVS", "media fixed-function", "-TGLLP"),
    MinMax = (0x45, None, "MIN_MAX", "EU core", "all"),
    Bfe = (0x46, None, "BFE", "EU core", "all"),
    Bfi = (0x47, None, "BFI", "EU core", "all"),
    Bfrev = (0x48, None, "BFREV", "EU core", "all"),
    Addc = (0x49, None, "ADDC", "EU core", "all"),
    Subb = (0x4a, None, "SUBB", "EU core", "all"),
    Gather4Typed = (0x4b, None, "GATHER4_TYPED", "legacy data-port", "all"),
    Scatter4Typed = (0x4c, None, "SCATTER4_TYPED", "legacy data-port", "all"),
    SvmBlockLd = (0x4e, Some(0x01), "SVM_BLOCK_LD", "legacy data-port", "all"),
    SvmBlockSt = (0x4e, Some(0x02), "SVM_BLOCK_ST", "legacy data-port", "all"),
    SvmGather = (0x4e, Some(0x03), "SVM_GATHER", "legacy data-port", "all"),
    SvmScatter = (0x4e, Some(0x04), "SVM_SCATTER", "legacy data-port", "all"),
    SvmAtomic = (0x4e, Some(0x05), "SVM_ATOMIC", "legacy data-port", "all"),
    SvmGather4Scaled = (0x4e, Some(0x06), "SVM_GATHER4_SCALED", "legacy data-port", "all"),
    SvmScatter4Scaled = (0x4e, Some(0x07), "SVM_SCATTER4_SCALED", "legacy data-port", "all"),
    Ifcall = (0x4f, None, "IFCALL", "EU core", "all"),
    Faddr = (0x50, None, "FADDR", "EU core", "all"),
    File = (0x51, None, "FILE", "EU core", "all"),
    Loc = (0x52, None, "LOC", "EU core", "all"),
    VmeIme = (0x54, None, "VME_IME", "media fixed-function", "-TGLLP"),
    VmeSic = (0x55, None, "VME_SIC", "media fixed-function", "-TGLLP"),
    VmeFbr = (0x56, None, "VME_FBR", "media fixed-function", "-TGLLP"),
    VmeIdm = (0x57, None, "VME_IDM", "media fixed-function", "-TGLLP"),
    Barrier = (0x59, None, "BARRIER", "sync / gateway", "all"),
    CacheFlush = (0x5a, None, "CACHE_FLUSH", "sync / gateway", "all"),
    Wait = (0x5b, None, "WAIT", "sync / gateway", "all"),
    Fence = (0x5c, None, "FENCE", "legacy data-port", "all"),
    RawSend = (0x5d, None, "RAW_SEND", "raw message", "all"),
    Yield = (0x5f, None, "YIELD", "sync / gateway", "all"),
    Nbarrier = (0x60, None, "NBARRIER", "sync / gateway", "PVC+"),
    Fcall = (0x67, None, "FCALL", "EU core", "all"),
    Fret = (0x68, None, "FRET", "EU core", "all"),
    Switchjmp = (0x69, None, "SWITCHJMP", "EU core", "PVC+,-TGLLP"),
    Sad2add = (0x6a, None, "SAD2ADD", "EU core", "-ICLLP"),
    Pln = (0x6b, None, "PLN", "EU core", "-ICLLP"),
    Goto = (0x6c, None, "GOTO", "EU core", "all"),
    D3Sample = (0x6d, None, "3D_SAMPLE", "sampler", "-PVC"),
    D3Load = (0x6e, None, "3D_LOAD", "sampler", "-PVC"),
    D3Sample4 = (0x6f, None, "3D_SAMPLE4", "sampler", "-PVC"),
    Info = (0x70, None, "INFO", "sampler", "-PVC"),
    RtWrite = (0x71, None, "RT_WRITE", "3D fixed-function", "-PVC"),
    UrbWrite = (0x72, None, "URB_WRITE", "3D fixed-function", "-PVC"),
    TypedAtomic = (0x73, None, "TYPED_ATOMIC", "legacy data-port", "-PVC"),
    Gather4Scaled = (0x74, None, "GATHER4_SCALED", "legacy data-port", "all"),
    Scatter4Scaled = (0x75, None, "SCATTER4_SCALED", "legacy data-port", "all"),
    GatherScaled = (0x78, None, "GATHER_SCALED", "legacy data-port", "all"),
    ScatterScaled = (0x79, None, "SCATTER_SCALED", "legacy data-port", "all"),
    RawSends = (0x7a, None, "RAW_SENDS", "raw message", "all"),
    Lifetime = (0x7b, None, "LIFETIME", "EU core", "all"),
    Sbarrier = (0x7c, None, "SBARRIER", "sync / gateway", "all"),
    DwordAtomic = (0x7d, None, "DWORD_ATOMIC", "legacy data-port", "all"),
    Sqrtm = (0x7e, None, "SQRTM", "EU core", "XEHP+,SKL"),
    Divm = (0x7f, None, "DIVM", "EU core", "XEHP+,SKL"),
    Rol = (0x80, None, "ROL", "EU core", "ICLLP+"),
    Ror = (0x81, None, "ROR", "EU core", "ICLLP+"),
    Dp4a = (0x82, None, "DP4A", "EU core", "TGLLP+"),
    Dpas = (0x83, None, "DPAS", "EU core", "XEHP+"),
    Add3 = (0x84, None, "ADD3", "EU core", "XEHP+"),
    Bfn = (0x85, None, "BFN", "EU core", "XEHP+"),
    QwGather = (0x86, None, "QW_GATHER", "legacy data-port", "PVC_XT,PVC"),
    QwScatter = (0x87, None, "QW_SCATTER", "legacy data-port", "PVC_XT,PVC"),
    LscUntyped = (0x89, None, "LSC_UNTYPED", "LSC (new)", "DG2+"),
    LscTyped = (0x8a, None, "LSC_TYPED", "LSC (new)", "DG2+"),
    LscFence = (0x8b, None, "LSC_FENCE", "LSC (new)", "DG2+"),
    RtRead = (0x90, None, "RT_READ", "3D fixed-function", "-"),
    Madw = (0x91, None, "MADW", "EU core", "all"),
    Add3o = (0x92, None, "ADD3O", "EU core", "XEHP+"),
    Invm = (0x9b, None, "INVM", "EU core", "XEHP+,SKL"),
    Rsqtm = (0x9c, None, "RSQTM", "EU core", "XEHP+,SKL"),
}
