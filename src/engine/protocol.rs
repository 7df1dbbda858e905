//! How bookminer speaks to an engine: each protocol a folder of
//! `src/engine/` implementing [`Console`], listed here and nowhere else
//! (the compiler names each match below when one is added).
//! Which one an engine speaks is told from its greeting
//! ([`super::greeting`]), or named (config key `engine_protocol`, an
//! engine table's `protocol`, flag `--engine-protocol`).

use super::console::{Console, WorkerFiles};
use crate::choice::Choice;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Edax 4.6's console, with its books of excluded moves ([`super::edax`]).
    EdaxConsole,
    /// Egaroucid for Console 7.8 ([`super::egaroucid`]).
    EgaroucidConsole,
}

impl Protocol {
    /// A console of this protocol for one worker's process.
    pub fn console(self, files: &WorkerFiles) -> Box<dyn Console> {
        match self {
            Protocol::EdaxConsole => Box::new(super::edax::EdaxConsole::new(files)),
            Protocol::EgaroucidConsole => Box::new(super::egaroucid::EgaroucidConsole::new(files)),
        }
    }

    /// The protocol an engine not named is started as for its greeting:
    /// Edax's, whose one addition to the command line (`-book-file`)
    /// Egaroucid's console ignores, while Egaroucid's (`-nobook -quiet`)
    /// would stop Edax.
    pub const PROBED_AS: Protocol = Protocol::EdaxConsole;

    /// Whether `line`, printed by an engine answering the greeting's probe
    /// ([`super::console::PROBE`]), is this protocol's console answering.
    pub fn answers_probe(self, line: &str) -> bool {
        match self {
            Protocol::EdaxConsole => super::edax::answers_probe(line),
            Protocol::EgaroucidConsole => super::egaroucid::answers_probe(line),
        }
    }

    /// How many of its processes run at once when the user says nothing,
    /// on a machine with `cores` cores.
    pub fn default_workers(self, cores: usize) -> usize {
        match self {
            Protocol::EdaxConsole => cores,
            Protocol::EgaroucidConsole => super::egaroucid::default_workers(cores),
        }
    }
}

impl Choice for Protocol {
    const ALL: &'static [Protocol] = &[Protocol::EdaxConsole, Protocol::EgaroucidConsole];

    fn name(self) -> &'static str {
        match self {
            Protocol::EdaxConsole => "edax",
            Protocol::EgaroucidConsole => "egaroucid",
        }
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Protocol::EdaxConsole => "Edax 4.6's console, or anything that speaks it (docs/extend.md)",
            Protocol::EgaroucidConsole => "Egaroucid for Console 7.8 (docs/extend.md)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocol_is_found_by_its_name_in_any_case() {
        assert_eq!(Protocol::named("edax"), Some(Protocol::EdaxConsole));
        assert_eq!(Protocol::named("EDAX"), Some(Protocol::EdaxConsole));
        assert_eq!(Protocol::named("Egaroucid"), Some(Protocol::EgaroucidConsole));
        assert_eq!(Protocol::named("uci"), None);
    }

    #[test]
    fn each_protocol_knows_its_own_answer_to_the_probe_and_not_the_others() {
        let edax = "> # bookminer-hello\n";
        let egaroucid = "[ERROR] command `echo` not found\n";
        assert!(Protocol::EdaxConsole.answers_probe(edax) && !Protocol::EdaxConsole.answers_probe(egaroucid));
        assert!(Protocol::EgaroucidConsole.answers_probe(egaroucid));
        assert!(!Protocol::EgaroucidConsole.answers_probe(edax));
        for line in ["", ">", "Welcome", "[ERROR] [FATAL] no eval file"] {
            assert!(Protocol::ALL.iter().all(|p| !p.answers_probe(line)), "{line}");
        }
    }
}
