//! `serve`: the explorer, a book in the browser (docs/pictures.md; its
//! server is src/serve/).

use crate::app::book::{book_of, open_book, read_options};
use crate::app::error::{AppError, EXIT_INTERRUPTED};
use crate::app::interrupt::{cancel, stop_on_interrupt};
use crate::app::run::{Files, Run};
use crate::config::{BookKeys, Config, LogKeys, ReadKeys, Settings};
use crate::progress::Progress;
use bookminer::rules::modes::Rules;
use clap::Args;
use std::path::{Path, PathBuf};

/// Explore a book in the browser: the board, each move's score, the
/// leaf, level, counts and the mismatches of every mode at each position.
///
/// Opens the book (any format bookminer reads), indexes it, then serves
/// a page on http://127.0.0.1:PORT/ and prints that address: click a
/// move to play it, paste a kifu or an OBF board to go there;
/// /line/F5D6C3 opens that line, /api/inspect/F5D6C3 gives what
/// `inspect --summary json` gives for it. Listens on 127.0.0.1 only,
/// unless --address names another. Reads nothing but the book; Ctrl-C
/// stops it (exit status 0).
#[derive(Args, Debug)]
pub struct Serve {
    /// The book file; default: --book, or the config's book.
    #[arg(value_name = "BOOK")]
    path: Option<PathBuf>,
    /// The port to listen on; 0 takes a free one (the address printed says which).
    #[arg(long, value_name = "PORT", default_value_t = 8046)]
    port: u16,
    /// The address to listen on: 127.0.0.1 unless another is named
    /// (0.0.0.0 offers the book to every machine that can reach this one).
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    address: std::net::IpAddr,
    /// A name the page may also be asked under (besides the address's
    /// own, and localhost for 127.0.0.1): a request naming another site in
    /// its Host field is refused, so that no page elsewhere reads the book.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_host: Vec<String>,
    #[command(flatten)]
    book: BookKeys,
    #[command(flatten)]
    read: ReadKeys,
    #[command(flatten)]
    log: LogKeys,
}

impl Run for Serve {
    fn settings(&self) -> Settings {
        Settings { book: self.book.clone(), read: self.read.clone(), log: self.log.clone(), ..Settings::default() }
    }

    fn files(&self, config: &Config) -> Files {
        // The book alone: a positions file is inspect's.
        let read = book_of(self.path.as_deref(), config).map(Path::to_path_buf).into_iter().collect();
        Files { read, ..Files::default() }
    }

    fn run(&self, config: &Config) -> Result<u8, AppError> {
        let address = std::net::SocketAddr::new(self.address, self.port);
        run_serve(book_of(self.path.as_deref(), config)?, config, address, &self.allow_host)
    }
}

/// The explorer (docs/pictures.md): the book opened, then served until
/// Ctrl-C (status 0); Ctrl-C during the load serves nothing (status 130).
fn run_serve(
    book_path: &Path,
    config: &Config,
    address: std::net::SocketAddr,
    allow_hosts: &[String],
) -> Result<u8, AppError> {
    stop_on_interrupt("the server stops");
    let rules = Rules { min_gap: config.mine.min_gap, linkless: config.mine.mode1_linkless };
    let book = open_book(book_path, config, &mut Progress::default())?;
    if cancel().is_set() {
        return Ok(EXIT_INTERRUPTED);
    }
    let listener = crate::serve::listen(address).map_err(|source| AppError::Listen { address, source })?;
    let served = crate::serve::Served {
        path: book_path.to_path_buf(),
        book,
        options: read_options(config),
        rules,
        allow_hosts: allow_hosts.to_vec(),
    };
    crate::serve::run(listener, served, cancel())
        .map_err(|source| AppError::Io { path: PathBuf::from("<standard output>"), source })
}

/// A few command lines for serve's manual page (`bookminer man serve`): what each
/// is said, then the line.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("Explore the book at http://127.0.0.1:8046/line/F5D6C3.", "bookminer serve book.dat"),
    ("On a port the system chooses, printed once listening.", "bookminer serve book.dat --port 0"),
];
