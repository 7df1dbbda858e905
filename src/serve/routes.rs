//! What each request is answered with: the routes of docs/pictures.md (the
//! explorer), each made from the book alone. Whatever a request holds, the
//! answer is a status and a body: a route not known, a line that does not
//! play, a position written wrong, a URL too long are each an HTTP error
//! with a message saying why.

use super::http::Reply as Answer;
use super::view;
use bookminer::board::Board;
use bookminer::book::Book;
use bookminer::inspect::report::Report;
use bookminer::position::{self, Colour, Position};
use bookminer::rules::modes::Rules;

/// The page, whole: no build step, nothing fetched from elsewhere.
const PAGE: &str = include_str!("page.html");
/// Where the page's first view goes, so that it draws without a request more.
const VIEW_SLOT: &str = "/*VIEW*/null";

/// The longest URL answered: a kifu of 60 moves, or a board percent-encoded,
/// is far shorter.
pub const MAX_URL: usize = 2048;

/// Answers one request.
pub fn answer(book: &Book, rules: &Rules, method: &str, url: &str) -> Answer {
    if url.len() > MAX_URL {
        return Answer::error(414, format!("the URL is {} bytes long; at most {MAX_URL} are read", url.len()));
    }
    if method != "GET" && method != "HEAD" {
        return Answer::error(405, format!("{method}: only GET is answered"));
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let position = |text: Result<String, String>| text.and_then(|text| read(&text));
    match path {
        "/" => page(book, rules, Ok(initial())),
        "/favicon.ico" => Answer { status: 204, content_type: "text/plain", body: Vec::new() },
        _ if path.starts_with("/line/") => page(book, rules, position(decode(&path["/line/".len()..]))),
        _ if path.starts_with("/position/") => page(book, rules, position(decode(&path["/position/".len()..]))),
        _ if path.starts_with("/api/inspect/") => inspect(book, position(decode(&path["/api/inspect/".len()..]))),
        "/api/view" => match position(parameter(query, "pos")) {
            Ok((text, position)) => {
                let report = bookminer::inspect::report_of(book, "request", &text, position);
                Answer::ok("application/json", view::of(book, rules, &report).to_string())
            }
            Err(why) => Answer::error(400, why),
        },
        _ => Answer::error(404, format!("{path}: no such page; try / or /line/F5D6C3")),
    }
}

/// The page, its first view in it; an error when the position cannot be read.
fn page(book: &Book, rules: &Rules, position: Result<(String, Position), String>) -> Answer {
    let (text, position) = match position {
        Ok(read) => read,
        Err(why) => return Answer::error(400, why),
    };
    let report = bookminer::inspect::report_of(book, "request", &text, position);
    // Inside a script element, "</" would end it.
    let json = view::of(book, rules, &report).to_string().replace("</", "<\\/");
    Answer::ok("text/html; charset=utf-8", PAGE.replacen(VIEW_SLOT, &json, 1))
}

/// What `inspect --summary json` gives for the position: 404 with the same
/// object when the book does not hold it.
fn inspect(book: &Book, position: Result<(String, Position), String>) -> Answer {
    let (text, position) = match position {
        Ok(read) => read,
        Err(why) => return Answer::error(400, why),
    };
    let report: Report = bookminer::inspect::report_of(book, "request", &text, position);
    let missing = usize::from(report.found.is_none());
    let json = bookminer::inspect::json::document(book.path(), &[&report], missing).to_string();
    Answer { status: if missing == 0 { 200 } else { 404 }, content_type: "application/json", body: json.into_bytes() }
}

/// The initial position, reached by the empty line.
fn initial() -> (String, Position) {
    (String::new(), Position { board: Board::INITIAL, to_move: Some(Colour::Black), line: Some(Vec::new()) })
}

/// A position as inspect reads one (a kifu, an OBF board, two numbers),
/// the empty text being the initial position.
fn read(text: &str) -> Result<(String, Position), String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(initial());
    }
    position::parse(text).map(|p| (text.to_string(), p)).map_err(|e| e.to_string())
}

/// The value of the query's parameter `name`, decoded; none is the empty text.
fn parameter(query: &str, name: &str) -> Result<String, String> {
    let value = query.split('&').find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='));
    decode(&value.unwrap_or_default().replace('+', " "))
}

/// Percent-decoding: `%XX` a byte, the whole UTF-8.
fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                out.push(byte.ok_or_else(|| format!("bad percent-encoding at byte {} of the path", i + 1))?);
                i += 3;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
        .map_err(|e| format!("not UTF-8 text once decoded (byte {})", e.utf8_error().valid_up_to() + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_reads_bytes_and_refuses_what_is_not_utf8() {
        assert_eq!(decode("F5%20D6").unwrap(), "F5 D6");
        assert_eq!(decode("%2d%2D").unwrap(), "--");
        assert!(decode("%").is_err() && decode("%zz").is_err() && decode("%ff").is_err());
        assert_eq!(parameter("a=1&pos=F5+D6", "pos").unwrap(), "F5 D6");
        assert_eq!(parameter("", "pos").unwrap(), "");
    }
}
