//! The `bookminer` command: parse the command line, settle the config, run the
//! chosen command, and turn its outcome into an exit status.
#![deny(unsafe_code)]

mod app;
mod cli;
mod commands;
mod config;
mod heartbeat;
mod logging;
mod manual;
mod progress;
mod serve;
mod summary;

use std::io::Write;
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

fn main() -> ExitCode {
    guard_engines();
    bookminer::os::fail_writes_past_the_size_limit();
    let (cli, command) = cli::parse();
    // Made from the command line alone: a bad config.toml does not stop them.
    if let Some(status) = command.document(cli::command, commands::examples) {
        return ExitCode::from(status);
    }
    summary::set(summary::Ending { quiet: cli.quiet, summary: cli.summary });
    if cli.quiet {
        progress::silence();
    }
    let config_file = cli.config_file();
    let config = app::settle_config(config_file.as_deref(), cli.settings(&*command))
        .and_then(|config| app::check_files(&*command, config_file.as_deref(), &config).map(|()| config));
    let config = match config {
        Ok(config) => config,
        Err(e) => {
            // Not eprintln!: a closed stderr must not turn a refusal into a panic.
            let _ = writeln!(std::io::stderr(), "error: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    let on_stderr = match cli.verbose {
        0 => logging::OnStderr::Problems,
        more => logging::OnStderr::Verbose(more),
    };
    logging::init(config.log_level, config.log_file.is_some(), on_stderr, cli.quiet);
    heartbeat::set_interval(config.progress_seconds);
    bookminer::set_threads(config.threads);
    match command.run(&config) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            if !matches!(e, app::AppError::StdoutClosed) {
                tracing::error!("{e}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
