//! The `.bin` patch-token decoder agrees with the corpus' `abi.json` on every variant,
//! for everything a run depends on; the launch fills every `.input` the vISA declares.

use std::collections::BTreeSet;
use std::path::Path;
use visa_emu::abi::launch::prepare;
use visa_emu::abi::{
    find_kernel, grf_bytes_of_bin, kernel_names, AbiError, ArgKind, ImplicitKind, KernelAbi,
    SurfaceKind,
};
use visa_emu::corpus::case::Case;
use visa_emu::corpus::paths::{default_corpus_dir, grf_bytes_of_device, variant_dirs};

fn grf_of(d: &Path) -> u32 {
    grf_bytes_of_device(&d.file_name().unwrap().to_string_lossy())
}

fn decode(d: &Path) -> (Case, KernelAbi, KernelAbi) {
    let case = Case::load(d.parent().unwrap()).unwrap();
    let json = KernelAbi::load(d).unwrap();
    let bin = KernelAbi::from_bin(d, &case.kernel, grf_of(d))
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    (case, json, bin)
}

/// Every difference between the decoded ABI and `abi.json` that matters for a run.
fn differences(d: &Path, json: &KernelAbi, bin: &KernelAbi) -> Vec<String> {
    let mut why = Vec::new();
    let mut check = |what: &str, same: bool| {
        if !same {
            why.push(what.to_string());
        }
    };
    check("kernel", bin.kernel == json.kernel);
    check("simd", bin.simd == json.simd);
    check("grf", bin.grf_bytes == json.grf_bytes);
    check("slm", bin.slm == json.slm);
    check("scratch", bin.scratch == json.scratch);
    check(
        "local ids",
        bin.per_thread_payload.local_ids == json.per_thread_payload.local_ids,
    );
    check(
        "thread payload flags",
        bin.per_thread_payload.flags == json.per_thread_payload.flags,
    );
    check(
        "cross-thread data",
        bin.cross_thread_data == json.cross_thread_data,
    );
    check(
        "execution environment",
        bin.execution_environment == json.execution_environment,
    );
    check("binding table", bin.binding_table == json.binding_table);
    check(
        "kernel attributes",
        bin.kernel_attributes == json.kernel_attributes,
    );
    check(
        "kernel heap size",
        bin.kernel_heap_size == json.kernel_heap_size,
    );
    check(
        "program header",
        (
            bin.program.icbe_version,
            bin.program.device,
            bin.program.gpu_pointer_size,
        ) == (
            json.program.icbe_version,
            json.program.device,
            json.program.gpu_pointer_size,
        ),
    );
    check("arg count", bin.args.len() == json.args.len());
    for ja in &json.args {
        let Some(ba) = bin.arg(ja.index) else {
            check(&format!("arg {} missing", ja.index), false);
            continue;
        };
        let same = ba.kind == ja.kind
            && ba.name == ja.name
            && ba.type_name == ja.type_name
            && ba.type_size == ja.type_size
            && ba.address_qualifier == ja.address_qualifier
            && ba.access_qualifier == ja.access_qualifier
            && ba.type_qualifier == ja.type_qualifier
            && ba.payload_offset == ja.payload_offset
            && ba.size == ja.size
            && ba.address_space == ja.address_space
            && ba.surface_state_offset == ja.surface_state_offset
            && ba.bti == ja.bti
            && ba.stateful.unwrap_or(false) == ja.stateful.unwrap_or(false)
            && ba.stateless_pointer == ja.stateless_pointer
            && ba.buffer_offset == ja.buffer_offset
            && ba.fragments == ja.fragments
            && ba.slm_offset_slot == ja.slm_offset_slot
            && ba.slm_alignment == ja.slm_alignment;
        check(&format!("arg {} ({})", ja.index, ja.name), same);
    }
    let mut bi = bin.implicit_args.clone();
    let mut ji = json.implicit_args.clone();
    let key = |i: &visa_emu::abi::ImplicitArg| (i.payload_offset, i.kind, i.dim);
    bi.sort_by_key(key);
    ji.sort_by_key(key);
    check("implicit args", bi == ji);
    // Program-scope data: same tokens, and the inline bytes equal the corpus' files.
    let jt: Vec<_> = json
        .program
        .program_patch_tokens
        .iter()
        .map(|t| (t.name.clone(), t.buffer_index, t.inline_data_size))
        .collect();
    let bt: Vec<_> = bin
        .program
        .program_patch_tokens
        .iter()
        .map(|t| (t.name.clone(), t.buffer_index, t.inline_data_size))
        .collect();
    check("program tokens", jt == bt);
    for t in &json.program.program_patch_tokens {
        if let Some(f) = &t.inline_data_file {
            let want = std::fs::read(d.join(f)).unwrap();
            let kind = if t.name.contains("CONSTANT") {
                SurfaceKind::Constant
            } else {
                SurfaceKind::Global
            };
            let got = bin
                .program
                .surfaces
                .iter()
                .find(|s| s.kind == kind && Some(s.index) == t.buffer_index);
            check(
                &format!("surface {f}"),
                got.is_some_and(|s| s.bytes == want),
            );
        }
    }
    why
}

#[test]
fn bin_decoding_matches_abi_json_on_every_variant() {
    let dirs = variant_dirs(&default_corpus_dir()).unwrap();
    assert!(dirs.len() >= 148, "corpus has {} variants", dirs.len());
    let mut failures = Vec::new();
    let mut constant_surfaces = 0;
    for d in &dirs {
        let (_, json, bin) = decode(d);
        constant_surfaces += bin.program.surfaces.len();
        let raw = std::fs::read(d.join("kernel.bin")).unwrap();
        assert_eq!(
            grf_bytes_of_bin(&raw).unwrap(),
            grf_of(d),
            "{}",
            d.display()
        );
        let why = differences(d, &json, &bin);
        if !why.is_empty() {
            failures.push(format!("{}: {}", d.display(), why.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
    // constant_table and the two fp64 cases carry program-scope constants.
    assert!(constant_surfaces >= 4, "{constant_surfaces}");
}

/// `.input NAME offset=N size=M` lines of a `.visaasm`, without a regex.
fn visa_inputs(text: &str) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some(".input") {
            continue;
        }
        let name = words.next().unwrap_or_default().to_string();
        let (mut offset, mut size) = (None, None);
        for w in words {
            if let Some(v) = w.strip_prefix("offset=") {
                offset = v.parse().ok();
            } else if let Some(v) = w.strip_prefix("size=") {
                size = v.parse().ok();
            }
        }
        out.push((name, offset.expect(line), size.expect(line)));
    }
    out
}

#[derive(serde::Deserialize)]
struct JsonInputs {
    visa_inputs: Vec<JsonInput>,
}

#[derive(serde::Deserialize)]
struct JsonInput {
    var: String,
    covers: Vec<String>,
}

#[test]
fn every_visa_input_lies_in_filled_payload_bytes() {
    let dirs = variant_dirs(&default_corpus_dir()).unwrap();
    let mut failures = Vec::new();
    let mut inputs_checked = 0;
    for d in &dirs {
        let (case, _, abi) = decode(d);
        let p = prepare(&abi, &case, d, "tests").unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        let image = p.payload([0, 0, 0], 0).bytes;
        let text = std::fs::read_to_string(d.join("kernel.visaasm")).unwrap();
        let json: JsonInputs =
            serde_json::from_str(&std::fs::read_to_string(d.join("abi.json")).unwrap()).unwrap();
        for (var, offset, size) in visa_inputs(&text) {
            inputs_checked += 1;
            let end = offset + size;
            let over: BTreeSet<String> = p
                .filled
                .iter()
                .filter(|f| f.payload_offset < end && offset < f.payload_offset + f.size)
                .map(|f| f.label.clone())
                .collect();
            let covers: BTreeSet<String> = json
                .visa_inputs
                .iter()
                .find(|j| j.var == var)
                .map(|j| j.covers.iter().cloned().collect())
                .unwrap_or_default();
            if over.is_empty() || end as usize > image.len() || over != covers {
                failures.push(format!(
                    "{} {var} [{offset}, {end}): filled by {over:?}, abi.json says {covers:?}",
                    d.display()
                ));
            }
        }
    }
    assert!(inputs_checked > 1000, "{inputs_checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn payload_places_group_ids_local_ids_and_partial_threads() {
    // ndrange_3d_ids: local size 4x3x2 = 24 items, SIMD32: one thread, 24 lanes.
    let d = default_corpus_dir().join("ndrange_3d_ids/tgllp-simd32");
    let (case, _, abi) = decode(&d);
    let p = prepare(&abi, &case, &d, "tests").unwrap();
    assert_eq!(p.launch.threads_per_group, 1);
    assert_eq!(p.launch.groups, [3, 2, 2]);
    let t = p.payload([2, 1, 1], 0);
    assert_eq!(t.lanes, 24);
    let u32_at = |o: usize| u32::from_le_bytes(t.bytes[o..o + 4].try_into().unwrap());
    assert_eq!((u32_at(4), u32_at(24), u32_at(28)), (2, 1, 1));
    let ids = &abi.per_thread_payload.local_ids;
    let uw = |dim: usize, lane: usize| {
        let o = ids[dim].payload_offset as usize + 2 * lane;
        u16::from_le_bytes([t.bytes[o], t.bytes[o + 1]])
    };
    // Lane 23 is the last item: (3, 2, 1); lane 5 is (1, 1, 0).
    assert_eq!((uw(0, 23), uw(1, 23), uw(2, 23)), (3, 2, 1));
    assert_eq!((uw(0, 5), uw(1, 5), uw(2, 5)), (1, 1, 0));
    // Disabled lanes carry no id.
    assert_eq!((uw(0, 24), uw(1, 31)), (0, 0));
    // The global offset (1, 2, 3) reaches the CTD.
    let gwo: Vec<u64> = abi
        .implicit_args
        .iter()
        .filter(|i| i.kind == visa_emu::abi::ImplicitKind::GlobalWorkOffset)
        .map(|i| u32_at(i.payload_offset as usize) as u64)
        .collect();
    assert_eq!(gwo, vec![1, 2, 3]);
}

#[test]
fn buffers_get_distinct_aligned_bases_bound_to_their_btis() {
    let d = default_corpus_dir().join("constant_table/tgllp-simd32");
    let (case, _, abi) = decode(&d);
    let p = prepare(&abi, &case, &d, "tests").unwrap();
    let bases: BTreeSet<u64> = p.allocations.iter().map(|a| a.base).collect();
    assert_eq!(bases.len(), p.allocations.len());
    assert!(p
        .allocations
        .iter()
        .all(|a| a.base != 0 && a.base % 4096 == 0));
    // Both buffers and the program constant surface (BTI 2) are bound.
    let btis: BTreeSet<u32> = p.allocations.iter().filter_map(|a| a.bti).collect();
    assert_eq!(btis, BTreeSet::from([0, 1, 2]));
    let surf = p
        .allocations
        .iter()
        .find(|a| a.bti == Some(2))
        .expect("constant surface");
    assert_eq!(surf.size, 256);
    // Its address is in the CTD slot of the implicit argument.
    let slot = abi
        .implicit_args
        .iter()
        .find(|i| i.kind == visa_emu::abi::ImplicitKind::ProgramConstantSurface)
        .unwrap();
    let image = p.payload([0, 0, 0], 0).bytes;
    let o = slot.payload_offset as usize;
    assert_eq!(
        u64::from_le_bytes(image[o..o + 8].try_into().unwrap()),
        surf.base
    );
    // Arguments are in case order and an output can be found by name.
    assert_eq!(p.buffers.len(), 2);
    assert!(abi.args.iter().all(|a| a.kind == ArgKind::Buffer));
}

#[test]
fn kernel_names_and_missing_kernel() {
    let d = default_corpus_dir().join("saxpy/tgllp-simd16");
    let b = std::fs::read(d.join("kernel.bin")).unwrap();
    assert_eq!(kernel_names(&b).unwrap(), vec!["saxpy".to_string()]);
    let e = find_kernel(&b, "nope", 32).unwrap_err();
    assert!(e.to_string().contains("no kernel named `nope`"), "{e}");
    assert!(e.to_string().contains("saxpy"), "{e}");
    assert!(matches!(
        find_kernel(&b, "saxpy", 48),
        Err(AbiError::Launch(_))
    ));
}

#[test]
fn garbage_bin_is_a_clear_error() {
    let e = find_kernel(b"\x7fELF not a program", "k", 32).unwrap_err();
    assert!(matches!(e, AbiError::Bin { .. }), "{e}");
    let e = find_kernel(b"plain text", "k", 32).unwrap_err();
    assert!(e.to_string().contains("INTC"), "{e}");
    let d = default_corpus_dir().join("saxpy/tgllp-simd16");
    let mut b = std::fs::read(d.join("kernel.bin")).unwrap();
    // The bare program (what ocloc puts in the ELF section) decodes too.
    let at = b.windows(4).position(|w| w == b"CTNI").unwrap();
    assert_eq!(find_kernel(&b[at..], "saxpy", 32).unwrap().simd, 16);
    // A wrong ICBE version is named with its offset.
    let mut v = b.clone();
    v[at + 4] ^= 1;
    let e = find_kernel(&v, "saxpy", 32).unwrap_err();
    assert!(
        matches!(e, AbiError::Bin { offset, .. } if offset == at + 4),
        "{e}"
    );
    // Truncations anywhere: an error, never a panic, until the cut leaves the whole
    // device-binary section (only the ELF's section-name table follows it).
    let first_ok = (0..b.len())
        .find(|cut| find_kernel(&b[..*cut], "saxpy", 32).is_ok())
        .unwrap();
    assert!(first_ok > at + 1000, "{first_ok}");
    assert!((first_ok..b.len()).all(|cut| find_kernel(&b[..cut], "saxpy", 32).is_ok()));
    // Every byte flipped, one at a time: never a panic.
    let len = b.len();
    for i in 0..len {
        b[i] ^= 0xff;
        let _ = find_kernel(&b, "saxpy", 32);
        b[i] ^= 0xff;
    }
}

#[test]
fn hostile_abi_values_are_errors_not_allocations() {
    let d = default_corpus_dir().join("private_array_large/tgllp-simd32");
    let (case, _, mut abi) = decode(&d);
    for i in &mut abi.implicit_args {
        if i.kind == visa_emu::abi::ImplicitKind::PrivateBase {
            i.per_thread_private_size = Some(u32::MAX);
        }
    }
    assert!(prepare(&abi, &case, &d, "tests").is_err());
    let (case, _, mut abi) = decode(&d);
    abi.args[0]
        .stateless_pointer
        .as_mut()
        .unwrap()
        .payload_offset = u32::MAX - 2;
    assert!(prepare(&abi, &case, &d, "tests").is_err());
}

/// A hand-built patch-token program (no ELF around it) with what the corpus lacks: a
/// program-scope global surface holding a pointer into the constant surface, an image
/// argument, and an implicit value the emulator does not fill.
mod synthetic {
    use super::*;

    /// A token whose `Size` counts its words and `tail`.
    fn token(id: u32, words: &[u32], tail: &[u8]) -> Vec<u8> {
        let mut t = surface_token(id, words, tail);
        let size = (8 + 4 * words.len() + tail.len()) as u32;
        t[4..8].copy_from_slice(&size.to_le_bytes());
        t
    }

    /// A program-scope data token: its `Size` leaves out the inline data that follows.
    fn surface_token(id: u32, words: &[u32], data: &[u8]) -> Vec<u8> {
        let mut t = Vec::new();
        t.extend(id.to_le_bytes());
        t.extend(((8 + 4 * words.len()) as u32).to_le_bytes());
        for w in words {
            t.extend(w.to_le_bytes());
        }
        t.extend(data);
        t
    }

    fn program(kernel_tokens: &[Vec<u8>]) -> Vec<u8> {
        let mut constant = vec![0u8; 16];
        constant[..4].copy_from_slice(&7u32.to_le_bytes());
        let mut global = vec![0u8; 16];
        global[8..16].copy_from_slice(&4u64.to_le_bytes()); // offset 4 into constant 0
        let mut prog_list = surface_token(42, &[0, 16], &constant);
        prog_list.extend(surface_token(41, &[0, 0, 16], &global));
        // GLOBAL_POINTER: global 0, offset 8 (u64), into buffer type 1 (constant) 0.
        let mut gp = Vec::new();
        gp.extend(0u32.to_le_bytes());
        gp.extend(8u64.to_le_bytes());
        gp.extend(1u32.to_le_bytes());
        gp.extend(0u32.to_le_bytes());
        prog_list.extend(token(47, &[], &gp));

        let ssh: Vec<u8> = [0u32, 64, 128, 0, 64, 128] // surface states, then the table
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let mut klist = Vec::new();
        for t in kernel_tokens {
            klist.extend(t);
        }
        let name = b"k\0\0\0";
        let mut out = Vec::new();
        for w in [0x494e_5443u32, 1081, 18, 8, 1, 0, prog_list.len() as u32] {
            out.extend(w.to_le_bytes());
        }
        out.extend(&prog_list);
        out.extend(0u32.to_le_bytes()); // checksum
        out.extend(0u64.to_le_bytes()); // hash
        for w in [
            name.len() as u32,
            klist.len() as u32,
            0,
            0,
            0,
            ssh.len() as u32,
            0,
        ] {
            out.extend(w.to_le_bytes());
        }
        out.extend(name);
        out.extend(&ssh);
        out.extend(&klist);
        out
    }

    fn basic_tokens() -> Vec<Vec<u8>> {
        let mut env = [0u32; 33];
        env[3] = 16;
        let mut payload = [0u32; 20];
        payload[1] = 1; // local id x only
        vec![
            token(23, &env, &[]),
            token(22, &payload, &[]),
            token(25, &[32], &[]),
            token(8, &[12, 3, 0], &[]), // binding table at SSH 12, 3 entries
            // global surface with initialization: index 0, SSH 64, CTD 0, 8 bytes
            token(43, &[0, 64, 0, 8], &[]),
            // constant surface: index 0, SSH 128, CTD 8
            token(44, &[0, 128, 8, 8], &[]),
            // image argument 0 at SSH 0, writeable
            token(12, &[0, 4, 0, 0, 0, 1, 0, 0, 0, 0], &[]),
        ]
    }

    fn case() -> Case {
        let mut c: Case = serde_json::from_str(
            r#"{"kernel": "k", "args": [],
                "ndrange": {"work_dim": 1, "global_size": [32], "local_size": [16]},
                "outputs": []}"#,
        )
        .unwrap();
        c.dir = std::env::temp_dir();
        c
    }

    #[test]
    fn decodes_program_surfaces_images_and_a_single_local_id() {
        let bin = program(&basic_tokens());
        let abi = find_kernel(&bin, "k", 32).unwrap();
        assert_eq!(abi.simd, 16);
        // Only x present: CTD right after it.
        assert_eq!(abi.per_thread_payload.local_ids.len(), 1);
        assert_eq!(abi.cross_thread_data.as_ref().unwrap().payload_offset, 64);
        assert_eq!(abi.program.surfaces.len(), 2);
        assert_eq!(abi.program.pointer_patches.len(), 1);
        let img = abi.arg(0).unwrap();
        assert_eq!(
            (img.kind, img.bti, img.writeable),
            (ArgKind::Image, Some(0), Some(true))
        );
        assert_eq!(abi.binding_table[0].arg, Some(0));
        assert_eq!(abi.binding_table[1].arg, None);
        // A case without the image argument: a clear error naming it.
        let e = prepare(&abi, &case(), Path::new("/"), "tests")
            .err()
            .unwrap();
        assert!(e.to_string().contains("argument 0"), "{e}");
        // With it: bound as an image of the case's shape; a wrong size is refused.
        let with_image = |bytes: u64| {
            let mut c = case();
            c.args = serde_json::from_str(&format!(
                r#"[{{"index": 0, "name": "img", "kind": "image", "bytes": {bytes},
                    "image": {{"type": "2d", "width": 2, "height": 2,
                              "channel_order": "CL_RGBA", "channel_type": "CL_UNORM_INT8"}}}}]"#
            ))
            .unwrap();
            prepare(&abi, &c, Path::new("/"), "tests")
        };
        let p = with_image(16).unwrap();
        let images = p.memory.images();
        assert_eq!(images.len(), 1);
        assert_eq!(
            (images[0].0, images[0].1.width, images[0].1.bytes()),
            (0, 2, 16)
        );
        let e = with_image(10).err().unwrap();
        assert!(e.to_string().contains("image texels"), "{e}");
    }

    #[test]
    fn global_surface_pointer_is_relocated_to_the_constant_surface() {
        let mut toks = basic_tokens();
        toks.pop(); // no image
        let bin = program(&toks);
        let abi = find_kernel(&bin, "k", 32).unwrap();
        let p = prepare(&abi, &case(), Path::new("/"), "tests").unwrap();
        let base = |bti| p.allocations.iter().find(|a| a.bti == Some(bti)).unwrap();
        let (global, constant) = (base(1), base(2));
        let bytes = p.memory.get(global.id);
        let ptr = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
        assert_eq!(ptr, constant.base + 4);
        assert_eq!(&p.memory.get(constant.id)[..4], &7u32.to_le_bytes());
        // Both addresses are in the CTD (64 + 0 and 64 + 8).
        let image = p.payload([1, 0, 0], 0).bytes;
        let at = |o: usize| u64::from_le_bytes(image[o..o + 8].try_into().unwrap());
        assert_eq!((at(64), at(72)), (global.base, constant.base));
        assert_eq!(u32::from_le_bytes(image[4..8].try_into().unwrap()), 1);
    }

    #[test]
    fn an_unknown_implicit_value_is_refused_at_launch() {
        let mut toks = basic_tokens();
        toks.pop();
        // DATA_PARAMETER_BUFFER type 17 (NUM_HARDWARE_THREADS) at CTD 16.
        toks.push(token(17, &[17, 0, 16, 4, 0, 0, 0, 0], &[]));
        let abi = find_kernel(&program(&toks), "k", 32).unwrap();
        let e = prepare(&abi, &case(), Path::new("/"), "tests")
            .err()
            .unwrap();
        assert!(e.to_string().contains("type 17"), "{e}");
    }

    #[test]
    fn a_truncated_token_names_its_offset() {
        let mut toks = basic_tokens();
        toks[0].truncate(8 + 4 * 3); // execution environment without its SIMD field
        let n = toks[0].len() as u32;
        toks[0][4..8].copy_from_slice(&n.to_le_bytes());
        let e = find_kernel(&program(&toks), "k", 32).unwrap_err();
        assert!(
            matches!(
                &e,
                AbiError::Bin {
                    problem: visa_emu::abi::BinProblem::TokenTooShort { token: 23, .. },
                    ..
                }
            ),
            "{e}"
        );
    }
}

/// A kernel without local ids: IGC reserves one unused GRF of per-thread data
/// (UnusedPerThreadConstantPresent), so the cross-thread data, and every argument in
/// it, sits one GRF after r0 plus that GRF. Found on the project's own
/// `atomic_64bit_carry`, whose scalar `reps` read 0 before the decoder knew it.
#[test]
fn unused_per_thread_grf_shifts_the_cross_thread_data() {
    let d =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/atomic_64bit_carry/tgllp-simd32");
    let case = Case::load(d.parent().unwrap()).unwrap();
    let abi = KernelAbi::from_bin(&d, &case.kernel, 32).unwrap();
    let flags = abi.per_thread_payload.flags.as_ref().unwrap();
    assert!(abi.per_thread_payload.local_ids.is_empty());
    assert_eq!(flags.unused_per_thread_constant_present, 1);
    assert_eq!(abi.cross_thread_data.as_ref().unwrap().payload_offset, 64);
    // The vISA's own `.input` offsets of `acc` and `reps`.
    let text = std::fs::read_to_string(d.join("kernel.visaasm")).unwrap();
    let inputs = visa_inputs(&text);
    for (name, want) in [("acc", 8), ("reps", 4)] {
        let a = abi.args.iter().find(|a| a.name == name).unwrap();
        let off = a.payload_offset.unwrap();
        assert!(
            inputs.iter().any(|(_, o, s)| *o == off && *s == want),
            "{name} at payload offset {off}: no .input of {want} bytes there ({inputs:?})"
        );
    }
    // Every input lies in filled payload bytes.
    let p = prepare(&abi, &case, &d, "tests").unwrap();
    for (var, offset, size) in inputs {
        assert!(
            p.filled
                .iter()
                .any(|f| f.payload_offset < offset + size && offset < f.payload_offset + f.size),
            "{var} [{offset}, {}) is not filled",
            offset + size
        );
    }
}

/// The GPU path uploads the payloads of work-group 0's threads only and puts in the
/// group id words itself (`PAYLOAD_RUNTIME` in translate/mod.rs): thread `t` of any
/// group must differ from thread `t` of group 0 in r0.1, r0.6 and r0.7 alone.
#[test]
fn payloads_differ_between_groups_only_in_the_group_id_words() {
    let mut checked = 0;
    for d in &variant_dirs(&default_corpus_dir()).unwrap() {
        let (case, _, abi) = decode(d);
        let p = prepare(&abi, &case, d, "tests").unwrap();
        let l = &p.launch;
        for t in 0..l.threads_per_group {
            let base = p.payload([0, 0, 0], t);
            for g in [
                [1, 0, 0],
                [3, 2, 1],
                [l.groups[0] - 1, l.groups[1] - 1, l.groups[2] - 1],
            ] {
                let other = p.payload(g, t);
                assert_eq!(other.lanes, base.lanes, "{}", d.display());
                assert_eq!(other.bytes.len(), base.bytes.len());
                let word = |b: &[u8], k: usize| {
                    u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap())
                };
                assert_eq!(
                    [
                        word(&other.bytes, 1),
                        word(&other.bytes, 6),
                        word(&other.bytes, 7)
                    ],
                    g,
                    "{}",
                    d.display()
                );
                for (i, (a, b)) in base.bytes.iter().zip(&other.bytes).enumerate() {
                    assert!(
                        a == b || matches!(i / 4, 1 | 6 | 7),
                        "{} byte {i}",
                        d.display()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

/// OpenCL 2.0 non-uniform work-groups: an NDRange the local size does not divide runs
/// as pieces of equal groups, the full ones first, then each mix of remainders (x
/// fastest); a uniform NDRange is one piece, a global size of 0 one piece of no groups.
#[test]
fn non_uniform_ndranges_split_into_pieces() {
    use visa_emu::abi::launch::{pieces, Piece};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/nonuniform_groups");
    let mut case = Case::load(&dir).unwrap();
    let piece = |first, groups, local| Piece {
        first,
        groups,
        local,
    };
    assert_eq!(
        pieces(&case).unwrap(),
        [
            piece([0, 0, 0], [2, 2, 1], [8, 4, 1]),
            piece([2, 0, 0], [1, 2, 1], [5, 4, 1]),
            piece([0, 2, 0], [2, 1, 1], [8, 2, 1]),
            piece([2, 2, 0], [1, 1, 1], [5, 2, 1]),
        ]
    );
    case.ndrange.global_size = vec![16, 8];
    assert_eq!(
        pieces(&case).unwrap(),
        [piece([0, 0, 0], [2, 2, 1], [8, 4, 1])]
    );
    // Smaller than one group: the remainder alone.
    case.ndrange.global_size = vec![3, 8];
    assert_eq!(
        pieces(&case).unwrap(),
        [piece([0, 0, 0], [1, 2, 1], [3, 4, 1])]
    );
    case.ndrange.global_size = vec![0, 8];
    assert_eq!(
        pieces(&case).unwrap(),
        [piece([0, 0, 0], [0, 2, 1], [8, 4, 1])]
    );
    case.ndrange.local_size = vec![0, 4];
    let e = pieces(&case).unwrap_err().to_string();
    assert!(e.contains("local size 0 in dimension 0"), "{e}");
}

/// Every piece lays memory out alike (one piece's final memory is the next one's
/// start), and its payload gives its own local size beside the enqueued one, the
/// NDRange's group counts and global size. A kernel that reads the local size but not
/// the enqueued one computes global ids from the former (IGC's OpenCL 1.2 code), so
/// a non-uniform NDRange is refused for it.
#[test]
fn pieces_share_their_memory_layout_and_tell_their_local_size() {
    use visa_emu::abi::launch::{pieces, prepare_piece};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/nonuniform_groups");
    let case = Case::load(&dir).unwrap();
    let d = dir.join("tgllp-simd16");
    let abi = KernelAbi::from_bin(&d, &case.kernel, 32).unwrap();
    let all = pieces(&case).unwrap();
    let prepared: Vec<_> = all
        .iter()
        .map(|p| prepare_piece(&abi, &case, &d, p).unwrap())
        .collect();
    let layout = |p: &visa_emu::abi::launch::Prepared| -> Vec<(u64, u64)> {
        p.allocations.iter().map(|a| (a.base, a.size)).collect()
    };
    for p in &prepared[1..] {
        assert_eq!(layout(p), layout(&prepared[0]));
    }
    let word = |p: &visa_emu::abi::launch::Prepared, kind: ImplicitKind, dim: u32| -> u32 {
        let i = abi
            .implicit_args
            .iter()
            .find(|i| i.kind == kind && i.dim == Some(dim))
            .unwrap_or_else(|| panic!("{kind:?}[{dim}]"));
        let b = p.payload(p.launch.first, 0).bytes;
        let o = i.payload_offset as usize;
        u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
    };
    // The x-and-y remainder piece: a 5 x 2 group at group id (2, 2) of a 3 x 3 grid.
    let last = &prepared[3];
    assert_eq!(
        (last.launch.first, last.launch.grid),
        ([2, 2, 0], [3, 3, 1])
    );
    assert_eq!(last.launch.threads_per_group, 1);
    assert_eq!(word(last, ImplicitKind::EnqueuedLocalWorkSize, 0), 8);
    assert_eq!(word(last, ImplicitKind::EnqueuedLocalWorkSize, 1), 4);
    let group_id = |p: &visa_emu::abi::launch::Prepared| {
        let b = p.payload(p.launch.first, 0).bytes;
        (b[4], b[24])
    };
    assert_eq!(group_id(last), (2, 2));
    assert_eq!(word(last, ImplicitKind::LocalWorkSize, 0), 5);
    assert_eq!(word(last, ImplicitKind::LocalWorkSize, 1), 2);
    assert_eq!(word(&prepared[0], ImplicitKind::LocalWorkSize, 0), 8);
    assert_eq!(word(&prepared[1], ImplicitKind::LocalWorkSize, 0), 5);
    assert_eq!(word(&prepared[1], ImplicitKind::LocalWorkSize, 1), 4);
    let mut without = abi.clone();
    without
        .implicit_args
        .retain(|i| i.kind != ImplicitKind::EnqueuedLocalWorkSize);
    let e = prepare_piece(&without, &case, &d, &all[0])
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("not compiled for non-uniform work-groups"),
        "{e}"
    );
    // The same ABI over a uniform NDRange is fine.
    let mut uniform = case.clone();
    uniform.ndrange.global_size = vec![16, 8];
    prepare_piece(&without, &uniform, &d, &pieces(&uniform).unwrap()[0]).unwrap();
}
