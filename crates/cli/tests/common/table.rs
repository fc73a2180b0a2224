//! Table-driven command tests: a [`Row`] is one run of the binary (its arguments, what must be
//! there before it runs, the exit code and the text it must and must not print, the paths it
//! must not create), and [`run`] runs a table of them, each in a scratch folder of its own, and
//! reports every failing row by name, not just the first.
//!
//! Arguments may hold placeholders, replaced by paths in the row's scratch folder:
//! `{tmp}` (the folder), `{case}` (a copy of [`super::full_case`], for rows made
//! [`Row::with_case`]), `{model}` (`{case}/model.onnx`), `{data}` (`{case}/test_data_set_0`),
//! `{out}` (`{tmp}/out`), `{wgsl}` (`{tmp}/wgsl`), `{root}` (the repository) and `{runs}`
//! (`{root}/notes/runs`, the committed measurement records).

use super::{full_case, gpu_available, nbits};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a row does to its scratch folder before the command runs (the case is already copied
/// in, for rows [`Row::with_case`]).
pub type Setup = fn(&Path);

/// One run of the binary and what it must give.
pub struct Row {
    name: String,
    args: Vec<String>,
    case: bool,
    setup: Option<Setup>,
    gpu: bool,
    code: i32,
    stdout: Vec<String>,
    stdout_not: Vec<String>,
    stderr: Vec<String>,
    absent: Vec<String>,
}

/// A row that must succeed (exit 0); `args` are the command's arguments, split at whitespace
/// (before placeholders are replaced, so a path with a space in it stays one argument).
pub fn ok(name: impl Into<String>, args: &str) -> Row {
    fails(name, 0, args)
}

/// A row that must exit with `code` (`args` as for [`ok`]).
pub fn fails(name: impl Into<String>, code: i32, args: &str) -> Row {
    Row {
        name: name.into(),
        args: args.split_whitespace().map(str::to_string).collect(),
        case: false,
        setup: None,
        gpu: false,
        code,
        stdout: Vec::new(),
        stdout_not: Vec::new(),
        stderr: Vec::new(),
        absent: Vec::new(),
    }
}

impl Row {
    /// Stdout must contain each of `frags`.
    pub fn out(mut self, frags: &[&str]) -> Row {
        self.stdout.extend(frags.iter().map(|f| f.to_string()));
        self
    }
    /// Stdout must contain none of `frags`.
    pub fn out_lacks(mut self, frags: &[&str]) -> Row {
        self.stdout_not.extend(frags.iter().map(|f| f.to_string()));
        self
    }
    /// Stderr must contain each of `frags`.
    pub fn err(mut self, frags: &[&str]) -> Row {
        self.stderr.extend(frags.iter().map(|f| f.to_string()));
        self
    }
    /// None of `paths` (placeholders allowed) may exist after the run.
    pub fn absent(mut self, paths: &[&str]) -> Row {
        self.absent.extend(paths.iter().map(|f| f.to_string()));
        self
    }
    /// The row needs `{case}`: a copy of the full case, its own to change.
    pub fn with_case(mut self) -> Row {
        self.case = true;
        self
    }
    /// Runs `f` on the scratch folder before the command.
    pub fn setup(mut self, f: Setup) -> Row {
        self.setup = Some(f);
        self
    }
    /// The row needs a GPU adapter (skipped where `NBITS_MLP_SKIP_GPU=1` allows it).
    pub fn gpu(mut self) -> Row {
        self.gpu = true;
        self
    }
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn expand(arg: &str, tmp: &Path) -> String {
    let case = tmp.join("case");
    let mut s = arg.to_string();
    for (key, path) in [
        ("{model}", case.join("model.onnx")),
        ("{data}", case.join("test_data_set_0")),
        ("{case}", case.clone()),
        ("{out}", tmp.join("out")),
        ("{wgsl}", tmp.join("wgsl")),
        ("{runs}", root().join("notes/runs")),
        ("{root}", root()),
        ("{tmp}", tmp.to_path_buf()),
    ] {
        s = s.replace(key, &path.display().to_string());
    }
    s
}

/// Every path under `dir`, relative to it.
fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Runs every row; panics at the end listing every failing row (its name, the command, what
/// failed and what it printed). Besides each row's own checks, a row that exits non-zero must
/// leave its scratch folder as it found it (bad input writes nothing, not even a temporary).
/// Prints how many rows ran and how many checks they made.
pub fn run(rows: Vec<Row>) {
    let t = tempfile::tempdir().unwrap();
    let mut template: Option<PathBuf> = None;
    let mut failures = Vec::new();
    let mut ran = 0;
    // Checks made: exit codes, text fragments, absent paths, scratch folders left as they were.
    let mut checks = [0usize; 4];
    for (i, row) in rows.iter().enumerate() {
        if row.gpu && !gpu_available() {
            continue;
        }
        let tmp = t.path().join(format!("row{i:03}"));
        std::fs::create_dir(&tmp).unwrap();
        if row.case {
            let from = template.get_or_insert_with(|| {
                let root = t.path().join("template");
                std::fs::create_dir(&root).unwrap();
                full_case(&root)
            });
            copy_dir(from, &tmp.join("case"));
        }
        if let Some(f) = row.setup {
            f(&tmp);
        }
        let before = listing(&tmp);
        let args: Vec<String> = row.args.iter().map(|a| expand(a, &tmp)).collect();
        let out = nbits().args(&args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut wrong = Vec::new();
        checks[0] += 1;
        if out.status.code() != Some(row.code) {
            wrong.push(format!("exit {:?}, want {}", out.status.code(), row.code));
        }
        for f in &row.stdout {
            checks[1] += 1;
            if !stdout.contains(f.as_str()) {
                wrong.push(format!("stdout lacks {f:?}"));
            }
        }
        for f in &row.stdout_not {
            checks[1] += 1;
            if stdout.contains(f.as_str()) {
                wrong.push(format!("stdout has {f:?}"));
            }
        }
        for f in &row.stderr {
            checks[1] += 1;
            if !stderr.contains(f.as_str()) {
                wrong.push(format!("stderr lacks {f:?}"));
            }
        }
        for p in &row.absent {
            checks[2] += 1;
            let p = expand(p, &tmp);
            if Path::new(&p).exists() {
                wrong.push(format!("{p} exists"));
            }
        }
        if row.code != 0 {
            checks[3] += 1;
            let after = listing(&tmp);
            let new: Vec<_> = after.symmetric_difference(&before).collect();
            if !new.is_empty() {
                wrong.push(format!("the scratch folder changed: {new:?}"));
            }
        }
        ran += 1;
        if !wrong.is_empty() {
            failures.push(format!(
                "row `{}`: nbits-mlp {}\n  {}\n  --- stdout:\n{stdout}  --- stderr:\n{stderr}",
                row.name,
                args.join(" "),
                wrong.join("\n  ")
            ));
        }
    }
    let [codes, texts, absent, scratch] = checks;
    eprintln!(
        "{ran} rows run, {} checks: {codes} exit codes, {texts} text fragments, {absent} absent \
         paths, {scratch} scratch folders unchanged",
        codes + texts + absent + scratch
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} rows failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
