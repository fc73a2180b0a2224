//! `fuse` on graphs built here: every form it fuses, every rule that stops it, and what it keeps.
//!
//! `build` makes the graphs, `run` fuses them and reads the result; the tests are in `forms`
//! (what is fused), `rules` (what stops it) and `files` (the file around the graph).

mod build;
mod files;
mod forms;
mod nodes;
mod rules;
mod run;
