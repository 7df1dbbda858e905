//! Arbitrary bytes as a game file of SGF (.sgf): see games_common.rs.

#![no_main]

#[path = "games_common.rs"]
mod common;

use bookminer::games::GameFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::read_all(GameFormat::Sgf, data));
