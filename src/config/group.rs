//! A group of keys as a command takes them: the flags it declares (clap's
//! `Args`, made from each key's definition) and the values given on its
//! command line, as text clap has checked with the key's parser.

use super::key::AnyKey;
use super::parse::BadValue;
use super::values::Config;
use std::path::Path;

/// The keys of a group the command line gave, each with its texts.
#[derive(Clone, Default)]
pub struct Given(pub Vec<(&'static dyn AnyKey, Vec<String>)>);

impl std::fmt::Debug for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.0.iter().map(|(key, texts)| (key.name(), texts))).finish()
    }
}

impl Given {
    /// What `matches` holds of `keys`.
    pub fn take(keys: &[&'static dyn AnyKey], matches: &mut clap::ArgMatches) -> Given {
        let given = keys.iter().filter_map(|&key| {
            let texts: Vec<String> = matches.remove_many::<String>(key.name())?.collect();
            Some((key, texts))
        });
        Given(given.collect())
    }

    /// Each key given landed in `config`; the error names the flag.
    pub fn apply(&self, config: &mut Config, base: &Path) -> Result<(), (&'static str, BadValue)> {
        for (key, texts) in &self.0 {
            key.apply(config, texts, base).map_err(|e| (key.long(), e))?;
        }
        Ok(())
    }

    /// The texts given for the key `name`, if it was given.
    #[cfg_attr(not(test), allow(dead_code))] // the tests'
    pub fn texts(&self, name: &str) -> Option<&[String]> {
        self.0.iter().find(|(key, _)| key.name() == name).map(|(_, texts)| texts.as_slice())
    }
}

/// Declares a group of keys: `group!(Doc; ReadKeys: EGBK_LEVEL, THREADS)`
/// makes `ReadKeys`, whose flags are those keys' and which holds what the
/// command line gave of them. A group may hold another (`grow`'s `stop`).
macro_rules! group {
    ($(#[$doc:meta])* $name:ident: $($key:expr),* $(; $field:ident: $inner:ty)?) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default)]
        pub struct $name {
            /// The keys given.
            pub given: $crate::config::group::Given,
            $(
                #[doc = "The group within it."]
                pub $field: $inner,
            )?
        }

        impl $name {
            /// The group's own keys, in the order its flags are declared.
            pub fn keys() -> Vec<&'static dyn $crate::config::key::AnyKey> {
                vec![$(&$key),*]
            }
        }

        impl clap::FromArgMatches for $name {
            fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
                Self::from_arg_matches_mut(&mut matches.clone())
            }

            fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
                Ok($name {
                    given: $crate::config::group::Given::take(&Self::keys(), matches),
                    $($field: <$inner as clap::FromArgMatches>::from_arg_matches_mut(matches)?,)?
                })
            }

            fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
                *self = Self::from_arg_matches(matches)?;
                Ok(())
            }
        }

        impl clap::Args for $name {
            fn augment_args(cmd: clap::Command) -> clap::Command {
                let cmd = Self::keys().into_iter().fold(cmd, |cmd, key| cmd.arg(key.arg()));
                $(let cmd = <$inner as clap::Args>::augment_args(cmd);)?
                cmd
            }

            fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
                Self::augment_args(cmd)
            }
        }
    };
}
pub(crate) use group;
