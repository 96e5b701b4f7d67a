//! OpenCL images as the emulator stores them: a tightly packed texel array (x fastest,
//! then y, then z; no row padding) bound at the image argument's binding-table index, and
//! a descriptor (size, channel order, channel type) that typed messages convert through.
//! IGC passes width, height, depth, channel order and type to the kernel as data
//! parameters holding the OpenCL enum values, so the descriptor uses those codes.
//!
//! Register view of a texel: four 32-bit values (R, G, B, A): float formats and
//! normalized ones as f32 bits, integer formats as 32-bit integers. Channels the order
//! lacks read as 0, alpha as 1 (1.0 for float/normalized types), as OpenCL specifies.

use serde::Deserialize;

/// Channel orders (OpenCL `cl_channel_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ChannelOrder {
    R,
    RG,
    RGBA,
    BGRA,
}

impl ChannelOrder {
    pub fn from_name(s: &str) -> Option<ChannelOrder> {
        Some(match s.trim_start_matches("CL_") {
            "R" => ChannelOrder::R,
            "RG" => ChannelOrder::RG,
            "RGBA" => ChannelOrder::RGBA,
            "BGRA" => ChannelOrder::BGRA,
            _ => return None,
        })
    }

    /// The `cl_channel_order` value IGC's kernels compare against.
    pub fn cl_code(self) -> u32 {
        match self {
            ChannelOrder::R => 0x10B0,
            ChannelOrder::RG => 0x10B2,
            ChannelOrder::RGBA => 0x10B5,
            ChannelOrder::BGRA => 0x10B6,
        }
    }

    pub fn channels(self) -> u32 {
        match self {
            ChannelOrder::R => 1,
            ChannelOrder::RG => 2,
            ChannelOrder::RGBA | ChannelOrder::BGRA => 4,
        }
    }

    /// For each RGBA register channel, the position of its value in a stored texel.
    pub fn position(self, rgba: u32) -> Option<u32> {
        match (self, rgba) {
            (ChannelOrder::BGRA, 0) => Some(2),
            (ChannelOrder::BGRA, 2) => Some(0),
            (o, c) => (c < o.channels()).then_some(c),
        }
    }
}

/// Channel data types (OpenCL `cl_channel_type`) the emulator converts exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ChannelType {
    SnormInt8,
    UnormInt8,
    SignedInt8,
    SignedInt16,
    SignedInt32,
    UnsignedInt8,
    UnsignedInt16,
    UnsignedInt32,
    HalfFloat,
    Float,
    UnormInt16,
    SnormInt16,
}

impl ChannelType {
    pub fn from_name(s: &str) -> Option<ChannelType> {
        use ChannelType::*;
        Some(match s.trim_start_matches("CL_") {
            "SNORM_INT8" => SnormInt8,
            "UNORM_INT8" => UnormInt8,
            "SIGNED_INT8" => SignedInt8,
            "SIGNED_INT16" => SignedInt16,
            "SIGNED_INT32" => SignedInt32,
            "UNSIGNED_INT8" => UnsignedInt8,
            "UNSIGNED_INT16" => UnsignedInt16,
            "UNSIGNED_INT32" => UnsignedInt32,
            "HALF_FLOAT" => HalfFloat,
            "FLOAT" => Float,
            "UNORM_INT16" => UnormInt16,
            "SNORM_INT16" => SnormInt16,
            _ => return None,
        })
    }

    pub fn cl_code(self) -> u32 {
        use ChannelType::*;
        match self {
            SnormInt8 => 0x10D0,
            UnormInt8 => 0x10D2,
            SignedInt8 => 0x10D7,
            SignedInt16 => 0x10D8,
            SignedInt32 => 0x10D9,
            UnsignedInt8 => 0x10DA,
            UnsignedInt16 => 0x10DB,
            UnsignedInt32 => 0x10DC,
            HalfFloat => 0x10DD,
            Float => 0x10DE,
            SnormInt16 => 0x10D1,
            UnormInt16 => 0x10D3,
        }
    }

    /// Bytes of one channel.
    pub fn bytes(self) -> u32 {
        use ChannelType::*;
        match self {
            SnormInt8 | UnormInt8 | SignedInt8 | UnsignedInt8 => 1,
            SignedInt16 | UnsignedInt16 | HalfFloat | UnormInt16 | SnormInt16 => 2,
            SignedInt32 | UnsignedInt32 | Float => 4,
        }
    }

    /// Registers hold f32 bits (float and normalized types), else integers.
    pub fn is_float(self) -> bool {
        use ChannelType::*;
        matches!(
            self,
            SnormInt8 | UnormInt8 | HalfFloat | Float | UnormInt16 | SnormInt16
        )
    }

    /// The register value of a missing alpha channel.
    pub fn one(self) -> u32 {
        if self.is_float() {
            1.0f32.to_bits()
        } else {
            1
        }
    }

    /// A stored channel (`raw`, zero-extended) as its 32-bit register value.
    pub fn load(self, raw: u32) -> u32 {
        use ChannelType::*;
        match self {
            // Exactly x / 255 (x / 127 clamped at -1), correctly rounded: f64 division
            // of small integers rounded once to f32 is the correctly rounded quotient.
            UnormInt8 => ((raw & 0xff) as f64 / 255.0) as f32,
            SnormInt8 => ((raw as u8 as i8) as f64 / 127.0).max(-1.0) as f32,
            // x / 65535 and x / 32767 likewise (their binary expansions repeat every
            // 32 and 30 bits, so no f64 quotient sits on an f32 rounding midpoint);
            // `unorm16_parts` is the division-free form the GPU computes.
            UnormInt16 => ((raw & 0xffff) as f64 / 65535.0) as f32,
            SnormInt16 => ((raw as u16 as i16) as f64 / 32767.0).max(-1.0) as f32,
            HalfFloat => half::f16::from_bits(raw as u16).to_f32(),
            Float => f32::from_bits(raw),
            SignedInt8 => return raw as u8 as i8 as i32 as u32,
            SignedInt16 => return raw as u16 as i16 as i32 as u32,
            UnsignedInt8 => return raw & 0xff,
            UnsignedInt16 => return raw & 0xffff,
            SignedInt32 | UnsignedInt32 => return raw,
        }
        .to_bits()
    }

    /// A register value (f32 bits or a 32-bit integer) as the stored channel: floats
    /// rounded to nearest even, normalized values clamped first (NaN -> 0), integers
    /// clamped to the channel's range (SCATTER4_TYPED's conversion table).
    pub fn store(self, v: u32) -> u32 {
        use ChannelType::*;
        let f = f32::from_bits(v);
        let norm = |lo: f32, scale: f32| -> u32 {
            if f.is_nan() {
                0
            } else {
                (f.clamp(lo, 1.0) * scale).round_ties_even() as i32 as u32
            }
        };
        match self {
            UnormInt8 => norm(0.0, 255.0) & 0xff,
            SnormInt8 => norm(-1.0, 127.0) & 0xff,
            UnormInt16 => norm(0.0, 65535.0) & 0xffff,
            SnormInt16 => norm(-1.0, 32767.0) & 0xffff,
            HalfFloat => half::f16::from_f32(f).to_bits() as u32,
            Float | SignedInt32 | UnsignedInt32 => v,
            SignedInt8 => (v as i32).clamp(-128, 127) as u32 & 0xff,
            SignedInt16 => (v as i32).clamp(-32768, 32767) as u32 & 0xffff,
            UnsignedInt8 => v.min(0xff),
            UnsignedInt16 => v.min(0xffff),
        }
    }
}

/// x / 65535 (`signed`: x / 32767) as the GPU computes it without a division
/// (shaders/image.wgsl `img_norm16`): with y = x * 65537 (x * 32769), the quotient is
/// y / (2^32 - 1) (y / (2^30 - 1)) = y·2^-32 + y·2^-64 + ..., whose first two terms are
/// exact f64 products; their f64 sum rounded to f32 is the correctly rounded quotient
/// (checked for every x by a test).
pub fn norm16_division_free(x: i32, signed: bool) -> f32 {
    let (mul, sh) = if signed { (32769.0, 30) } else { (65537.0, 32) };
    let y = x as f64 * mul;
    let lo = -sh as f64;
    let v = y * lo.exp2() + y * (2.0 * lo).exp2();
    if signed {
        v.max(-1.0) as f32
    } else {
        v as f32
    }
}

/// The layer a sample of an image array reads: the coordinate rounded to nearest even
/// (never normalized, no address mode; NaN as 0) and clamped to the layers (OpenCL's
/// clamp(rint(c), 0, n - 1)).
pub fn layer_index(c: u32, layers: u32) -> u32 {
    let f = f32::from_bits(c);
    let f = if f.is_nan() { 0.0 } else { f.round_ties_even() };
    f.clamp(0.0, (layers - 1) as f32) as u32
}

/// One bound image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// Addressed dimensions, 1, 2 or 3: an array's layer index is its last one
    /// (a 1D array is 2, a 2D array 3).
    pub dims: u32,
    /// An image array: the last dimension counts layers (`height` of a 1D array,
    /// `depth` of a 2D array).
    pub array: bool,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub order: ChannelOrder,
    pub ty: ChannelType,
}

impl ImageDesc {
    /// The border color OpenCL gives `CLK_ADDRESS_CLAMP`: transparent black, alpha 1
    /// where the order has no alpha.
    pub fn border(&self) -> [u32; 4] {
        let alpha = matches!(self.order, ChannelOrder::RGBA | ChannelOrder::BGRA);
        [0, 0, 0, if alpha { 0 } else { self.ty.one() }]
    }

    pub fn texel_bytes(&self) -> u32 {
        self.order.channels() * self.ty.bytes()
    }

    pub fn bytes(&self) -> u64 {
        self.width as u64 * self.height as u64 * self.depth as u64 * self.texel_bytes() as u64
    }

    /// Byte offset of texel (u, v, r), or `None` outside the image. Coordinates are
    /// signed integers; the ones a surface of fewer dimensions lacks are ignored.
    /// Why typed atomics of `width` bits cannot run on this image, if they cannot: the
    /// data port's typed atomics read and write one raw channel, so only one-channel
    /// (R) images of unnormalized 32-bit (16-bit with `.16`) channels take them.
    pub fn atomic_refusal(&self, width: u32) -> Option<String> {
        use ChannelType::*;
        let raw = matches!(
            self.ty,
            SignedInt16 | SignedInt32 | UnsignedInt16 | UnsignedInt32 | HalfFloat | Float
        );
        (self.order != ChannelOrder::R || !raw || self.ty.bytes() * 8 != width).then(|| {
            format!(
                "typed atomics of {width} bits on an image of {:?} {:?} channels (they need \
                 one unnormalized {width}-bit channel: R32_UINT/SINT/FLOAT, or R16 with .16)",
                self.order, self.ty
            )
        })
    }

    pub fn texel_offset(&self, u: u32, v: u32, r: u32) -> Option<u64> {
        let inside = |c: u32, n: u32| (c as i32) >= 0 && c < n;
        let v = if self.dims >= 2 { v } else { 0 };
        let r = if self.dims >= 3 { r } else { 0 };
        (inside(u, self.width) && inside(v, self.height) && inside(r, self.depth)).then(|| {
            ((r as u64 * self.height as u64 + v as u64) * self.width as u64 + u as u64)
                * self.texel_bytes() as u64
        })
    }
}

/// Texture coordinate modes of a sampler axis (the hardware's TEXCOORDMODE codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    /// 0: repeat (`CLK_ADDRESS_REPEAT`).
    Wrap,
    /// 1: mirrored repeat.
    Mirror,
    /// 2: clamp to the edge texel.
    Clamp,
    /// 4: outside the image reads the border color (`CLK_ADDRESS_CLAMP`).
    Border,
    /// Another code (cube, mirror once): refused when sampled.
    Other(u32),
}

/// The parts of a SAMPLER_STATE (Gen9+ layout) that decide which texels a sample
/// reads: DW0 bits 19:17 mag and 16:14 min filter (0 = nearest), DW3 bit 10
/// non-normalized coordinates, bits 8:6 / 5:3 / 2:0 the X / Y / Z address modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerState {
    pub normalized: bool,
    /// Min or mag filter other than nearest.
    pub linear: bool,
    pub address: [AddressMode; 3],
}

impl SamplerState {
    pub fn from_words([dw0, dw3]: [u32; 2]) -> SamplerState {
        let mode = |shift: u32| match (dw3 >> shift) & 7 {
            0 => AddressMode::Wrap,
            1 => AddressMode::Mirror,
            2 => AddressMode::Clamp,
            4 => AddressMode::Border,
            c => AddressMode::Other(c),
        };
        SamplerState {
            normalized: dw3 & (1 << 10) == 0,
            linear: (dw0 >> 14) & 0x3f != 0,
            address: [mode(6), mode(3), mode(0)],
        }
    }

    /// The state an OpenCL driver builds for a `sampler_t` argument of value `clk` (the
    /// CLK_* bits: 0x1 normalized coordinates; 0xe the address mode: 0 none, 2 clamp
    /// to edge, 4 clamp (border), 6 repeat, 8 mirrored repeat; 0x10 nearest, 0x20
    /// linear filtering), or why the value is not one.
    pub fn from_clk(clk: u64) -> Result<SamplerState, String> {
        let address = match clk & 0xe {
            // CLK_ADDRESS_NONE leaves the outside undefined: the border is one answer.
            0 | 4 => AddressMode::Border,
            2 => AddressMode::Clamp,
            6 => AddressMode::Wrap,
            8 => AddressMode::Mirror,
            m => return Err(format!("address mode bits {m:#x}")),
        };
        let linear = match clk & 0x30 {
            0x10 => false,
            0x20 => true,
            f => return Err(format!("filter bits {f:#x} (expected 0x10 or 0x20)")),
        };
        if clk & !0x3f != 0 {
            return Err(format!("unknown bits {:#x}", clk & !0x3f));
        }
        Ok(SamplerState {
            normalized: clk & 1 != 0,
            linear,
            address: [address; 3],
        })
    }

    /// The code the GPU runtime reads (shaders/image.wgsl): address modes in bytes 0-2,
    /// bit 24 normalized, bit 25 linear filtering.
    pub fn code(&self) -> u32 {
        let m = |a: AddressMode| match a {
            AddressMode::Wrap => 0,
            AddressMode::Mirror => 1,
            AddressMode::Clamp => 2,
            AddressMode::Border => 4,
            AddressMode::Other(c) => c,
        };
        m(self.address[0])
            | m(self.address[1]) << 8
            | m(self.address[2]) << 16
            | (self.normalized as u32) << 24
            | (self.linear as u32) << 25
    }

    /// Texel indices of a nearest sample at coordinates `c` (f32 bits) in `d`, moved by
    /// the `_aoffimmi` texel offsets `off` (an array's layer takes none), or `None`
    /// where an axis reads the border; axes the image lacks read index 0.
    pub fn texel(&self, d: &ImageDesc, c: [u32; 3], off: [i32; 3]) -> Option<[u32; 3]> {
        let sizes = [d.width, d.height, d.depth];
        let mut out = [0; 3];
        for axis in 0..d.dims as usize {
            out[axis] = if d.array && axis + 1 == d.dims as usize {
                layer_index(c[axis], sizes[axis])
            } else {
                self.texel_index(axis, c[axis], sizes[axis], off[axis])?
            };
        }
        Some(out)
    }

    /// The texels a linear (bi-/trilinear) sample at coordinates `c` (f32 bits) of `d`
    /// blends, with integer weights that sum to `1 << (8 * axes)`: OpenCL's
    /// formula (i0 = floor(u - 0.5), i1 = i0 + 1, a = frac(u - 0.5)) with the position
    /// snapped to 1/256 of a texel, the 8 sub-texel bits that Intel's drivers report
    /// (Vulkan `subTexelPrecisionBits`; D3D12 requires 8). Each tap's index then goes
    /// through the axis' address mode like a nearest sample's (`None`: the border).
    /// An array's layer is not filtered. The `_aoffimmi` offsets `off` move both
    /// indices of a filtered axis before its address mode (saturating in i32, as the
    /// GPU's `img_off`). See `LinearTaps`.
    pub fn linear_taps(&self, d: &ImageDesc, c: [u32; 3], off: [i32; 3]) -> LinearTaps {
        let sizes = [d.width, d.height, d.depth];
        let axes = d.dims as usize - d.array as usize;
        // Per filtered axis: the two indices and the weight of the second (0..256).
        let mut ax = [(Some(0u32), Some(0u32), 0u32); 3];
        let mut fixed = [0u32; 3];
        for axis in 0..d.dims as usize {
            if axis >= axes {
                fixed[axis] = layer_index(c[axis], sizes[axis]);
                continue;
            }
            let f = f32::from_bits(c[axis]);
            let x = if self.normalized {
                f * sizes[axis] as f32
            } else {
                f
            };
            let (i0, frac) = snap_position(x);
            let i0 = (i0 as i32).saturating_add(off[axis]);
            let n = sizes[axis] as i64;
            ax[axis] = (
                self.address_index(axis, i0 as i64, n),
                self.address_index(axis, i0.saturating_add(1) as i64, n),
                frac,
            );
        }
        let mut taps = LinearTaps {
            len: 1 << axes,
            shift: 8 * axes as u32,
            taps: [(None, 0); 8],
        };
        for (k, tap) in taps.taps.iter_mut().take(1 << axes).enumerate() {
            let mut at = fixed;
            let mut weight = 1u32;
            let mut inside = true;
            for (axis, &(i0, i1, frac)) in ax.iter().enumerate().take(axes) {
                let second = k >> axis & 1 == 1;
                let (i, w) = if second { (i1, frac) } else { (i0, 256 - frac) };
                weight *= w;
                match i {
                    Some(i) => at[axis] = i,
                    None => inside = false,
                }
            }
            *tap = (inside.then_some(at), weight);
        }
        taps
    }

    /// Integer texel index `i` along `axis` (`n` texels) through the axis' address mode;
    /// `None` for the border.
    fn address_index(&self, axis: usize, i: i64, n: i64) -> Option<u32> {
        Some(match self.address[axis] {
            AddressMode::Wrap => i.rem_euclid(n),
            AddressMode::Mirror => {
                let m = i.rem_euclid(2 * n);
                if m >= n {
                    2 * n - 1 - m
                } else {
                    m
                }
            }
            AddressMode::Clamp => i.clamp(0, n - 1),
            AddressMode::Border | AddressMode::Other(_) => {
                if i < 0 || i >= n {
                    return None;
                }
                i
            }
        } as u32)
    }

    /// Why a sample through this sampler cannot be emulated exactly.
    pub fn unsupported(&self) -> Option<String> {
        self.address.iter().find_map(|a| match a {
            AddressMode::Other(c) => Some(format!("address mode {c} (cube or mirror-once)")),
            _ => None,
        })
    }

    /// The texel index a nearest sample reads along an axis of `size` texels at
    /// coordinate `c` (f32 bits), or `None` for the border: floor of the coordinate
    /// (times the size when normalized, an f32 multiply; NaN as 0), then the address mode.
    pub fn texel_index(&self, axis: usize, c: u32, size: u32, off: i32) -> Option<u32> {
        let f = f32::from_bits(c);
        let x = if self.normalized { f * size as f32 } else { f };
        // NaN as 0; clamped into i32 first (so the GPU's i32 arithmetic is the same),
        // then moved by the texel offset, saturating.
        let x = if x.is_nan() { 0.0 } else { x.floor() };
        let i = (x.clamp(-2147483648.0, 2147483520.0) as i32).saturating_add(off) as i64;
        self.address_index(axis, i, size as i64)
    }
}

/// A sample position `x` (texels, f32) as OpenCL's i0 = floor(x - 0.5) and the
/// fraction of x - 0.5 in 1/256 (rounded to nearest even), each step exact in f32 so
/// the GPU (shaders/image.wgsl `img_snap`) computes the same: NaN as 0, x clamped so
/// i0 and i0 + 1 fit in i32.
pub fn snap_position(x: f32) -> (i64, u32) {
    let x = if x.is_nan() { 0.0 } else { x };
    let x = x.clamp(-2147483520.0, 2147483392.0);
    let fl = x.floor();
    // fr * 256 is exact; round(fr * 256 - 128) = round(fr * 256) - 128 (128 is even).
    let q = ((x - fl) * 256.0).round_ties_even() as i64 - 128;
    let i0 = fl as i64 + if q < 0 { -1 } else { 0 };
    (i0, q.rem_euclid(256) as u32)
}

/// The taps of a linear sample (`SamplerState::linear_taps`): `len` texels (2, 4 or 8)
/// with integer weights summing to `1 << shift`; `None` reads the border color.
/// Blending (`blend`) multiplies each f32 channel by its weight and sums in f64 in tap
/// order: the products are exact there (24 + 25 bits), so a fused multiply-add gives
/// the same sum on every device, and the one rounding to f32 comes last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearTaps {
    pub len: usize,
    pub shift: u32,
    pub taps: [(Option<[u32; 3]>, u32); 8],
}

impl LinearTaps {
    /// The filtered value from each tap's register-form texel (f32 bits per channel).
    pub fn blend(&self, texels: &[[u32; 4]]) -> [u32; 4] {
        let mut out = [0u32; 4];
        for (c, slot) in out.iter_mut().enumerate() {
            let mut acc = 0.0f64;
            for (t, &(_, w)) in texels.iter().zip(&self.taps[..self.len]) {
                acc += w as f64 * f32::from_bits(t[c]) as f64;
            }
            let scaled = acc / (1u64 << self.shift) as f64;
            *slot = (scaled as f32).to_bits();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_the_tables() {
        use ChannelType::*;
        assert_eq!(f32::from_bits(UnormInt8.load(255)), 1.0);
        assert_eq!(f32::from_bits(UnormInt8.load(51)), 0.2);
        assert_eq!(f32::from_bits(SnormInt8.load(0x80)), -1.0);
        assert_eq!(UnormInt8.store(0.5f32.to_bits()), 128); // 127.5 -> even
        assert_eq!(UnormInt8.store((-3.0f32).to_bits()), 0);
        assert_eq!(UnormInt8.store(f32::NAN.to_bits()), 0);
        assert_eq!(SnormInt8.store((-2.0f32).to_bits()), 0x81);
        assert_eq!(SignedInt8.store(-1000i32 as u32), 0x80);
        assert_eq!(UnsignedInt16.store(70000), 0xffff);
        assert_eq!(SignedInt16.load(0x8000), -32768i32 as u32);
        assert_eq!(HalfFloat.store(1.0f32.to_bits()), 0x3c00);
        assert_eq!(Float.one(), 1.0f32.to_bits());
        assert_eq!(UnsignedInt8.one(), 1);
    }

    #[test]
    fn linear_taps_follow_the_opencl_formula_on_the_subtexel_grid() {
        let d = ImageDesc {
            dims: 2,
            array: false,
            width: 4,
            height: 2,
            depth: 1,
            order: ChannelOrder::R,
            ty: ChannelType::Float,
        };
        // Unnormalized, clamp to edge: u = 1.75 -> i0 = 1, a = 0.25; v = 0.25 ->
        // i0 = -1 (clamped to 0), b = 0.75.
        let edge = SamplerState::from_words([0, 2 << 6 | 2 << 3 | 1 << 10]);
        let t = edge.linear_taps(&d, [1.75f32.to_bits(), 0.25f32.to_bits(), 0], [0; 3]);
        assert_eq!((t.len, t.shift), (4, 16));
        let w: Vec<_> = t.taps[..4]
            .iter()
            .map(|&(at, w)| (at.unwrap(), w))
            .collect();
        assert_eq!(
            w,
            [
                ([1, 0, 0], 192 * 64),
                ([2, 0, 0], 64 * 64),
                ([1, 0, 0], 192 * 192),
                ([2, 0, 0], 64 * 192)
            ]
        );
        let texels = [
            [1.0f32.to_bits(); 4],
            [2.0f32.to_bits(); 4],
            [1.0f32.to_bits(); 4],
            [2.0f32.to_bits(); 4],
        ];
        assert_eq!(f32::from_bits(t.blend(&texels)[0]), 1.25);
        // Border: the taps left of the image read the border color.
        let border = SamplerState::from_words([0, 4 << 6 | 4 << 3 | 1 << 10]);
        let t = border.linear_taps(&d, [0.25f32.to_bits(), 1.0f32.to_bits(), 0], [0; 3]);
        // u = 0.25 -> i0 = -1 (border), a = 0.75; v = 1.0 -> i0 = 0, b = 0.5.
        assert_eq!(t.taps[0], (None, 64 * 128));
        assert_eq!(t.taps[1], (Some([0, 0, 0]), 192 * 128));
        assert_eq!(t.taps[2], (None, 64 * 128));
        assert_eq!(t.taps[3], (Some([0, 1, 0]), 192 * 128));
        // Off the grid, the position snaps to the nearest 1/256 (ties to even).
        assert_eq!(snap_position(0.5 + 1.0 / 512.0), (0, 0));
        assert_eq!(snap_position(0.5 + 3.0 / 512.0), (0, 2));
        assert_eq!(snap_position(0.5 - 1.0 / 1024.0), (0, 0));
        assert_eq!(snap_position(-0.25), (-1, 64));
        assert_eq!(snap_position(f32::NAN), (-1, 128));
    }

    #[test]
    fn norm16_loads_are_correctly_rounded_with_or_without_a_division() {
        // The exact quotient rounded by integers, q = round_even(x * 2^k / d) with 24
        // significant bits, against both f64 forms.
        let exact = |x: i64, d: i64| -> f32 {
            if x == 0 {
                return 0.0;
            }
            let (neg, x) = (x < 0, x.abs());
            // Scale so the quotient's integer part has 24 bits, then round by hand.
            let mut k = 0;
            while (x << k) / d < (1 << 23) {
                k += 1;
            }
            let n = (x as i128) << k;
            let (q, r) = (n / d as i128, n % d as i128);
            let q = if 2 * r > d as i128 || (2 * r == d as i128 && q & 1 == 1) {
                q + 1
            } else {
                q
            };
            let v = q as f64 / (1u64 << k) as f64;
            (if neg { -v } else { v }) as f32
        };
        for x in 0..=0xffffu32 {
            let want = exact(x as i64, 65535);
            assert_eq!(
                ChannelType::UnormInt16.load(x),
                want.to_bits(),
                "unorm16 {x}"
            );
            assert_eq!(
                norm16_division_free(x as i32, false).to_bits(),
                want.to_bits()
            );
            let sx = x as u16 as i16 as i64;
            let want = exact(sx, 32767).max(-1.0);
            assert_eq!(
                ChannelType::SnormInt16.load(x),
                want.to_bits(),
                "snorm16 {sx}"
            );
            assert_eq!(
                norm16_division_free(sx as i32, true).to_bits(),
                want.to_bits()
            );
        }
        assert_eq!(ChannelType::UnormInt16.store(0.5f32.to_bits()), 32768); // 32767.5 -> even
        assert_eq!(ChannelType::SnormInt16.store((-2.0f32).to_bits()), 0x8001);
    }

    /// An `_aoffimmi` offset of k texels is a sample k texels on (unnormalized
    /// coordinates, where adding k is exact), for nearest and linear samples in every
    /// address mode; an array's layer takes none; i32's ends saturate.
    #[test]
    fn texel_offsets_are_whole_texel_moves() {
        let d = |dims: u32, array: bool| ImageDesc {
            dims,
            array,
            width: 5,
            height: 4,
            depth: 3,
            order: ChannelOrder::R,
            ty: ChannelType::Float,
        };
        for mode in [0u32, 1, 2, 4] {
            let s = SamplerState::from_words([0, mode << 6 | mode << 3 | mode | 1 << 10]);
            for k in -8..=7 {
                for q in -40..=40 {
                    let x = q as f32 * 0.375;
                    let c = [x.to_bits(), (x * 0.5).to_bits(), 1.0f32.to_bits()];
                    let moved = [
                        (x + k as f32).to_bits(),
                        (x * 0.5 - k as f32).to_bits(),
                        c[2],
                    ];
                    let off = [k, -k, 0];
                    assert_eq!(
                        s.texel(&d(2, false), c, off),
                        s.texel(&d(2, false), moved, [0; 3])
                    );
                    let (a, b) = (
                        s.linear_taps(&d(2, false), c, off),
                        s.linear_taps(&d(2, false), moved, [0; 3]),
                    );
                    assert_eq!(a.taps, b.taps, "mode {mode} x {x} k {k}");
                    // The layer of a 2D array ignores V's offset.
                    let layered = s.texel(&d(2, true), [c[0], c[1], 0], [0, 7, 0]);
                    assert_eq!(layered, s.texel(&d(2, true), [c[0], c[1], 0], [0; 3]));
                }
            }
        }
        let clamp = SamplerState::from_words([0, 2 << 6 | 1 << 10]);
        assert_eq!(clamp.texel_index(0, (-3e38f32).to_bits(), 16, -8), Some(0));
        assert_eq!(clamp.texel_index(0, 3e38f32.to_bits(), 16, 7), Some(15));
    }

    #[test]
    fn sampler_states_decode_and_address() {
        // IGC's state for CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
        // CLK_FILTER_NEAREST (tests/data/sampler_read.cl): DW0 0x00100000, DW3 0x1c92.
        let s = SamplerState::from_words([0x0010_0000, 0x1c92]);
        assert!(!s.normalized && !s.linear && s.unsupported().is_none());
        assert_eq!(s.address, [AddressMode::Clamp; 3]);
        assert_eq!(s.texel_index(0, (-3.5f32).to_bits(), 16, 0), Some(0));
        assert_eq!(s.texel_index(0, 99.0f32.to_bits(), 16, 0), Some(15));
        let wrap = SamplerState::from_words([0, 0]);
        assert!(wrap.normalized);
        assert_eq!(
            wrap.texel_index(0, (-1.0f32 / 32.0).to_bits(), 16, 0),
            Some(15)
        );
        let mirror = SamplerState::from_words([0, 1 << 6]);
        assert_eq!(
            mirror.texel_index(0, (33.0f32 / 32.0).to_bits(), 16, 0),
            Some(15)
        );
        let border = SamplerState::from_words([0, 4 << 6 | 1 << 10]);
        assert_eq!(border.texel_index(0, 16.0f32.to_bits(), 16, 0), None);
        assert_eq!(border.texel_index(0, f32::NAN.to_bits(), 16, 0), Some(0));
        // Sampler arguments: the CLK_* bits.
        let m = SamplerState::from_clk(0x19).unwrap();
        assert!(m.normalized && !m.linear && m.address == [AddressMode::Mirror; 3]);
        assert_eq!(
            SamplerState::from_clk(0x12).unwrap().address[0],
            AddressMode::Clamp
        );
        assert!(SamplerState::from_clk(0x14).unwrap().address[1] == AddressMode::Border);
        let linear = SamplerState::from_clk(0x22).unwrap();
        assert!(linear.linear && linear.unsupported().is_none());
        assert_eq!(linear.code() >> 25, 1);
        assert!(SamplerState::from_clk(0x0a).is_err() && SamplerState::from_clk(0x11).is_ok());
        assert!(SamplerState::from_clk(0x1e).is_err());
        // Array layers: rint (ties to even), clamped, NaN 0.
        let layers: Vec<u32> = [-0.5f32, 0.5, 1.5, 2.5, 7.0, f32::NAN]
            .iter()
            .map(|c| layer_index(c.to_bits(), 3))
            .collect();
        assert_eq!(layers, [0, 0, 2, 2, 2, 0]);
        let linear = SamplerState::from_words([1 << 14, 0]);
        assert!(linear.linear && linear.unsupported().is_none());
        let cube = SamplerState::from_words([0, 3 << 6]);
        assert!(cube.unsupported().unwrap().contains("cube"));
    }

    #[test]
    fn texel_offsets_and_bounds() {
        let d = ImageDesc {
            dims: 2,
            array: false,
            width: 3,
            height: 2,
            depth: 1,
            order: ChannelOrder::RGBA,
            ty: ChannelType::UnormInt8,
        };
        assert_eq!(d.texel_offset(2, 1, 7), Some(20));
        assert_eq!(d.texel_offset(3, 0, 0), None);
        assert_eq!(d.texel_offset(u32::MAX, 0, 0), None);
        assert_eq!(ChannelOrder::BGRA.position(0), Some(2));
        assert_eq!(ChannelOrder::R.position(3), None);
    }
}
