//! `bookminer serve` (docs/pictures.md, the explorer): the book, opened and
//! indexed once, served on one address. The server reads nothing but the
//! book: every answer is made from it and from the page compiled into the
//! binary ([`routes`]); a request that is not one of the routes gets an
//! HTTP error and a message.
//!
//! No client stops it (docs/architecture.md, "serve"): each connection is
//! served by a thread of its own, at most [`MAX_CONNECTIONS`] at once, each
//! bounded in time ([`http`]), so a client that sends slowly, reads
//! nothing or pipelines thousands of requests holds one thread for seconds
//! and no one else; the connections beyond are answered 503 at once, and
//! so are those that come when the process has no descriptor left, by a
//! thread of refusals ([`refuse`]). The accepting loop never reads nor
//! writes a client, and waits for connections without polling; Ctrl-C and
//! SIGTERM wake it (a connection of its own) and stop it within [`POLL`]. Only the names of the address it listens on are
//! answered (DNS rebinding: a page elsewhere cannot read the book), and a
//! book rewritten while served is read again.

mod http;
mod refuse;
mod routes;
mod view;

use bookminer::book::{Book, ReadOptions};
use bookminer::rules::modes::Rules;
use bookminer::run::Cancel;
use http::Reply;
use refuse::Refuser;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the stop is looked at, and the loop woken once it is set.
const POLL: Duration = Duration::from_millis(50);
/// The connections served at once; those beyond are answered 503.
pub const MAX_CONNECTIONS: usize = 128;

/// What is served: the book as opened, how to open it again, the rules
/// the mismatches are found with, and the `Host` names answered besides
/// the address's own.
pub struct Served {
    /// The book's file.
    pub path: PathBuf,
    /// The book, opened.
    pub book: Book,
    /// How it was opened, to open it again when rewritten.
    pub options: ReadOptions,
    /// The modes' settings.
    pub rules: Rules,
    /// `--allow-host`: more names the page may be asked under.
    pub allow_hosts: Vec<String>,
}

/// Binds `address`; the error is the system's (the port in use, ...).
pub fn listen(address: SocketAddr) -> io::Result<TcpListener> {
    let listener = TcpListener::bind(address)?;
    Ok(listener)
}

/// Serves until `cancel` is set; prints the address the page is on (the
/// port the system chose, for port 0) once listening.
pub fn run(listener: TcpListener, served: Served, cancel: Cancel<'_>) -> io::Result<u8> {
    let bound = listener.local_addr()?;
    let mut out = io::stdout().lock();
    writeln!(out, "serving {} at http://{bound}/ (Ctrl-C stops)", served.path.display())?;
    out.flush()?;
    drop(out);
    tracing::info!("{}: serving at http://{bound}/", served.path.display());
    let state = Arc::new(State::new(served, bound.ip()));
    let active = Arc::new(AtomicUsize::new(0));
    let refuser = Refuser::start(&HEADERS)?;
    let stopped = AtomicBool::new(false);
    std::thread::scope(|scope| -> io::Result<()> {
        std::thread::Builder::new()
            .name("serve-stop".into())
            .spawn_scoped(scope, || wake_on_stop(bound, cancel, Cancel::new(&stopped)))?;
        accept_until(&listener, cancel, &state, &active, &refuser);
        stopped.store(true, Ordering::SeqCst);
        Ok(())
    })?;
    // The threads still serving are not waited for: each ends within its
    // bounds, and the process's end ends them first.
    tracing::info!("{}: the server stopped", state.path.display());
    Ok(0)
}

/// Accepts and dispatches connections until `cancel` is set. The accept
/// waits (no poll: a connection is taken the moment it comes);
/// [`wake_on_stop`] connects once a stop is asked, so that it returns.
fn accept_until(
    listener: &TcpListener,
    cancel: Cancel<'_>,
    state: &Arc<State>,
    active: &Arc<AtomicUsize>,
    refuser: &Refuser,
) {
    // A descriptor held back, to accept and refuse a connection with when
    // every other is in use (without it the connection would wait unseen).
    let mut reserve = std::fs::File::open("/dev/null").ok();
    while !cancel.is_set() {
        match listener.accept() {
            Ok((stream, _)) => dispatch(stream, state, active, refuser),
            Err(e) if out_of_descriptors(&e) => {
                tracing::warn!("no file descriptor left to answer a connection with ({e}): it is refused");
                drop(reserve.take());
                if let Ok((stream, _)) = listener.accept() {
                    refuser.refuse(stream, "no file descriptor is left (see `ulimit -n`); try again later".into());
                }
                reserve = std::fs::File::open("/dev/null").ok();
                std::thread::sleep(POLL);
            }
            Err(e) => {
                tracing::debug!("a connection was not accepted: {e}");
                std::thread::sleep(POLL);
            }
        }
    }
}

/// Once `cancel` is set, connects to `bound` until the loop says it
/// `stopped`: the accept it waits in returns and the loop sees the stop.
/// A descriptor is held back for the connection, so that one is left
/// when the clients took all others.
fn wake_on_stop(bound: SocketAddr, cancel: Cancel<'_>, stopped: Cancel<'_>) {
    let mut reserve = std::fs::File::open("/dev/null").ok();
    // The address connected to: the listening one, or loopback for 0.0.0.0 and ::.
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    while !stopped.is_set() {
        if cancel.is_set() {
            drop(reserve.take());
            if let Err(e) = TcpStream::connect_timeout(&SocketAddr::new(ip, bound.port()), POLL) {
                tracing::debug!("the stop could not wake the loop yet: {e}");
            }
        }
        std::thread::sleep(POLL);
    }
}

/// The system's "too many open files", for the process or the system.
fn out_of_descriptors(error: &io::Error) -> bool {
    #[cfg(unix)]
    return matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE));
    #[cfg(not(unix))]
    return error.kind() == io::ErrorKind::OutOfMemory;
}

/// Gives `stream` a thread of its own, or answers 503 when
/// [`MAX_CONNECTIONS`] are served already (or no thread can be made).
fn dispatch(stream: TcpStream, state: &Arc<State>, active: &Arc<AtomicUsize>, refuser: &Refuser) {
    if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
        active.fetch_sub(1, Ordering::SeqCst);
        return refuser.refuse(stream, format!("busy: {MAX_CONNECTIONS} connections are being answered; try again"));
    }
    let (state, count) = (Arc::clone(state), Arc::clone(active));
    // The stream is handed over only if the thread starts.
    let slot = Arc::new(Mutex::new(Some(stream)));
    let given = Arc::clone(&slot);
    let started = std::thread::Builder::new().name("serve".into()).spawn(move || {
        if let Some(stream) = given.lock().ok().and_then(|mut s| s.take()) {
            serve(stream, &state);
        }
        count.fetch_sub(1, Ordering::SeqCst);
    });
    if let Err(e) = started {
        active.fetch_sub(1, Ordering::SeqCst);
        if let Some(stream) = slot.lock().ok().and_then(|mut s| s.take()) {
            refuser.refuse(stream, format!("no thread could be started to answer ({e}); try again"));
        }
    }
}

/// One connection: its request read, checked and answered.
fn serve(mut stream: TcpStream, state: &State) {
    let _ = stream.set_nonblocking(false);
    let (reply, head_only) = match http::read(&mut stream) {
        Ok(request) => (state.answer(&request), request.method == "HEAD"),
        Err(Some(reply)) => (reply, false),
        Err(None) => return,
    };
    tracing::debug!("-> {}", reply.status);
    http::send(stream, &reply, &HEADERS, head_only);
}

/// The headers of every answer besides its type: never cached (the book
/// may be rewritten), never sniffed, nothing loaded from elsewhere (the
/// page is whole: no CDN, the user may be offline).
const HEADERS: [(&str, &str); 3] = [
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
    ),
];

/// What every connection's thread shares: the book (opened again when
/// its file changes), the rules and the names answered.
struct State {
    path: PathBuf,
    options: ReadOptions,
    rules: Rules,
    hosts: Hosts,
    book: Mutex<Loaded>,
}

/// The book as last opened, and the file's stamp then.
struct Loaded {
    stamp: Option<Stamp>,
    book: Result<Arc<Book>, String>,
}

/// What changes when a file is written again: its size, times and inode.
#[derive(PartialEq, Eq)]
struct Stamp(u64, Option<std::time::SystemTime>, Option<std::time::SystemTime>, u64);

impl Stamp {
    fn of(path: &std::path::Path) -> io::Result<Stamp> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        let (changed, inode) = {
            use std::os::unix::fs::MetadataExt;
            let changed = std::time::UNIX_EPOCH
                .checked_add(Duration::new(meta.ctime().max(0) as u64, meta.ctime_nsec().clamp(0, 999_999_999) as u32));
            (changed, meta.ino())
        };
        #[cfg(not(unix))]
        let (changed, inode) = (None, 0);
        Ok(Stamp(meta.len(), meta.modified().ok(), changed, inode))
    }
}

impl State {
    fn new(served: Served, ip: IpAddr) -> State {
        let stamp = Stamp::of(&served.path).ok();
        let hosts = Hosts::new(ip, &served.allow_hosts);
        let book = Mutex::new(Loaded { stamp, book: Ok(Arc::new(served.book)) });
        State { path: served.path, options: served.options, rules: served.rules, hosts, book }
    }

    /// The answer to `request`: refused when asked under another name, 503
    /// when the book cannot be read, else the route's.
    fn answer(&self, request: &http::Request) -> Reply {
        if let Err(why) = self.hosts.check(request.host.as_deref()) {
            return Reply::error(403, why);
        }
        match self.book() {
            Ok(book) => routes::answer(&book, &self.rules, &request.method, &request.target),
            Err(why) => Reply::error(503, why),
        }
    }

    /// The book, opened again first when its file changed since it was
    /// last (an editor, Edax or bookminer wrote it); why it cannot be read
    /// when it cannot.
    fn book(&self) -> Result<Arc<Book>, String> {
        let now = Stamp::of(&self.path);
        let Ok(mut loaded) = self.book.lock() else { return Err("the server failed; restart it".into()) };
        if now.as_ref().ok() == loaded.stamp.as_ref() {
            return loaded.book.clone();
        }
        let path = self.path.display();
        loaded.book = match &now {
            Err(e) => Err(format!("{path}: cannot be read now ({e}); it is served again once it can")),
            Ok(_) => match Book::open(&self.path, &self.options) {
                Ok(book) => {
                    tracing::info!("{path}: changed while served; read again");
                    Ok(Arc::new(book))
                }
                Err(e) => Err(format!("{path} changed while served and does not read as a book now ({e}); it is served again once it does")),
            },
        };
        loaded.stamp = now.ok();
        loaded.book.clone()
    }
}

/// The names a request's `Host` may give: those of the address listened
/// on (its IP; `localhost` for a loopback address; any IP for 0.0.0.0 or
/// ::) and `--allow-host`'s. A name not among them is a page elsewhere
/// asking through DNS rebinding.
struct Hosts {
    ip: IpAddr,
    names: Vec<String>,
}

impl Hosts {
    fn new(ip: IpAddr, allowed: &[String]) -> Hosts {
        let mut names: Vec<String> = allowed.iter().map(|n| n.to_ascii_lowercase()).collect();
        if ip.is_loopback() || ip.is_unspecified() {
            names.push("localhost".into());
        }
        Hosts { ip, names }
    }

    /// Whether `host` (a `Host` field, its port included) is a name of
    /// this server; a request without one (HTTP/1.0) is let through.
    fn check(&self, host: Option<&str>) -> Result<(), String> {
        let Some(host) = host else { return Ok(()) };
        let name = strip_port(host).to_ascii_lowercase();
        let literal = name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
        let known = match literal {
            Some(ip) => ip == self.ip || self.ip.is_unspecified(),
            None => self.names.contains(&name),
        };
        match known {
            true => Ok(()),
            false => Err(format!(
                "Host {host}: not a name of this server ({}); a page of another site is not answered. `serve --allow-host {name}` answers that name too",
                self.ip
            )),
        }
    }
}

/// A `Host` field without its port: `name:8046` gives `name`, `[::1]:8046`
/// gives `[::1]`.
fn strip_port(host: &str) -> &str {
    match host.rsplit_once(':') {
        Some((name, port))
            if port.bytes().all(|b| b.is_ascii_digit()) && (!name.contains(':') || name.ends_with(']')) =>
        {
            name
        }
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_of_the_address_are_answered() {
        let loopback = Hosts::new("127.0.0.1".parse().unwrap(), &["Book.Lan".into()]);
        for host in ["127.0.0.1:8046", "127.0.0.1", "localhost:80", "LOCALHOST", "book.lan:8046"] {
            assert!(loopback.check(Some(host)).is_ok(), "{host}");
        }
        for host in ["attacker.example", "127.0.0.2:8046", "localhost.attacker.example", "[::1]:8046"] {
            assert!(loopback.check(Some(host)).is_err(), "{host}");
        }
        let any = Hosts::new("0.0.0.0".parse().unwrap(), &[]);
        assert!(any.check(Some("192.168.1.9:8046")).is_ok() && any.check(Some("evil.example")).is_err());
        let v6 = Hosts::new("::1".parse().unwrap(), &[]);
        assert!(v6.check(Some("[::1]:8046")).is_ok() && v6.check(Some("[::1]")).is_ok());
        assert_eq!(strip_port("[::1]:80"), "[::1]");
        assert_eq!(strip_port("::1"), "::1");
    }
}
