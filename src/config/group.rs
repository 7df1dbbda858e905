//! A group of keys as a command takes them: the flags it declares (clap's
//! `Args`, made from each key's definition) and the values given on its
//! command line, as text clap has checked with the key's parser; and a
//! theme's values, each with its default, which its keys land in.

use super::key::AnyKey;
use super::parse::BadValue;
use std::path::Path;

/// The keys of a group the command line gave, each with its texts; they
/// land in `S`, their theme's values.
pub struct Given<S: 'static>(pub Vec<(&'static dyn AnyKey<S>, Vec<String>)>);

impl<S> Clone for Given<S> {
    fn clone(&self) -> Self {
        Given(self.0.clone())
    }
}

impl<S> Default for Given<S> {
    fn default() -> Self {
        Given(Vec::new())
    }
}

impl<S> std::fmt::Debug for Given<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.0.iter().map(|(key, texts)| (key.name(), texts))).finish()
    }
}

impl<S> Given<S> {
    /// What `matches` holds of `keys`.
    pub fn take(keys: &[&'static dyn AnyKey<S>], matches: &mut clap::ArgMatches) -> Given<S> {
        let given = keys.iter().filter_map(|&key| {
            let texts: Vec<String> = matches.remove_many::<String>(key.name())?.collect();
            Some((key, texts))
        });
        Given(given.collect())
    }

    /// Each key given landed in `values`; the error names the flag.
    pub fn apply(&self, values: &mut S, base: &Path) -> Result<(), (&'static str, BadValue)> {
        for (key, texts) in &self.0 {
            key.apply(values, texts, base).map_err(|e| (key.long(), e))?;
        }
        Ok(())
    }

    /// The texts given for the key `name`, if it was given.
    #[cfg_attr(not(test), allow(dead_code))] // the tests'
    pub fn texts(&self, name: &str) -> Option<&[String]> {
        self.0.iter().find(|(key, _)| key.name() == name).map(|(_, texts)| texts.as_slice())
    }
}

/// A group of keys whose values land in one theme's values.
pub trait Group {
    /// The theme's values (`keys/`: `Books`, `Write`...).
    type Values: 'static;
    /// Every key of the group, a group within it included.
    fn every_key() -> Vec<&'static dyn AnyKey<Self::Values>>;
    /// What the command line gave of them landed in `values`; the error names the flag.
    fn apply(&self, values: &mut Self::Values, base: &Path) -> Result<(), (&'static str, BadValue)>;
}

/// Declares a group of keys: `group!(Doc; ReadKeys of Books: EGBK_LEVEL,
/// THREADS)` makes `ReadKeys`, whose flags are those keys' (their values
/// land in `Books`) and which holds what the command line gave of them. A
/// group may hold another of its theme (`grow`'s `stop`).
macro_rules! group {
    ($(#[$doc:meta])* $name:ident of $values:ty: $($key:expr),* $(; $field:ident: $inner:ty)?) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default)]
        pub struct $name {
            /// The keys given.
            pub given: $crate::config::group::Given<$values>,
            $(
                #[doc = "The group within it."]
                pub $field: $inner,
            )?
        }

        impl $name {
            /// The group's own keys, in the order its flags are declared.
            pub fn keys() -> Vec<&'static dyn $crate::config::key::AnyKey<$values>> {
                vec![$(&$key),*]
            }
        }

        impl $crate::config::group::Group for $name {
            type Values = $values;

            fn every_key() -> Vec<&'static dyn $crate::config::key::AnyKey<$values>> {
                #[allow(unused_mut)] // a group with none within
                let mut keys = Self::keys();
                $(keys.extend(<$inner as $crate::config::group::Group>::every_key());)?
                keys
            }

            fn apply(
                &self,
                values: &mut $values,
                base: &std::path::Path,
            ) -> Result<(), (&'static str, $crate::config::parse::BadValue)> {
                self.given.apply(values, base)?;
                $($crate::config::group::Group::apply(&self.$field, values, base)?;)?
                Ok(())
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

/// Declares a theme's values, each with its default beside it:
/// `values!(Doc; Write { force: bool = false })` makes `Write`, its
/// `Default` those values; the whole config holds one of each theme.
macro_rules! values {
    ($(#[$doc:meta])* $name:ident { $($(#[$field_doc:meta])* $field:ident: $type:ty = $default:expr),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $type,)*
        }

        impl Default for $name {
            fn default() -> $name {
                $name { $($field: $default),* }
            }
        }
    };
}
pub(crate) use values;
