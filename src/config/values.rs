//! Every setting of a run, checked: what the rest of the binary reads. The
//! whole config is a part a theme (`config.lines.out_dir`), each part
//! declared with its defaults beside the keys that land in it (`keys/`).

use super::keys::{Books, Engines, Growth, Lines, Log, Mine, Walk, Write};

/// A theme's values as a part of the whole config: where its keys land.
pub trait Part: Sized + 'static {
    /// The part of `config` that is this theme's.
    fn of(config: &mut Config) -> &mut Self;
}

/// Declares [`Config`], a field a theme named as its file of `keys/`, and
/// where each theme's part is in it.
macro_rules! config {
    ($($field:ident: $part:ty),* $(,)?) => {
        /// Every setting of a run, checked, a part a theme.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Config {
            $(
                #[doc = concat!("The values of `keys/", stringify!($field), ".rs`.")]
                pub $field: $part,
            )*
        }

        $(
            impl Part for $part {
                fn of(config: &mut Config) -> &mut $part {
                    &mut config.$field
                }
            }
        )*
    };
}

config!(books: Books, engines: Engines, growth: Growth, lines: Lines, log: Log, mine: Mine, walk: Walk, write: Write);
