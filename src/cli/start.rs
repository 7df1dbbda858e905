//! The command's course: parse the command line, settle the config, refuse
//! what must be refused, run the chosen command, and turn its outcome into
//! an exit status.

use crate::app::error::AppError;
use crate::app::refusals::check_files;
use crate::cli::args;
use crate::config::{Config, Settings};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Engines run under this binary's engine guard (bookminer::os::engine_guard),
/// which ends everything an engine starts; started as the guard, the
/// binary is the guard and nothing else.
fn guard_engines() {
    #[cfg(target_os = "linux")]
    {
        use bookminer::os::engine_guard;
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if args.get(1).is_some_and(|a| a == engine_guard::GUARD_ARG) {
            engine_guard::run(&args[2..]);
        }
        // This very file, even if a newer build has replaced it on disk since.
        bookminer::os::guard_engines_with("/proc/self/exe".into());
    }
}

/// The command: parse, settle the config, run, and the exit status.
pub fn main() -> ExitCode {
    guard_engines();
    bookminer::os::fail_writes_past_the_size_limit();
    let (cli, command) = args::parse();
    // Made from the command line alone: a bad config.toml does not stop them.
    if let Some(status) = command.document(args::command, crate::commands::examples) {
        return ExitCode::from(status);
    }
    crate::summary::set(crate::summary::Ending { quiet: cli.quiet, summary: cli.summary });
    if cli.quiet {
        crate::progress::silence();
    }
    let config_file = cli.config_file();
    let config = settle_config(config_file.as_deref(), cli.settings(&*command))
        .and_then(|config| check_files(&*command, config_file.as_deref(), &config).map(|()| config));
    let config = match config {
        Ok(config) => config,
        Err(e) => {
            // Not eprintln!: a closed stderr must not turn a refusal into a panic.
            let _ = writeln!(std::io::stderr(), "error: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    let on_stderr = match cli.verbose {
        0 => crate::logging::OnStderr::Problems,
        more => crate::logging::OnStderr::Verbose(more),
    };
    crate::logging::init(config.log.log_level, config.log.log_file.is_some(), on_stderr, cli.quiet);
    crate::heartbeat::set_interval(config.log.progress_seconds);
    bookminer::set_threads(config.books.threads);
    match command.run(&config) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            if !matches!(e, AppError::StdoutClosed) {
                tracing::error!("{e}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}

/// The config file (`config_file`: given, or ./config.toml if present;
/// none: defaults) with the command-line flags applied over it, those
/// before the command first.
pub fn settle_config(config_file: Option<&Path>, flags: [Settings; 2]) -> Result<Config, AppError> {
    let mut config = match config_file {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    for settings in flags {
        config.apply_flags(&settings)?;
    }
    Ok(config)
}
