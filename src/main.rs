//! The `bookminer` command: its course is `cli::start::main` (src/cli/);
//! the rest of the binary is its commands (src/commands/), its config
//! (src/config/), the explorer (src/serve/) and what they share
//! (src/app/).
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

fn main() -> std::process::ExitCode {
    cli::start::main()
}
