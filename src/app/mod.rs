//! What every command of src/commands/ shares, a file a concern: the
//! contract a command fulfils (`run`), its failures and exit statuses
//! (`error`), the refusals made before any work (`refusals`), Ctrl-C
//! (`interrupt`), a long run's control and display (`control`), how a run
//! ends (`ending`), the book it reads (`book`), the library's options made
//! from the config (`options`), the names of its outputs (`outputs`), and
//! what every growth command does first (`growth`).

pub mod book;
pub mod control;
pub mod ending;
pub mod error;
pub mod growth;
pub mod interrupt;
pub mod options;
pub mod outputs;
pub mod refusals;
pub mod run;
