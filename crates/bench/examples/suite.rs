//! `cargo run --release -p nbits-mlp-bench --example suite -- SUITE OUTDIR [TUNABLE=V ...]`: runs a
//! benchmark suite on the best adapter, writes OUTDIR/bench.json and OUTDIR/bench.png.
//! (`nbits-mlp bench` is the command-line front end of the same code.)
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let suite = args.get(1).map(String::as_str).unwrap_or("decode");
    let out = std::path::PathBuf::from(args.get(2).map(String::as_str).unwrap_or("out"));
    let mut cfg = nbits_mlp_bench::BenchConfig::default();
    for a in args.iter().skip(3) {
        let (k, v) = a
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("expected NAME=VALUE, got {a}"))?;
        cfg.tunables.insert(k.into(), v.parse()?);
    }
    let rt = nbits_mlp_gpu::Runtime::open(&nbits_mlp_gpu::GpuOptions::from_env()?)?;
    eprintln!("adapter: {:?}", rt.gpu().info());
    let shapes = nbits_mlp_bench::suite(suite)?;
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let report = nbits_mlp_bench::run(&rt, &shapes, &cfg, &date, &mut |m| eprintln!("{m}"))?;
    std::fs::create_dir_all(&out)?;
    std::fs::write(
        out.join("bench.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    if let Err(e) = nbits_mlp_bench::plot(&report, &out.join("bench.png")) {
        eprintln!("plot skipped: {e}");
    }
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
