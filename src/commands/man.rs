//! `man`: the manual pages (src/manual.rs), made from the command line's
//! definition, printed one at a time or written all into a folder.

use crate::app::ending::{print_page, said};
use crate::app::error::{AppError, EXIT_BAD_INPUT, EXIT_IO};
use crate::app::run::{Files, Run};
use crate::config::{Config, Settings};
use crate::manual::Examples;
use clap::Args;

/// Print a manual page (roff) to standard output, or write every page
/// into a folder.
///
/// `bookminer man | man -l -`: bookminer's page; `bookminer man extend`:
/// extend's (bookminer-extend); `bookminer man --dir
/// ~/.local/share/man/man1`: bookminer.1 and a bookminer-COMMAND.1 for
/// each command, the folder made if need be (then `man bookminer-extend`).
#[derive(Args, Debug)]
pub struct Man {
    /// The command whose page to print (bookminer's own without one).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    command: Option<String>,
    /// Write every page into DIR (made if need be) instead of printing one.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    dir: Option<std::path::PathBuf>,
}

impl Run for Man {
    fn settings(&self) -> Settings {
        Settings::default()
    }

    fn files(&self, _config: &Config) -> Files {
        Files::default()
    }

    /// Printed by [`Run::document`], before any config is read.
    fn run(&self, _config: &Config) -> Result<u8, AppError> {
        Ok(0)
    }

    fn document(&self, cli: fn() -> clap::Command, examples: Examples) -> Option<u8> {
        let cli = cli();
        Some(match &self.dir {
            None => match crate::manual::page(cli, self.command.as_deref(), examples) {
                Ok(page) => print_page(&page),
                Err(why) => said(&format!("error: man: {why}"), EXIT_BAD_INPUT),
            },
            Some(dir) => match crate::manual::write_all(cli, dir, examples) {
                Ok(pages) => said(&format!("{} pages written into {}", pages.len(), dir.display()), 0),
                Err(e) => said(&format!("error: {}: {e}", dir.display()), EXIT_IO),
            },
        })
    }
}

/// A few command lines for man's manual page (`bookminer man man`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("One command's page.", "bookminer man extend | man -l -"),
    ("Every page, into a folder made if need be.", "bookminer man --dir ~/.local/share/man/man1"),
];
