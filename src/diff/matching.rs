//! Each board of the old book found in the new one, while both indexes are
//! there. The two books are read side by side in file order first: a book
//! and what `fix` or a rewrite made of it keep their records in place, so
//! most boards are found where they were without a lookup.

use crate::bits::Bits;
use crate::book::index::Located;
use crate::book::{Book, RecordId};
use crate::run::Cancel;

/// No record of the new book holds the board.
const NONE: Located = Located { id: RecordId(u32::MAX), hint: 0 };

/// Old records checked between looks at the cancel flag.
const CHECK_EVERY: usize = 1 << 16;

/// Where each old record's board is in the new book.
pub struct Matches {
    /// By old record id.
    in_new: Vec<Located>,
    /// New records that hold a board of the old book.
    matched: Bits,
}

impl Matches {
    /// The new book's record of the old record `id`'s board.
    pub fn in_new(&self, id: RecordId) -> Option<Located> {
        self.in_new.get(id.index()).copied().filter(|at| *at != NONE)
    }

    /// How many new records hold a board of the old book.
    pub fn matched(&self) -> u64 {
        self.matched.count()
    }

    /// Whether the new record `id` holds a board of the old book.
    pub fn is_matched(&self, id: RecordId) -> bool {
        self.matched.contains(id)
    }
}

/// Finds every board of `old` in `new`; none if `cancel` is set meanwhile.
pub fn match_boards(old: &Book, new: &Book, cancel: Cancel<'_>) -> Option<Matches> {
    let mut in_new = vec![NONE; old.counts().records as usize];
    let mut matched = Bits::new(new.counts().records as usize);
    let mut alongside = new.file().every_record().peekable();
    for (n, at) in old.file().every_record().enumerate() {
        if n % CHECK_EVERY == 0 && cancel.is_set() {
            return None;
        }
        let board = old.file().board_of(at);
        while alongside.next_if(|there| there.id < at.id).is_some() {}
        let in_place = alongside.peek().filter(|there| there.id == at.id && new.file().board_of(**there) == board);
        if let Some(found) = in_place.copied().or_else(|| new.locate(&board)) {
            in_new[at.id.index()] = found;
            matched.insert(found.id);
        }
    }
    Some(Matches { in_new, matched })
}
