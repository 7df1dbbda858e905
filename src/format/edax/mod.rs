//! Edax's `book.dat` (docs/formats.md, Edax books): read in place
//! ([`read`]), encoded ([`encode`]), rewritten in place ([`patch`]),
//! positions made by hand in its layout ([`entries`]), and the bucket of
//! Edax's hash table each board falls in, the order Edax writes a book in
//! ([`mod@bucket`]).

pub mod bucket;
pub mod encode;
pub mod entries;
pub mod leaf;
pub mod patch;
pub mod read;

pub use bucket::bucket;
pub use encode::{
    book_new_header, encode_header, encode_record, from_egaroucid, header_from, new_header, pass_record, pruned,
    EdaxRecord, Relinked,
};
pub use leaf::leaf_pair;
pub(crate) use read::board_problems;
pub use read::{
    is_edax, links_before, n_links_at, next_record, parse_header, record_at, records, records_from, whole_records,
    Header, RawRecord, Starts, WholeRecords, BOARD_LEN, COUNTS_AT, HEADER_LEN, HINT_END, LINKS_AT, MAGIC, N_LINK_AT,
    N_NODES_AT, RECORD_MAX_LEN, RECORD_MIN_LEN, STARTS_EVERY, VALUE_AT, VERSION,
};
