//! The 32-bit form of integer ALU elements (`translate/narrow.rs`) against the general
//! extended-precision form, side by side on the adapter (lavapipe in CI): every
//! operation it takes, every source type and modifier, several destination types, on
//! edge values (sign bits, type limits, shift counts past 31). Both must give the same
//! destination bits. Fails, never skips, without an adapter.

use visa_emu::ir::{DataType, Modifier};
use visa_emu::isa::Opcode;
use visa_emu::translate::{element_forms, runtime_function, Elem};
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, GpuOptions, JobBuffer};

const EDGES: [u32; 24] = [
    0,
    1,
    2,
    31,
    32,
    33,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0x8001,
    0xffff,
    0x10000,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0x1234_5678,
    0xdead_beef,
    0xffff_8000,
    0xffff_ff80,
];

/// Input triples: every edge value in each position against a spread of others.
fn triples() -> Vec<[u32; 3]> {
    let n = EDGES.len();
    (0..n * 4)
        .map(|k| {
            let i = k % n;
            [
                EDGES[i],
                EDGES[(i * 7 + k / n * 5 + 3) % n],
                EDGES[(i * 11 + k / n * 3 + 1) % n],
            ]
        })
        .collect()
}

fn mask(t: DataType) -> u64 {
    (1u64 << (8 * t.size())) - 1
}

struct Combo {
    op: Opcode,
    dty: DataType,
    srcs: Vec<(DataType, Modifier)>,
    ints: Vec<u64>,
}

/// Run each combination's two forms on every triple; returns (narrow, general) pairs
/// per combination and triple, and the combinations that have a 32-bit form.
fn run(combos: &[Combo]) -> Vec<(usize, [u32; 3], u64, u64)> {
    let ts = triples();
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read> inp: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n",
    ));
    for f in ["sext", "rel_i", "imm"] {
        wgsl += runtime_function(f).unwrap_or_else(|| panic!("runtime has no fn {f}"));
        wgsl += "\n";
    }
    wgsl +=
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n";
    wgsl += &format!(
        "    let i = gid.x;\n    if (i >= {}u) {{ return; }}\n    let cr = 0u;\n    let md = 0u;\n",
        ts.len()
    );
    let mut taken = Vec::new();
    for (k, c) in combos.iter().enumerate() {
        let elems: Vec<Elem> = c
            .srcs
            .iter()
            .enumerate()
            .map(|(j, &(ty, m))| Elem {
                raw: format!("s{j}"),
                ty,
                m,
            })
            .collect();
        let (narrow, general) = element_forms(c.op, c.dty, false, &elems, &c.ints)
            .unwrap_or_else(|e| panic!("{:?}: {e}", c.op));
        let Some(narrow) = narrow else { continue };
        let slot = taken.len();
        taken.push(k);
        wgsl += "    {\n";
        for (j, &(ty, _)) in c.srcs.iter().enumerate() {
            wgsl += &format!(
                "        let s{j} = u64(inp[3u * i + {j}u]) & {}lu;\n",
                mask(ty)
            );
        }
        wgsl += &format!("        let a = {narrow};\n        let b = {general};\n");
        wgsl += &format!(
            "        let o = ({slot}u * {}u + i) * 4u;\n        out[o] = u32(a & 0xfffffffflu); out[o + 1u] = u32(a >> 32u);\n        out[o + 2u] = u32(b & 0xfffffffflu); out[o + 3u] = u32(b >> 32u);\n    }}\n",
            ts.len()
        );
    }
    wgsl += "}\n";
    let input: Vec<u8> = ts.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    let out_len = (taken.len() * ts.len() * 16).max(16);
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let r = gpu
        .run(&ComputeJob {
            key: visa_emu::backend::gpu::hash(&wgsl),
            wgsl,
            entry_point: "main".into(),
            buffers: vec![
                JobBuffer {
                    size: input.len() as u64,
                    data: input,
                    usage: BufferUse::ReadOnly,
                    readback: false,
                },
                JobBuffer {
                    size: out_len as u64,
                    data: vec![0; out_len],
                    usage: BufferUse::ReadWrite,
                    readback: true,
                },
            ],
            workgroups: [(ts.len() as u32).div_ceil(64), 1, 1],
            chunk_base_binding: None,
            repeat: None,
        })
        .unwrap();
    let words: Vec<u32> = r.outputs[1]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut rows = Vec::new();
    for (slot, &k) in taken.iter().enumerate() {
        for (i, t) in ts.iter().enumerate() {
            let o = (slot * ts.len() + i) * 4;
            let a = u64::from(words[o]) | u64::from(words[o + 1]) << 32;
            let b = u64::from(words[o + 2]) | u64::from(words[o + 3]) << 32;
            rows.push((k, *t, a, b));
        }
    }
    rows
}

const TYPES: [DataType; 6] = [
    DataType::B,
    DataType::UB,
    DataType::W,
    DataType::UW,
    DataType::D,
    DataType::UD,
];
const MODS: [Modifier; 5] = [
    Modifier::None,
    Modifier::Neg,
    Modifier::Abs,
    Modifier::NegAbs,
    Modifier::Not,
];

/// Every (type, modifier) of the first source against a rotating second and third.
fn combos_of(op: Opcode, arity: usize, ints: &[u64], dsts: &[DataType]) -> Vec<Combo> {
    let mut v = Vec::new();
    let mut k = 0usize;
    for &t0 in &TYPES {
        for &m0 in &MODS {
            let pick = |j: usize| (TYPES[(k + j * 5) % 6], MODS[(k * 3 + j) % 5]);
            let mut srcs = vec![(t0, m0)];
            for j in 1..arity {
                srcs.push(pick(j));
            }
            v.push(Combo {
                op,
                dty: dsts[k % dsts.len()],
                srcs,
                ints: ints.to_vec(),
            });
            k += 1;
        }
    }
    v
}

#[test]
fn narrow_and_general_forms_agree_on_the_adapter() {
    use Opcode::*;
    let dsts = [DataType::D, DataType::UD, DataType::W, DataType::UB];
    let mut combos = Vec::new();
    for (op, arity) in [
        (Mov, 1),
        (Add, 2),
        (Add3, 3),
        (Mul, 2),
        (Mad, 3),
        (And, 2),
        (Or, 2),
        (Xor, 2),
        (Not, 1),
        (Shl, 2),
        (Shr, 2),
        (Asr, 2),
    ] {
        combos.extend(combos_of(op, arity, &[], &dsts));
    }
    for rel in 0..6 {
        combos.extend(combos_of(Cmp, 2, &[rel], &[DataType::UD]));
    }
    for mm in 0..2 {
        combos.extend(combos_of(MinMax, 2, &[mm], &dsts));
    }
    let rows = run(&combos);
    let covered: std::collections::BTreeSet<usize> = rows.iter().map(|r| r.0).collect();
    // The forms exist where they should: all plain 32-bit adds, shifts and compares.
    for (k, c) in combos.iter().enumerate() {
        let plain = c
            .srcs
            .iter()
            .all(|&(t, m)| t == DataType::D && m == Modifier::None);
        if plain {
            assert!(
                covered.contains(&k),
                "{:?} {:?} has no 32-bit form",
                c.op,
                c.srcs
            );
        }
    }
    assert!(
        covered.len() * 2 > combos.len(),
        "only {} of {} combinations took the 32-bit form",
        covered.len(),
        combos.len()
    );
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| r.2 != r.3)
        .take(10)
        .map(|&(k, t, a, b)| {
            let c = &combos[k];
            format!(
                "{:?} -> {:?} srcs {:?} ints {:?} on {t:08x?}: 32-bit form {a:#x}, general {b:#x}",
                c.op, c.dty, c.srcs, c.ints
            )
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
