use std::path::Path;
use visa_emu::backend::gpu;
use visa_emu::corpus::case::Case;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let v = Path::new(&args[1]);
    let n: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(20);
    let case = Case::load(v.parent().unwrap()).unwrap();
    let mut ts = Vec::new();
    for _ in 0..n {
        let t = std::time::Instant::now();
        let l = gpu::build(v, &case, gpu::DEFAULT_STEP_LIMIT).unwrap();
        ts.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(l);
    }
    ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("min {:.1} median {:.1} ms", ts[0], ts[ts.len() / 2]);
}
