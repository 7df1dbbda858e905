//! Arbitrary text as a config file and as command-line overrides: every
//! setting is checked, and a bad one is an error naming it, never a panic.

#![no_main]

// The settings are the command's, not the library's: the target compiles
// the command's own module.
#[path = "../../src/config/mod.rs"]
#[allow(dead_code, unused_imports)]
mod config;

use config::{keys, Config};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    let mut config = match Config::from_toml(&text, "fuzz.toml", Path::new("/base")) {
        Ok(config) => config,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            Config::default()
        }
    };

    // The input again as `key=value` overrides, one per line, the way `--key value`
    // reaches the library; every known key also gets the whole text as its value.
    for line in text.lines() {
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        if let Err(e) = config.set_from_command_line(key, value) {
            assert!(e.key().is_some(), "an override error names its flag: {e}");
        }
    }
    for key in keys() {
        let _ = config.set_from_command_line(&key, &text);
    }
});
