//! Output (docs/modes.md, output), by job: [`text`] renders lines and boards, [`mod@print`]
//! turns records (a mode's mismatches, `check`'s lines) into lines of each
//! format, [`line_files`] holds a set's files and decides which records they
//! get, and [`manifest`] records a run's set of files. Files are written
//! through [`crate::files`], which makes them appear complete or not at all.

pub mod line_files;
pub mod manifest;
pub mod placed;
pub mod print;
mod seen;
pub mod stdout;
pub mod text;

pub use line_files::{mode_of_file_name, output_path, FileReport, FileSettings, KifuFile, LineFiles, Place, Stem};
pub use print::{Lined, Printer, RecordFormat, RecordFormats};
pub use stdout::{STDOUT, STDOUT_NAME};
pub use text::{LineStyle, Orientation, BOM};
