//! `bookminer serve` (docs/pictures.md, the explorer): the book, opened and
//! indexed once, served on one address. The server reads nothing but the
//! book: every answer is made from it and from the page compiled into the
//! binary ([`routes`]); a request that is not one of the routes gets an
//! HTTP error and a message. Ctrl-C (the run's [`Cancel`]) stops it between
//! two requests.

mod routes;
mod view;

use bookminer::book::Book;
use bookminer::rules::modes::Rules;
use bookminer::run::Cancel;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::time::Duration;
use tiny_http::{Header, Response, Server};

/// How often the loop looks at the run's stop while no request comes.
const POLL: Duration = Duration::from_millis(100);

/// Serves `book` on `address` until `cancel` is set; prints the address
/// the page is on (the port the system chose, for port 0) once listening.
pub fn run(book: &Book, rules: &Rules, address: SocketAddr, cancel: Cancel<'_>) -> io::Result<u8> {
    let server = Server::http(address).map_err(|e| io::Error::other(format!("cannot listen on {address}: {e}")))?;
    let bound = server.server_addr().to_ip().unwrap_or(address);
    let mut out = io::stdout().lock();
    writeln!(out, "serving {} at http://{bound}/ (Ctrl-C stops)", book.path().display())?;
    out.flush()?;
    drop(out);
    tracing::info!("{}: serving at http://{bound}/", book.path().display());
    while !cancel.is_set() {
        let Some(request) = server.recv_timeout(POLL)? else { continue };
        let answer = routes::answer(book, rules, request.method().as_str(), request.url());
        tracing::debug!("{} {} -> {}", request.method(), request.url(), answer.status);
        let mut response = Response::from_data(answer.body).with_status_code(answer.status);
        for (name, value) in headers(answer.content_type) {
            // Every name and value is ASCII, so each header is well formed.
            if let Ok(header) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(header);
            }
        }
        // A client gone before its answer is no failure of the server.
        if let Err(e) = request.respond(response) {
            tracing::debug!("an answer was not delivered: {e}");
        }
    }
    tracing::info!("{}: the server stopped", book.path().display());
    Ok(0)
}

/// The headers of every answer: its type, never cached (the book may be
/// rewritten between two runs), never sniffed, nothing loaded from
/// elsewhere (the page is whole: no CDN, the user may be offline).
fn headers(content_type: &'static str) -> [(&'static str, &'static str); 4] {
    [
        ("Content-Type", content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
        ),
    ]
}
