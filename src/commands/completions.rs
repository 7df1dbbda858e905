//! `completions`: a shell's completion script, made from the command
//! line's definition.

use crate::app::ending::print_page;
use crate::app::error::AppError;
use crate::app::run::{Files, Run};
use crate::config::{Config, Settings};
use crate::manual::Examples;
use clap::Args;

/// Print a shell completion script to standard output.
///
/// bash: `bookminer completions bash > ~/.local/share/bash-completion/completions/bookminer`;
/// zsh: `bookminer completions zsh > ~/.zfunc/_bookminer` (with ~/.zfunc in fpath);
/// fish: `bookminer completions fish > ~/.config/fish/completions/bookminer.fish`.
#[derive(Args, Debug)]
pub struct Completions {
    /// The shell to complete for.
    #[arg(value_enum, ignore_case = true)]
    shell: clap_complete::Shell,
}

impl Run for Completions {
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

    fn document(&self, cli: fn() -> clap::Command, _examples: Examples) -> Option<u8> {
        let mut page = Vec::new();
        clap_complete::generate(self.shell, &mut cli(), "bookminer", &mut page);
        Some(print_page(&page))
    }
}

/// A few command lines for completions's manual page (`bookminer man completions`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("bash's completions, in a folder made if need be.", "mkdir -p ~/.local/share/bash-completion/completions && bookminer completions bash > ~/.local/share/bash-completion/completions/bookminer"),
];
