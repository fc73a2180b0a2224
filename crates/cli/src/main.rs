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
    Bench(Box<cmd::bench::BenchArgs>),
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
        Command::Bench(a) => cmd::bench::run(*a),
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
    use clap::CommandFactory as _;

    /// The documents whose `nbits-mlp` command lines must stay valid (docs/RESULTS.md is left
    /// out: it is generated from the run folders' indexes, a record of what was run then).
    const DOCS: &[&str] = &[
        "README.md",
        "docs/DESIGN.md",
        "docs/KERNELS.md",
        "crates/python/README.md",
    ];

    /// The `nbits-mlp` command lines of a Markdown text: whole lines of its code blocks, and
    /// the inline code spans of its prose (`true`: from a code block).
    fn command_lines(text: &str) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        let mut fenced = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                let t = line.trim();
                if t.starts_with("nbits-mlp ") {
                    out.push((t.to_string(), true));
                }
                continue;
            }
            for (i, span) in line.split('`').enumerate() {
                if i % 2 == 1 && span.starts_with("nbits-mlp ") {
                    out.push((span.to_string(), false));
                }
            }
        }
        out
    }

    /// A code block's command line as arguments: the comment after `#` dropped, optional
    /// `[...]` parts kept (of `[a | b]` the first alternative), of `x|y` values the first,
    /// `...` dropped, the placeholders K,N,ROWS / K,N / NAME=VALUE given values.
    fn arguments(line: &str) -> Vec<String> {
        let line = match line.find(" #") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut kept = String::new();
        let mut rest = line;
        while let Some(open) = rest.find('[') {
            kept.push_str(&rest[..open]);
            let close = rest[open..].find(']').map_or(rest.len(), |c| open + c);
            let inner = &rest[open + 1..close];
            kept.push_str(inner.split(" | ").next().unwrap_or(""));
            rest = rest.get(close + 1..).unwrap_or("");
        }
        kept.push_str(rest);
        kept.split_whitespace()
            .filter(|t| *t != "...")
            .map(|t| match t {
                "K,N,ROWS" => "4096,14336,1".to_string(),
                "K,N" => "4096,14336".to_string(),
                "NAME=VALUE" => "MMA_PAIRS=2".to_string(),
                t if t.contains('|') && !t.starts_with('-') => {
                    t.split('|').next().unwrap_or(t).to_string()
                }
                t => t.to_string(),
            })
            .collect()
    }

    /// Every `nbits-mlp` command line of the README and the docs stays valid as the command
    /// line changes: code blocks parse as they are written (placeholders aside), and inline
    /// fragments name a subcommand and only options it has.
    #[test]
    fn documented_command_lines_are_valid() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let cli = Cli::command();
        let mut checked = 0;
        for doc in DOCS {
            let text = std::fs::read_to_string(root.join(doc)).unwrap();
            for (line, fenced) in command_lines(&text) {
                let args = arguments(&line);
                let sub = cli
                    .find_subcommand(&args[1])
                    .unwrap_or_else(|| panic!("{doc}: `{line}`: no subcommand `{}`", args[1]));
                for flag in args.iter().filter(|a| a.starts_with("--")) {
                    let name = flag[2..].split('=').next().unwrap_or_default();
                    assert!(
                        name == "help" || sub.get_arguments().any(|a| a.get_long() == Some(name)),
                        "{doc}: `{line}`: `{} {}` has no option --{name}",
                        args[0],
                        args[1]
                    );
                }
                if fenced {
                    if let Err(e) = Cli::try_parse_from(&args) {
                        panic!("{doc}: `{line}` does not parse ({args:?}): {e}");
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 40, "only {checked} command lines found");
    }

    #[test]
    fn documented_arguments_are_normalised() {
        assert_eq!(
            arguments("nbits-mlp test case/ [--backend gpu|cpu]   # a comment"),
            ["nbits-mlp", "test", "case/", "--backend", "gpu"]
        );
        assert_eq!(
            arguments(
                "nbits-mlp tune [--suite decode | --shape K,N,ROWS --dtype f16 ...] [--out F]"
            ),
            ["nbits-mlp", "tune", "--suite", "decode", "--out", "F"]
        );
        assert_eq!(
            arguments("nbits-mlp plan --shape K,N,ROWS ... --tunable NAME=VALUE"),
            [
                "nbits-mlp",
                "plan",
                "--shape",
                "4096,14336,1",
                "--tunable",
                "MMA_PAIRS=2"
            ]
        );
        assert_eq!(
            command_lines("a `nbits-mlp map` b `x`\n```\nnbits-mlp check # c\n```\n"),
            [
                ("nbits-mlp map".to_string(), false),
                ("nbits-mlp check # c".to_string(), true)
            ]
        );
    }

    #[test]
    fn error_chain_without_repeats() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = anyhow::Error::new(io)
            .context("f.pb: cannot read: gone")
            .context("loading case");
        assert_eq!(error_message(&e), "loading case: f.pb: cannot read: gone");
    }
}
