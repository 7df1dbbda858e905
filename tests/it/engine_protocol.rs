//! The protocol an engine speaks, named by the config (`protocol`, or an
//! engine table's own `protocol`) or the flag `--protocol`: `edax` (Edax's
//! console) is the only one and the default, so naming it changes no byte
//! of what is grown, and any other name is refused before anything runs.

use crate::common::bin;
use crate::extend::{book, extend, run, solver, stderr, RUN_TAG, START};
use std::path::Path;
use std::process::{Command, Output};

/// `bookminer --config CONFIG extend IN out.dat` from [`START`], in `dir`,
/// its engine and protocol named by the config file alone.
fn extend_configured(dir: &Path, config: &str) -> Output {
    std::fs::write(dir.join("c.toml"), config).unwrap();
    let mut command: Command = bin();
    command.current_dir(dir).args(["--config", "c.toml", "extend"]).arg(book()).arg("out.dat");
    command.args(["--workers", "2", "--start", START, "--out-dir", "o", "--log-file", "o/log"]).env(RUN_TAG, dir);
    run(command)
}

#[test]
fn naming_the_edax_protocol_grows_the_very_book_grown_without_it() {
    let plain = tempfile::tempdir().unwrap();
    let out = run(extend(plain.path(), &book(), "out.dat", &[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = std::fs::read(plain.path().join("out.dat")).unwrap();
    let flag = tempfile::tempdir().unwrap();
    let out = run(extend(flag.path(), &book(), "out.dat", &["--protocol", "edax"]));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(flag.path().join("out.dat")).unwrap() == expected, "--protocol edax: the same book");
    for config in [
        format!("engine = [{{ command = {:?}, protocol = \"edax\" }}]\n", solver()),
        format!("protocol = \"EDAX\"\nengine = {:?}\n", solver()),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = extend_configured(dir.path(), &config);
        assert!(out.status.success(), "{config}: {}", stderr(&out));
        assert!(std::fs::read(dir.path().join("out.dat")).unwrap() == expected, "{config}: the same book");
    }
}

#[test]
fn an_unknown_protocol_is_refused_naming_where_and_the_protocols_known() {
    for (config, key) in [
        (format!("engine = [{{ command = {:?}, protocol = \"uci\" }}]\n", solver()), "`engine`"),
        (format!("protocol = \"uci\"\nengine = {:?}\n", solver()), "`protocol`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = extend_configured(dir.path(), &config);
        assert_eq!(out.status.code(), Some(2), "{config}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("c.toml") && err.contains(key) && err.contains("\"uci\""), "{config}: {err}");
        assert!(err.contains("allowed values: \"edax\""), "{config}: {err}");
        assert!(!dir.path().join("out.dat").exists() && !dir.path().join("o").exists(), "{config}: nothing written");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(extend(dir.path(), &book(), "out.dat", &["--protocol", "uci"]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--protocol") && err.contains("'uci'") && err.contains("edax"), "{err}");
    assert!(!dir.path().join("out.dat").exists() && !dir.path().join("o").exists(), "nothing written");
}
