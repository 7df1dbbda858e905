//! The binary's front hall: the command line parsed (`args`) and a run's
//! course (`start`, which `main` calls). The commands are src/commands/,
//! what they share src/app/, the keys src/config/.

pub mod args;
pub mod start;
