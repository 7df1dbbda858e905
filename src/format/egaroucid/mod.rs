//! Egaroucid's books (docs/formats.md, Egaroucid books): the `.egbk3`
//! read in place ([`read`]) and encoded ([`encode`]), and the older
//! `.egbk2` and `.egbk` ([`older`]), checked and translated into the
//! `.egbk3` layout as they are read.

pub mod encode;
pub mod older;
pub mod read;
#[cfg(test)]
mod tests;

pub use encode::{encode_header, encode_record, from_edax, header, leaf_pair, put_leaf, put_value, LeftOut};
pub use read::{
    candidates, found_links_of, is_egaroucid, links_of, offset_of, parse_header, record_at, records, Candidate,
    FoundLink, Header, Lookup, RawRecord, HEADER_LEN, MAGIC, NO_LEAF_MOVE, NO_VALUE, N_BOARDS_AT, RECORD_LEN, VALUE_AT,
    VERSION,
};
