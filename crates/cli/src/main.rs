//! `nbits-mlp`: the command line of nbits-mlp.
//!
//! Subcommands: `check` (the manifest's static check), `plan` (what would run, for a model or a
//! shape, on a device profile), `map` (which kernel a shape takes at every row count), `run` (a model on input files), `test` (ONNX node-test cases),
//! `gen-case` (random test cases with reference outputs), `devices` (WebGPU adapters), `demo`
//! (a Llama-3.1-8B gate/up layer on the best adapter, checked against the reference), `bench`
//! (GPU-timestamp benchmarks), `tune` (tunables per shape class into the adapter's tuning cache),
//! `fuse` (rewrite an ONNX model's MatMulNBits MLPs into MatMulNBitsMlp nodes).
//!
//! Exit codes: 0 success, 1 test failures (`test`, `demo`, `fuse --verify`), 2 bad input or usage
//! (every error).

mod args;
mod backend;
mod cmd;
mod files;
mod report;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit code of a run whose checks failed (`test`, `demo`).
pub const EXIT_FAILED: u8 = 1;
/// Exit code of any error: bad input, bad usage, a device that cannot run the request.
pub const EXIT_ERROR: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "nbits-mlp",
    version,
    about = "Fused quantized MLP (com.microsoft::MatMulNBitsMlp) on WebGPU, driven by a kernel manifest",
    after_help = "EXAMPLES:
  nbits-mlp demo                                  # Llama-3.1-8B gate/up on the best adapter
  nbits-mlp gen-case /tmp/case --k 256 --n 64 --rows 2 --skip --norm
  nbits-mlp test /tmp/case --backend cpu
  nbits-mlp plan /tmp/case/model.onnx --device discrete-gpu --explain
  nbits-mlp plan --shape 4096,14336,1 --dtype f16 --skip --norm --device webgpu-default
  nbits-mlp map --model llama-3.1-8b --device discrete-gpu     # which kernel at 1-512 rows
  nbits-mlp fuse model.onnx -o fused.onnx --explain  # MatMulNBits MLPs -> MatMulNBitsMlp

Exit codes: 0 ok, 1 test failures, 2 bad input or usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Bench(cmd::bench::BenchArgs),
    Check(cmd::check::CheckArgs),
    Plan(cmd::plan::PlanArgs),
    Map(cmd::map::MapArgs),
    Run(cmd::run::RunArgs),
    Test(cmd::test::TestArgs),
    GenCase(cmd::gen_case::GenCaseArgs),
    Devices(cmd::devices::DevicesArgs),
    Demo(cmd::demo::DemoArgs),
    Tune(cmd::tune::TuneArgs),
    Fuse(cmd::fuse::FuseArgs),
}

/// Process-wide set-up, before any thread starts.
///
/// - A closed pipe ends the program quietly, as for any Unix filter (`nbits-mlp test ... | head
///   -1`): Rust ignores SIGPIPE, which made the next `println!` panic (exit 101).
/// - Mesa's Vulkan drivers print `error: XDG_RUNTIME_DIR is invalid or not set in the
///   environment.` on machines without a desktop session (containers, CI, the software driver):
///   where the variable is unset or names no folder, point it at a private temporary folder so
///   the output stays clean. Nothing else reads it here.
fn process_setup() {
    #[cfg(unix)]
    {
        // SAFETY: called first thing in main, before any other thread exists; restoring the
        // default action of a signal has no other effect on this process.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
        let valid =
            std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
        if !valid {
            // SAFETY: getuid has no preconditions.
            let uid = unsafe { libc::getuid() };
            let dir = std::env::temp_dir().join(format!("nbits-mlp-runtime-{uid}"));
            use std::os::unix::fs::DirBuilderExt as _;
            let made = std::fs::DirBuilder::new().mode(0o700).create(&dir);
            if made.is_ok() || dir.is_dir() {
                // Single-threaded here (see above), so no other thread reads the environment.
                std::env::set_var("XDG_RUNTIME_DIR", &dir);
            }
        }
    }
}

fn main() -> ExitCode {
    process_setup();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version exit 0; usage errors exit 2 (clap's convention, and ours).
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Bench(a) => cmd::bench::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Plan(a) => cmd::plan::run(a),
        Command::Map(a) => cmd::map::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Test(a) => cmd::test::run(a),
        Command::GenCase(a) => cmd::gen_case::run(a),
        Command::Devices(a) => cmd::devices::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Tune(a) => cmd::tune::run(a),
        Command::Fuse(a) => cmd::fuse::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", error_message(&e));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// The error and its causes on one line, `: `-separated, leaving out a cause whose text the
/// message already holds (many errors here print their source themselves).
pub fn error_message(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_chain_without_repeats() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = anyhow::Error::new(io)
            .context("f.pb: cannot read: gone")
            .context("loading case");
        assert_eq!(error_message(&e), "loading case: f.pb: cannot read: gone");
    }
}
