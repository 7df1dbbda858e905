//! How bookminer speaks to an engine: each protocol a folder of
//! `src/engine/`, chosen by the engine's command (config key `protocol`,
//! flag `--protocol`).

use crate::choice::Choice;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// Edax 4.6's console, with its books of excluded moves ([`super::edax`]).
    #[default]
    EdaxConsole,
}

impl Choice for Protocol {
    const ALL: &'static [Protocol] = &[Protocol::EdaxConsole];

    fn name(self) -> &'static str {
        match self {
            Protocol::EdaxConsole => "edax",
        }
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Protocol::EdaxConsole => "Edax 4.6's console, or anything that speaks it (docs/extend.md)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocol_is_found_by_its_name_in_any_case_and_edax_is_the_default() {
        assert_eq!(Protocol::named("edax"), Some(Protocol::EdaxConsole));
        assert_eq!(Protocol::named("EDAX"), Some(Protocol::EdaxConsole));
        assert_eq!(Protocol::named("uci"), None);
        assert_eq!(Protocol::default(), Protocol::EdaxConsole);
    }
}
