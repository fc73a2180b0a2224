//! The results document (`nbits-mlp bench --results notes/runs --out docs/RESULTS.md`): every
//! measured run (one folder each, described by its `INDEX.md`), newest first, each report of it
//! as a [`markdown`] table beside the peer files its index names.
//!
//! An `INDEX.md` is Markdown for readers with three things this module reads: the title (the
//! first `# ` line), a `- Peers:` line naming peer files by repository-relative path in
//! backticks (optional), and a table whose rows start with a backticked file name and say what
//! the file holds. Every file of the folder is in that table (pictures aside: `bench --plot`
//! regenerates them and git ignores them).

use crate::table::{markdown, read_peer_lines};
use crate::Report;
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// The name of a run folder's description.
pub const INDEX: &str = "INDEX.md";

/// A run folder's `INDEX.md`, read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunIndex {
    /// The first `# ` heading's text.
    pub title: String,
    /// The lines between the title and the file table, trimmed: what was run, from which
    /// commit, which claims it backs.
    pub about: String,
    /// The peer files of the `- Peers:` line (repository-relative paths), in order.
    pub peers: Vec<String>,
    /// The file table's rows: (file name, what it holds).
    pub files: Vec<(String, String)>,
}

/// The backticked spans of a line.
fn backticked(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Reads an `INDEX.md` (see the module's documentation). Errors when it has no title or no
/// file table.
pub fn parse_index(text: &str) -> Result<RunIndex> {
    let mut lines = text.lines();
    let title = lines
        .by_ref()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .context("no title (a first line `# ...`)")?;
    let mut index = RunIndex {
        title,
        ..RunIndex::default()
    };
    let mut about = Vec::new();
    let mut in_table = false;
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with("| file |") {
            in_table = true;
            continue;
        }
        if in_table {
            if let Some(row) = trimmed.strip_prefix("| `") {
                let cells: Vec<&str> = row.splitn(2, '|').collect();
                let name = cells[0].trim().trim_end_matches('`').to_string();
                let what = cells
                    .get(1)
                    .map(|c| c.trim().trim_end_matches('|').trim().to_string())
                    .unwrap_or_default();
                index.files.push((name, what));
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("- Peers:") {
            index.peers = backticked(rest);
        }
        about.push(line);
    }
    if !in_table {
        bail!("no file table (a line `| file | what |`)");
    }
    index.about = about.join("\n").trim().to_string();
    Ok(index)
}

/// The run folders under `root/runs`, sorted by name, each with its index; checks that every
/// file of a folder is in its index's table and every file named there exists.
pub fn read_runs(root: &Path, runs: &str) -> Result<Vec<(String, RunIndex)>> {
    let dir = root.join(runs);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let folder = dir.join(&name);
        let path = folder.join(INDEX);
        let text =
            nbits_mlp_core::files::read_text_limited(&path, nbits_mlp_core::files::MAX_JSON_BYTES)
                .with_context(|| format!("{runs}/{name}: reading its {INDEX}"))?;
        let index = parse_index(&text).with_context(|| format!("{runs}/{name}/{INDEX}"))?;
        // Every file but the index needs an entry, except pictures (a report's regenerated
        // bench.svg / bench.png); a picture the table names must be there like any file.
        let (mut present, mut pictures) = (Vec::new(), Vec::new());
        for entry in std::fs::read_dir(&folder)? {
            let file = entry?.file_name().to_string_lossy().into_owned();
            if file.ends_with(".png") || file.ends_with(".svg") {
                pictures.push(file);
            } else if file != INDEX {
                present.push(file);
            }
        }
        present.sort();
        for file in &present {
            if !index.files.iter().any(|(f, _)| f == file) {
                bail!("{runs}/{name}: {file} is not in the table of its {INDEX}");
            }
        }
        for (file, _) in &index.files {
            if !present.contains(file) && !pictures.contains(file) {
                bail!("{runs}/{name}/{INDEX} names {file}, which is not in the folder");
            }
        }
        out.push((name, index));
    }
    Ok(out)
}

/// The results document for the run folders under `root/runs` (paths in it are `runs/...` and
/// the peer paths as the indexes give them, both relative to `root`, the repository root).
pub fn document(root: &Path, runs: &str) -> Result<String> {
    let runs = runs.trim_end_matches('/');
    let folders = read_runs(root, runs)?;
    let mut d = String::new();
    d.push_str("# Measured results\n\n");
    let _ = writeln!(
        d,
        "Every benchmark report committed under `{runs}/` (run folders by name, newest session \
         first), as `nbits-mlp bench --table` prints it beside the peer files the run's `INDEX.md` names. Generated by \
         `nbits-mlp bench --results {runs} --out docs/RESULTS.md` (from the repository root); \
         do not edit it by hand: `cargo test -p nbits-mlp-bench --test records` checks that it \
         is what the command writes.\n"
    );
    d.push_str(
        "Columns: **GPU time** is the median of the timestamp-timed rounds over rotating weight \
         sets (`!`: above its host-clock check by more than 20 % or above the wall per node: a \
         span to distrust); **TFLOP/s** is 2 x rows x K x N x 2 (gate and up) over that time; \
         **host-clock check** one submission of dependent runs timed by the host clock; \
         **weight GB/s** packed weights and scales read per call over the GPU time; **host per \
         call** validate + record + submit on a cached plan; **wall per node** a layer stack \
         through the public API, read-back included, over its layers; **peer wall per node** \
         ONNX Runtime's WebGPU kernel measured the same way, and **ratio** peer / ours. \
         `docs/DESIGN.md` says how each is measured; `notes/PERF.md` what each run was for.\n\n",
    );
    d.push_str("Runs:\n\n");
    for (name, index) in folders.iter().rev() {
        let _ = writeln!(d, "- `{runs}/{name}/`: {}", index.title);
    }
    for (name, index) in folders.iter().rev() {
        let _ = writeln!(d, "\n## {}\n", index.title);
        let _ = writeln!(d, "Folder `{runs}/{name}/`.\n");
        if !index.about.is_empty() {
            let _ = writeln!(d, "{}\n", index.about);
        }
        let mut files = Vec::new();
        for p in &index.peers {
            let text = nbits_mlp_core::files::read_text_limited(
                &root.join(p),
                nbits_mlp_core::files::MAX_JSON_BYTES,
            )
            .with_context(|| format!("{runs}/{name}/{INDEX}: reading peer file {p}"))?;
            files.push((p.clone(), text));
        }
        let peers = read_peer_lines(&files)?;
        let peer_names: Vec<String> = files.into_iter().map(|(n, _)| n).collect();
        let mut others = Vec::new();
        for (file, what) in &index.files {
            let path = format!("{runs}/{name}/{file}");
            if !file.ends_with(".json") {
                others.push(format!("- `{path}`: {what}"));
                continue;
            }
            let text = nbits_mlp_core::files::read_text_limited(
                &root.join(&path),
                nbits_mlp_core::files::MAX_JSON_BYTES,
            )
            .with_context(|| format!("reading {path}"))?;
            let report: Report = serde_json::from_str(&text)
                .with_context(|| format!("{path} is not a bench report"))?;
            let _ = writeln!(d, "### `{path}`: {what}\n");
            let _ = writeln!(d, "{}", markdown(&report, &peers, &peer_names).trim_end());
            d.push('\n');
        }
        if !others.is_empty() {
            let _ = writeln!(d, "Other files:\n\n{}", others.join("\n"));
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX_TEXT: &str = "# 2026-11-30, session 9: a run\n\n- Run: `nbits-mlp bench --suite smoke`\n- Peers: `notes/a/ort.jsonl`, `x/torch.jsonl`\n\n| file | what |\n|---|---|\n| `bench.json` | the report |\n| `run.txt` | its output |\n";

    #[test]
    fn an_index_gives_its_title_peers_and_files() {
        let i = parse_index(INDEX_TEXT).unwrap();
        assert_eq!(i.title, "2026-11-30, session 9: a run");
        assert_eq!(i.peers, ["notes/a/ort.jsonl", "x/torch.jsonl"]);
        assert_eq!(
            i.files,
            [
                ("bench.json".to_string(), "the report".to_string()),
                ("run.txt".to_string(), "its output".to_string())
            ]
        );
        assert!(i
            .about
            .starts_with("- Run: `nbits-mlp bench --suite smoke`"));
        assert!(!i.about.contains("| file |"));
        let e = parse_index("no title\n").unwrap_err().to_string();
        assert!(e.contains("no title"), "{e}");
        let e = parse_index("# t\n\ntext\n").unwrap_err().to_string();
        assert!(e.contains("no file table"), "{e}");
    }

    #[test]
    fn a_folder_and_its_index_must_agree() {
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("runs/2026-11-30-s9-a");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join(INDEX), INDEX_TEXT).unwrap();
        std::fs::write(run.join("run.txt"), "output\n").unwrap();
        let e = read_runs(t.path(), "runs").unwrap_err().to_string();
        assert!(
            e.contains("names bench.json, which is not in the folder"),
            "{e}"
        );
        std::fs::write(run.join("bench.json"), "{}").unwrap();
        std::fs::write(run.join("extra.txt"), "").unwrap();
        // A regenerated picture needs no entry; another file does.
        std::fs::write(run.join("bench.svg"), "<svg/>").unwrap();
        let e = read_runs(t.path(), "runs").unwrap_err().to_string();
        assert!(e.contains("extra.txt is not in the table"), "{e}");
        std::fs::remove_file(run.join("extra.txt")).unwrap();
        assert_eq!(read_runs(t.path(), "runs").unwrap().len(), 1);
        // A picture the table names (one drawn on the device, say) must be there.
        let named = INDEX_TEXT.to_string() + "| `rows.svg` | the curve |\n";
        std::fs::write(run.join(INDEX), &named).unwrap();
        let e = read_runs(t.path(), "runs").unwrap_err().to_string();
        assert!(
            e.contains("names rows.svg, which is not in the folder"),
            "{e}"
        );
        std::fs::write(run.join("rows.svg"), "<svg/>").unwrap();
        assert_eq!(read_runs(t.path(), "runs").unwrap().len(), 1);
        std::fs::write(run.join(INDEX), INDEX_TEXT).unwrap();
        // The document names the report that does not parse, and the missing peer file.
        let e = format!("{:#}", document(t.path(), "runs").unwrap_err());
        assert!(e.contains("notes/a/ort.jsonl"), "{e}");
    }
}
