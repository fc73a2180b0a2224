//! One module per subcommand: its arguments (clap) and `run`.

pub mod bench;
pub mod check;
pub mod demo;
pub mod devices;
pub mod fuse;
pub mod gen_case;
pub mod map;
pub mod plan;
pub mod run;
pub mod test;
pub mod tune;
