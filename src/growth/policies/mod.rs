//! The growth policies, a file each: what each growth command expands or
//! searches next over the one growth session (`super::session`).

pub mod add;
pub mod deepen;
pub mod deviate;
pub mod enhance;
pub mod fill;
pub mod grow;
pub mod learn;
pub mod link;
pub mod new_book;
pub mod play;
