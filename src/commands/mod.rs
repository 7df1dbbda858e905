//! The commands of `bookminer`, a file each: the file's type is the
//! command's flags (clap's derive; its doc comment is the command's help)
//! and implements [`Run`]: the flags it takes over config keys, the files
//! it reads and writes, how it runs, and its summary, human and JSON.
//! [`Command`] and [`Command::into_run`] are the one place that lists them
//! (docs/architecture.md: how to add a command).

use crate::app::book::{book_and_positions, book_of};
use crate::app::error::AppError;
use crate::app::run::{Files, Run};
use crate::config::{Config, RunMode, Settings};
use bookminer::mine::OneOutput;
use clap::Subcommand;

/// Declares the commands from one list, each a variant of [`Command`] named
/// as its type and the file (src/commands/NAME.rs) that holds it: the
/// file's module, the enum clap reads, [`Command::into_run`] and
/// [`examples`].
macro_rules! commands {
    ($($variant:ident($file:ident)),* $(,)?) => {
        $(pub mod $file;)*

        /// The commands, in the order `--help` lists them.
        #[derive(Subcommand, Debug)]
        pub enum Command {
            $($variant($file::$variant),)*
        }

        impl Command {
            /// The command named, to run.
            pub fn into_run(self) -> Box<dyn Run> {
                match self {
                    $(Command::$variant(c) => Box::new(c),)*
                }
            }
        }

        /// The examples of a manual page: bookminer's own (no command),
        /// or the command `name`'s (its file's `EXAMPLES`); none for a name
        /// that is no command.
        pub fn examples(name: Option<&str>) -> &'static [(&'static str, &'static str)] {
            let Some(name) = name else { return EXAMPLES };
            [$((stringify!($file), $file::EXAMPLES)),*].into_iter().find(|(file, _)| *file == name).map_or(&[], |(_, e)| e)
        }
    };
}

// The one list of the commands, in the order `--help` lists them.
commands! {
    Mine(mine),
    Inspect(inspect),
    Verify(verify),
    Synth(synth),
    Convert(convert),
    Cut(cut),
    Fix(fix),
    Extend(extend),
    Deviate(deviate),
    Learn(learn),
    Recalculate(recalculate),
    Play(play),
    Fill(fill),
    Enhance(enhance),
    Grow(grow),
    Deepen(deepen),
    Merge(merge),
    Diff(diff),
    Check(check),
    New(new),
    Add(add),
    Completions(completions),
    Man(man),
    Stats(stats),
    Serve(serve),
}

/// A few command lines for bookminer's manual page (`bookminer man`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Mine as config.toml says (out/mode1.txt by default).", "bookminer"),
    ("Modes 1 to 4 in one walk, kifu, JSONL and OBF.", "bookminer --book book.dat --mode all --format kifu,jsonl,obf"),
    (
        "This command's page, and every page into a folder.",
        "bookminer man extend; bookminer man --dir ~/.local/share/man/man1",
    ),
];

/// What runs with no command named: mining, with the flags given before
/// where it writes (-o, --stdout), or inspect when the config's mode is 5.
pub fn implied() -> Box<dyn Run> {
    Box::new(Implied { output: None })
}

/// No command named ([`implied`]).
struct Implied {
    /// Where mining writes its lines instead of out_dir (-o, --stdout).
    output: Option<OneOutput>,
}

impl Run for Implied {
    /// The flags before any command are the top level's, applied first.
    fn settings(&self) -> Settings {
        Settings::default()
    }

    /// Mining's files, and the book and positions file as the config names them.
    fn files(&self, config: &Config) -> Files {
        let read = book_and_positions(None, config);
        Files { read, ..mine::files(config, self.output.clone()) }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        match config.mine.mode {
            RunMode::Inspect => inspect::run_inspect(config, None, &[], None, None),
            _ => mine::run_mine(book_of(None, config)?, config, self.output.clone()),
        }
    }

    fn given_before(&mut self, output: Option<OneOutput>) {
        self.output = output;
    }
}
