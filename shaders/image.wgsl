// Images for typed messages (3D_LOAD ld/ld_lz, 3D_SAMPLE sample_lz/sample_l with nearest
// or linear filtering, GATHER4_TYPED, SCATTER4_TYPED, MEDIA_LD/MEDIA_ST): the
// WGSL twin of `abi::image` and `Memory::texel_read/texel_write`. An image is a packed
// texel array in its binding-table surface; `cfg[CFG_IMAGES]` points at 512 words of
// conversion tables (x / 255 and max(x / 127, -1) as f32 bits, computed exactly on the
// host), then 256 words: the image entry of each binding-table index (NO_WORD: none),
// then 6 words per image (its entry): bti, dims (| 0x100 for an array), width, height,
// depth, channel type | order << 8 | channel bytes << 16. Appended to the runtime only
// for kernels with typed messages.

const CFG_IMAGES: u32 = 13u;      // word offset of the tables (0: no image bound)
const CFG_NIMAGES: u32 = 14u;
const ERR_NOT_IMAGE: u32 = 7u;    // a typed message on a surface that holds no image
const CFG_SAMPLERS: u32 = 15u;    // word offset of the sampler table: count, then a code each
const ERR_SAMPLER: u32 = 8u;      // a sample through a sampler the emulator cannot reproduce
const ERR_LINEAR_INT: u32 = 9u;   // linear filtering of an integer image
const ERR_IMAGE_ATOMIC: u32 = 12u; // a typed atomic on an image whose format takes none
const ERR_GATHER4_DIMS: u32 = 14u; // gather4 on an image without two filtered axes

// Channel types (`ChannelType` in src/abi/image.rs, in declaration order).
const CT_SNORM8: u32 = 0u;
const CT_UNORM8: u32 = 1u;
const CT_SINT8: u32 = 2u;
const CT_SINT16: u32 = 3u;
const CT_SINT32: u32 = 4u;
const CT_UINT8: u32 = 5u;
const CT_UINT16: u32 = 6u;
const CT_UINT32: u32 = 7u;
const CT_HALF: u32 = 8u;
const CT_FLOAT: u32 = 9u;
const CT_UNORM16: u32 = 10u;
const CT_SNORM16: u32 = 11u;

// The image entry (word index) of binding-table index `bti`, or NO_WORD: one read of
// the per-index table, not a search of the images (llvmpipe compiles every loop, and
// every typed access ran this one).
fn img_find(bti: u32) -> u32 {
    let t = cfg[CFG_IMAGES];
    return select(NO_WORD, cfg[t + 512u + min(bti, 255u)], t != 0u && bti < 256u);
}

// Byte offset of texel (u, v, r) in image `e`, or NO_WORD outside it; coordinates are
// signed, those the image lacks ignored.
fn img_texel(e: u32, u: u32, v: u32, r: u32) -> u32 {
    let dims = cfg[e + 1u] & 0xffu;
    let w = cfg[e + 2u];
    let h = cfg[e + 3u];
    let d = cfg[e + 4u];
    let vv = select(0u, v, dims >= 2u);
    let rr = select(0u, r, dims >= 3u);
    let inside = i32(u) >= 0 && u < w && i32(vv) >= 0 && vv < h && i32(rr) >= 0 && rr < d;
    let tb = (cfg[e + 5u] >> 16u) * img_channels((cfg[e + 5u] >> 8u) & 0xffu);
    return select(NO_WORD, ((rr * h + vv) * w + u) * tb, inside);
}

// Channels of an order (R, RG, RGBA, BGRA).
fn img_channels(order: u32) -> u32 {
    return select(select(4u, 2u, order == 1u), 1u, order == 0u);
}

// The stored position of register channel c (0..3) in a texel of `order`, or 4u if
// the order lacks it.
fn img_position(order: u32, c: u32) -> u32 {
    if (order == 3u && c != 1u && c != 3u) { return 2u - c; }
    return select(4u, c, c < img_channels(order));
}

// A stored channel as its 32-bit register value.
fn img_load(ty: u32, raw: u32) -> u32 {
    let t = cfg[CFG_IMAGES];
    switch ty {
        case CT_UNORM8: { return cfg[t + (raw & 0xffu)]; }
        case CT_SNORM8: { return cfg[t + 256u + (raw & 0xffu)]; }
        case CT_HALF: { return bitcast<u32>(hf2f(raw & 0xffffu)); }
        case CT_UNORM16: { return img_norm16(i32(raw & 0xffffu), false); }
        case CT_SNORM16: { return img_norm16(i32(raw << 16u) >> 16u, true); }
        case CT_SINT8: { return u32((i32(raw << 24u)) >> 24u); }
        case CT_SINT16: { return u32((i32(raw << 16u)) >> 16u); }
        case CT_UINT8: { return raw & 0xffu; }
        case CT_UINT16: { return raw & 0xffffu; }
        default: { return raw; }
    }
}

// x / 65535 (signed: max(x / 32767, -1)) correctly rounded to f32, without a division
// (`abi::image::norm16_division_free`): y = x * 65537 (x * 32769) over 2^32 - 1
// (2^30 - 1) is y·2^-32 + y·2^-64 + ..., whose first two terms are exact in f64.
fn img_norm16(x: i32, signed: bool) -> u32 {
    let y = f64(x) * select(65537.0lf, 32769.0lf, signed);
    let v = y * select(2.3283064365386963e-10lf, 9.313225746154785e-10lf, signed)
        + y * select(5.421010862427522e-20lf, 8.673617379884035e-19lf, signed);
    return bitcast<u32>(f32(select(v, max(v, -1.0lf), signed)));
}

// A register value as the stored channel (SCATTER4_TYPED's conversion table).
fn img_store(ty: u32, v: u32) -> u32 {
    let f = bitcast<f32>(v);
    let nan = (v & 0x7fffffffu) > 0x7f800000u;
    switch ty {
        case CT_UNORM8: { return select(u32(round(clamp(f, 0.0, 1.0) * 255.0)), 0u, nan); }
        case CT_SNORM8: {
            return select(u32(i32(round(clamp(f, -1.0, 1.0) * 127.0))) & 0xffu, 0u, nan);
        }
        case CT_HALF: { return f2hf(f); }
        case CT_UNORM16: { return select(u32(round(clamp(f, 0.0, 1.0) * 65535.0)), 0u, nan); }
        case CT_SNORM16: {
            return select(u32(i32(round(clamp(f, -1.0, 1.0) * 32767.0))) & 0xffffu, 0u, nan);
        }
        case CT_SINT8: { return u32(clamp(i32(v), -128, 127)) & 0xffu; }
        case CT_SINT16: { return u32(clamp(i32(v), -32768, 32767)) & 0xffffu; }
        case CT_UINT8: { return min(v, 0xffu); }
        case CT_UINT16: { return min(v, 0xffffu); }
        default: { return v; }
    }
}

// A missing alpha channel: 1.0 for float and normalized types, else 1.
fn img_one(ty: u32) -> u32 {
    return select(1u, 0x3f800000u, ty <= CT_UNORM8 || ty >= CT_HALF);
}

// The texel index a nearest sample reads along `axis` of `n` texels at coordinate bits
// `c` (`SamplerState::texel_index`): floor of the coordinate (times n when normalized;
// NaN as 0), clamped into i32, then the axis' address mode; NO_WORD for the border.
// `o` is the `_aoffimmi` texel offset, added saturating (`img_off`).
fn img_axis(code: u32, axis: u32, c: u32, n: u32, o: i32) -> u32 {
    let f = bitcast<f32>(c);
    var x = select(f, f * f32(n), (code & 0x1000000u) != 0u);
    if ((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u) { x = 0.0; }
    return img_wrap(code, axis, img_off(i32(clamp(floor(x), -2147483648.0, 2147483520.0)), o), n);
}

// i + o saturated to i32 (Rust's `saturating_add`; WGSL's i32 addition wraps).
fn img_off(i: i32, o: i32) -> i32 {
    let s = i + o;
    if (o > 0 && s < i) { return 2147483647; }
    if (o < 0 && s > i) { return -2147483647 - 1; }
    return s;
}

// The layer of an image array a sample reads: round to nearest even, NaN as 0, clamped.
fn img_layer(c: u32, n: u32) -> u32 {
    var f = bitcast<f32>(c);
    if ((c & 0x7fffffffu) > 0x7f800000u) { f = 0.0; }
    return u32(clamp(round(f), 0.0, f32(n - 1u)));
}

// The state word of the kernel's sampler `sidx` (`SamplerState::code`), or NO_WORD
// (reported as ERR_SAMPLER) when the launch gives no such sampler.
fn img_sampler_code(sidx: u32, at: u32) -> u32 {
    let st = cfg[CFG_SAMPLERS];
    if (st == 0u || sidx >= cfg[st] || cfg[st + 1u + sidx] == 0xffffffffu) {
        fail(ERR_SAMPLER, at);
        return NO_WORD;
    }
    return cfg[st + 1u + sidx];
}

// OpenCL's border color of an image whose format word is `f` (`ImageDesc::border`):
// zero, with a missing alpha channel 1.
fn img_border(f: u32) -> vec4<u32> {
    let alpha = ((f >> 8u) & 0xffu) >= 2u;
    return vec4<u32>(0u, 0u, 0u, select(img_one(f & 0xffu), 0u, alpha));
}

// A nearest sample through sampler `sidx` at coordinates (u, v, r) (f32 bits) of the
// image at `bti`: the addressed texel, or OpenCL's border color.
// `off`: the `_aoffimmi` texel offsets (an array's layer takes none).
fn img_sample(bti: u32, sidx: u32, u: u32, v: u32, r: u32, off: vec3<i32>, at: u32) -> vec4<u32> {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return vec4<u32>(0u); }
    let code = img_sampler_code(sidx, at);
    if (code == NO_WORD) { return vec4<u32>(0u); }
    if ((code & 0x2000000u) != 0u) { return img_sample_linear(bti, e, code, u, v, r, off, at); }
    let dims = cfg[e + 1u] & 0xffu;
    let array = (cfg[e + 1u] & 0x100u) != 0u;
    let x = img_axis(code, 0u, u, cfg[e + 2u], off.x);
    var y = select(0u, img_axis(code, 1u, v, cfg[e + 3u], off.y), dims >= 2u);
    var z = select(0u, img_axis(code, 2u, r, cfg[e + 4u], off.z), dims >= 3u);
    // An array's layer: rint, clamped (`abi::image::layer_index`).
    if (array && dims == 2u) { y = img_layer(v, cfg[e + 3u]); }
    if (array && dims == 3u) { z = img_layer(r, cfg[e + 4u]); }
    if (x == NO_WORD || y == NO_WORD || z == NO_WORD) {
        let f = cfg[e + 5u];
        return img_border(f);
    }
    return img_read(bti, x, y, z, 0u, at);
}

// A sample position x (texels) as OpenCL's i0 = floor(x - 0.5) and the fraction of
// x - 0.5 in 1/256, rounded to nearest even (`abi::image::snap_position`; every step
// is exact in f32): vec2(i0, frac) with i0 as i32 bits.
fn img_snap(x0: f32) -> vec2<u32> {
    var x = x0;
    if ((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u) { x = 0.0; }
    x = clamp(x, -2147483520.0, 2147483392.0);
    let fl = floor(x);
    let q = i32(round((x - fl) * 256.0)) - 128;
    let i0 = i32(fl) + select(0, -1, q < 0);
    return vec2<u32>(u32(i0), u32(q + select(0, 256, q < 0)));
}

// Integer texel index i along `axis` (n texels) through the address mode of `code`;
// NO_WORD for the border (`SamplerState::address_index`).
fn img_wrap(code: u32, axis: u32, i: i32, n: u32) -> u32 {
    let mode = (code >> (8u * axis)) & 0xffu;
    let ni = i32(n);
    switch mode {
        case 0u: { return u32(((i % ni) + ni) % ni); }
        case 1u: {
            let m = ((i % (2 * ni)) + 2 * ni) % (2 * ni);
            return u32(select(m, 2 * ni - 1 - m, m >= ni));
        }
        case 2u: { return u32(clamp(i, 0, ni - 1)); }
        default: { return select(NO_WORD, u32(i), i >= 0 && i < ni); }
    }
}

// Along `axis` (n texels) at coordinate c (f32 bits, normalized when `code` says so):
// the two texel indices a linear sample blends (NO_WORD: the border) and the second's
// weight in 1/256 (`SamplerState::linear_taps`).
// `o`: the `_aoffimmi` texel offset, moving both indices (saturating).
fn img_taps(code: u32, axis: u32, c: u32, n: u32, o: i32) -> vec3<u32> {
    let x = select(bitcast<f32>(c), bitcast<f32>(c) * f32(n), (code & 0x1000000u) != 0u);
    let s = img_snap(x);
    let i0 = img_off(i32(s.x), o);
    return vec3<u32>(img_wrap(code, axis, i0, n), img_wrap(code, axis, img_off(i0, 1), n), s.y);
}

// A linear sample (`SamplerState::linear_taps` and `LinearTaps::blend`): the 2, 4 or 8
// taps around the snapped position, each through the address mode (the border color
// outside), weighted by integers summing to 256^axes; f32 channels times weights are
// exact in f64, summed in tap order, scaled by a power of two and rounded once to f32.
fn img_sample_linear(bti: u32, e: u32, code: u32, u: u32, v: u32, r: u32, off: vec3<i32>, at: u32) -> vec4<u32> {
    let f = cfg[e + 5u];
    let ty = f & 0xffu;
    if (!(ty <= CT_UNORM8 || ty >= CT_HALF)) { fail(ERR_LINEAR_INT, at); return vec4<u32>(0u); }
    let dims = cfg[e + 1u] & 0xffu;
    let array = (cfg[e + 1u] & 0x100u) != 0u;
    let axes = dims - select(0u, 1u, array);
    let c = vec3<u32>(u, v, r);
    let size = vec3<u32>(cfg[e + 2u], cfg[e + 3u], cfg[e + 4u]);
    var i0 = vec3<u32>(0u);
    var i1 = vec3<u32>(0u);
    var fr = vec3<u32>(0u);
    // loop-bound: 3
    for (var a = 0u; a < dims; a++) {
        if (a >= axes) {
            i0[a] = img_layer(c[a], size[a]);
            i1[a] = i0[a];
            continue;
        }
        let t = img_taps(code, a, c[a], size[a], off[a]);
        i0[a] = t.x;
        i1[a] = t.y;
        fr[a] = t.z;
    }
    let border = img_border(f);
    // Scalar f64 sums (the 64-bit lowering rewrites scalars, not f64 vectors).
    var a0 = 0.0lf;
    var a1 = 0.0lf;
    var a2 = 0.0lf;
    var a3 = 0.0lf;
    // loop-bound: 8
    for (var k = 0u; k < (1u << axes); k++) {
        var t = vec3<u32>(0u);
        var w = 1u;
        var inside = true;
        for (var a = 0u; a < 3u; a++) {
            let second = ((k >> a) & 1u) == 1u;
            t[a] = select(i0[a], i1[a], second);
            if (a < axes) {
                w = w * select(256u - fr[a], fr[a], second);
                inside = inside && t[a] != NO_WORD;
            }
        }
        var texel = border;
        if (inside) { texel = img_read(bti, t.x, t.y, t.z, 0u, at); }
        let fw = f64(w);
        a0 = a0 + fw * f64(bitcast<f32>(texel.x));
        a1 = a1 + fw * f64(bitcast<f32>(texel.y));
        a2 = a2 + fw * f64(bitcast<f32>(texel.z));
        a3 = a3 + fw * f64(bitcast<f32>(texel.w));
    }
    let scale = select(select(1.0lf / 16777216.0lf, 1.0lf / 65536.0lf, axes == 2u), 1.0lf / 256.0lf, axes == 1u);
    return vec4<u32>(img_f32(a0 * scale), img_f32(a1 * scale), img_f32(a2 * scale), img_f32(a3 * scale));
}

// gather4 (`Memory::texel_gather4`): channel `ch` of the four texels a bilinear sample
// at (u, v) would blend, whatever the sampler's filter, as R = (i0, j1), G = (i1, j1),
// B = (i1, j0), A = (i0, j0); the border color's channel outside under border
// addressing. 2D images and 2D arrays only (the translator's caller refuses others).
fn img_gather4(bti: u32, sidx: u32, u: u32, v: u32, r: u32, off: vec3<i32>, ch: u32, at: u32) -> vec4<u32> {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return vec4<u32>(0u); }
    let code = img_sampler_code(sidx, at);
    if (code == NO_WORD) { return vec4<u32>(0u); }
    let f = cfg[e + 5u];
    let layered = (cfg[e + 1u] & 0x100u) != 0u;
    if ((cfg[e + 1u] & 0xffu) - select(0u, 1u, layered) != 2u) { fail(ERR_GATHER4_DIMS, at); return vec4<u32>(0u); }
    let tu = img_taps(code, 0u, u, cfg[e + 2u], off.x);
    let tv = img_taps(code, 1u, v, cfg[e + 3u], off.y);
    let z = select(0u, img_layer(r, cfg[e + 4u]), layered);
    let border = img_border(f);
    let xs = array<u32, 4>(tu.x, tu.y, tu.y, tu.x);
    let ys = array<u32, 4>(tv.y, tv.y, tv.x, tv.x);
    var out = vec4<u32>(0u);
    for (var k = 0u; k < 4u; k++) {
        var texel = border;
        if (xs[k] != NO_WORD && ys[k] != NO_WORD) { texel = img_read(bti, xs[k], ys[k], z, 0u, at); }
        out[k] = texel[ch];
    }
    return out;
}

fn img_f32(x: f64) -> u32 {
    return bitcast<u32>(f32(x));
}

// Texel (u, v, r) of the image at `bti` in register form (RGBA; missing channels 0,
// alpha 1); zeros outside it or at a mip level past 0.
fn img_read(bti: u32, u: u32, v: u32, r: u32, lod: u32, at: u32) -> vec4<u32> {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return vec4<u32>(0u); }
    let o = img_texel(e, u, v, r);
    if (o == NO_WORD || lod != 0u) { oob_reads += 1u; return vec4<u32>(0u); }
    let f = cfg[e + 5u];
    let ty = f & 0xffu;
    let order = (f >> 8u) & 0xffu;
    let cb = f >> 16u;
    var out = vec4<u32>(0u, 0u, 0u, img_one(ty));
    for (var c = 0u; c < 4u; c++) {
        let p = img_position(order, c);
        if (p < 4u) {
            out[c] = img_load(ty, u32(bti_ld(bti, u64(o + p * cb), cb)));
        }
    }
    return out;
}

// `ld` with `_aoffimmi` texel offsets (`Memory::texel_load`): (u, v, r) moved along the
// image's axes, not an array's layer, wrapping in i32.
fn img_ld(bti: u32, u: u32, v: u32, r: u32, lod: u32, off: vec3<i32>, at: u32) -> vec4<u32> {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return vec4<u32>(0u); }
    let axes = (cfg[e + 1u] & 0xffu) - select(0u, 1u, (cfg[e + 1u] & 0x100u) != 0u);
    var c = vec3<u32>(u, v, r);
    // loop-bound: 3
    for (var a = 0u; a < axes; a++) { c[a] = bitcast<u32>(bitcast<i32>(c[a]) + off[a]); }
    return img_read(bti, c.x, c.y, c.z, lod, at);
}

// LSC load status on a typed surface: whether texel (u, v, r) lies in the image at
// LOD 0 (nothing is read).
fn img_inside(bti: u32, u: u32, v: u32, r: u32, lod: u32, at: u32) -> bool {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return false; }
    return img_texel(e, u, v, r) != NO_WORD && lod == 0u;
}

// Write the channels of `mask` of texel (u, v, r), converted; dropped outside it.
fn img_write(bti: u32, u: u32, v: u32, r: u32, lod: u32, mask: u32, val: vec4<u32>, at: u32) {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return; }
    let o = img_texel(e, u, v, r);
    if (o == NO_WORD || lod != 0u) { oob_writes += 1u; return; }
    let f = cfg[e + 5u];
    let ty = f & 0xffu;
    let order = (f >> 8u) & 0xffu;
    let cb = f >> 16u;
    for (var c = 0u; c < 4u; c++) {
        let p = img_position(order, c);
        if ((mask & (1u << c)) != 0u && p < 4u) {
            bti_st(bti, u64(o + p * cb), cb, u64(img_store(ty, val[c])));
        }
    }
}

// TYPED_ATOMIC `op` (runtime.wgsl's `atomic_apply` codes) of `n` bytes on texel
// (u, v, r) of the image at `bti` (`Thread::typed`): one raw channel (R of a 16- or
// 32-bit unnormalized type, `ImageDesc::atomic_refusal`); outside the image zero back
// and nothing written. The old value.
fn img_atomic(bti: u32, u: u32, v: u32, r: u32, lod: u32, n: u32, op: u32, s0: u64, s1: u64, at: u32) -> u64 {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return 0lu; }
    let f = cfg[e + 5u];
    let ty = f & 0xffu;
    let raw = ty == CT_SINT16 || ty == CT_SINT32 || ty == CT_UINT16 || ty == CT_UINT32
        || ty == CT_HALF || ty == CT_FLOAT;
    if (((f >> 8u) & 0xffu) != 0u || !raw || (f >> 16u) != n) {
        fail(ERR_IMAGE_ATOMIC, at);
        return 0lu;
    }
    let o = img_texel(e, u, v, r);
    if (o == NO_WORD || lod != 0u) { oob_reads += 1u; oob_writes += 1u; return 0lu; }
    return mem_atomic(SP_BTI, bti, u64(o), n, op, s0, s1);
}

// Byte x of row y of the image at `bti` for a media block read (`Memory::media_byte`):
// outside the image the nearest edge texel's byte.
fn img_block_ld(bti: u32, x: i32, y: i32, at: u32) -> u32 {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return 0u; }
    let w = i32(cfg[e + 2u]);
    let h = i32(cfg[e + 3u]);
    let f = cfg[e + 5u];
    let tb = i32((f >> 16u) * img_channels((f >> 8u) & 0xffu));
    let px = select(min(x / tb, w - 1), 0, x < 0);
    let k = ((x % tb) + tb) % tb;
    let row = clamp(y, 0, h - 1);
    return u32(bti_ld(bti, u64(u32((row * w + px) * tb + k)), 1u));
}

// Write byte x of row y of the image at `bti` (media block write); dropped outside it.
fn img_block_st(bti: u32, x: i32, y: i32, v: u32, at: u32) {
    let e = img_find(bti);
    if (e == NO_WORD) { fail(ERR_NOT_IMAGE, at); return; }
    let f = cfg[e + 5u];
    let row_bytes = cfg[e + 2u] * (f >> 16u) * img_channels((f >> 8u) & 0xffu);
    if (x < 0 || y < 0 || u32(x) >= row_bytes || u32(y) >= cfg[e + 3u]) {
        oob_writes += 1u;
        return;
    }
    bti_st(bti, u64(u32(y) * row_bytes + u32(x)), 1u, u64(v & 0xffu));
}
