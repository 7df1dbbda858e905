//! The growth policies, a file each: what each growth command grows or
//! searches, over the one growth session (`crate::growth::session`); each
//! a value that implements `crate::growth::Policy`, run by `crate::growth::run`.

pub mod add;
pub mod deepen;
pub mod deviate;
pub mod enhance;
pub mod extend;
pub mod fill;
pub mod grow;
pub mod learn;
pub mod link;
pub mod new_book;
pub mod play;
