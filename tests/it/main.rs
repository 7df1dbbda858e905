//! The integration tests, one crate: each module is one area, run against
//! the real binary (`CARGO_BIN_EXE_bookminer`) and the library. One crate
//! rather than one per file, so that the library is linked into one test
//! binary instead of sixteen.

mod common;

mod accuracy;
mod before_search;
mod cases;
mod check;
mod cli;
mod convert;
mod deepen;
mod deviate;
mod diff;
mod engine_protocol;
mod enhance;
mod existing;
mod extend;
mod extend_hostile;
mod fill;
mod fix;
mod formats;
mod games;
mod games_add;
mod grow;
mod help;
mod hostile;
mod hostile_outputs;
mod layout;
mod learn;
mod link;
mod loop_traps;
mod manifest;
mod merge;
mod older;
mod one_file;
mod pictures;
mod play;
mod progress;
mod props;
mod quiet;
mod rewritten;
mod sample;
mod serve;
mod solver;
mod summary;
mod threads;
mod walk;
mod window;
